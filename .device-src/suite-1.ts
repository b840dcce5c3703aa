// 23 test files, about 76 s on the 2-core machine
import './defer-uvu.ts';
import '../test/security-names.test.ts';
import '../test/peers/test_reduction.py.test.ts';
import '../test/peers/test_scan.py.test.ts';
import '../test/autotune.test.ts';
import '../test/regressions-transforms.test.ts';
import '../test/peers/test_loopy.py.splitting.test.ts';
import '../test/peers/reikna/test_roll.py.test.ts';
import '../test/peers/test_linalg.py.test.ts';
import '../test/transform-split-tag.test.ts';
import '../test/launch-plan.test.ts';
import '../test/peers/test_dg.py.images.test.ts';
import '../test/peers/test_fusion.py.test.ts';
import '../test/peers/test_loopy.py.arrays-arguments.test.ts';
import '../test/peers/test_loopy.py.base-storage.test.ts';
import '../test/peers/test_loopy.py.misc-a.test.ts';
import '../test/peers/test_loopy.py.temps.test.ts';
import '../test/peers/test_split_iname_slabs.py.test.ts';
import '../test/peers/test_transform.py.typing-rules.test.ts';
import '../test/peers/reikna/test_computation.py.test.ts';
import '../test/transform-more.test.ts';
import '../test/regressions-webgpu-state.test.ts';
import '../test/host-loops.test.ts';
import '../test/elementwise-tensor.test.ts';
import { exec } from 'uvu';

await exec();
