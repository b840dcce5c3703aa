// 24 test files, about 76 s on the 2-core machine
import './defer-uvu.ts';
import '../test/matmul-shapes.test.ts';
import '../test/peers/reikna/test_matrixmul.py.test.ts';
import '../test/differential.test.ts';
import '../test/elementwise-dtypes.test.ts';
import '../test/regressions-differential.test.ts';
import '../test/functions-math.test.ts';
import '../test/peers/test_loopy.py.test.ts';
import '../test/printing-precedence.test.ts';
import '../test/peers/test_transform/instructions.test.ts';
import '../test/c-device.test.ts';
import '../test/guards-existentials.test.ts';
import '../test/peers/test_apps.py.rules.test.ts';
import '../test/peers/test_einsum.py.test.ts';
import '../test/peers/test_loopy.py.access-checks.test.ts';
import '../test/peers/test_loopy.py.barriers-atomics.test.ts';
import '../test/peers/test_loopy.py.loops-ilp.test.ts';
import '../test/peers/test_loopy.py.runtime-sizes.test.ts';
import '../test/peers/test_nbody.py.typing-rules.test.ts';
import '../test/peers/test_transform/inlining.test.ts';
import '../test/elementwise-js-semantics.test.ts';
import '../test/kernel-dependent-domains.test.ts';
import '../test/elementwise-payload.test.ts';
import '../test/transform-axes-vec-sep.test.ts';
import '../test/temporary-variables.test.ts';
import { exec } from 'uvu';

await exec();
