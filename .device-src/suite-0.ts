// 22 test files, about 76 s on the 2-core machine
import './defer-uvu.ts';
import '../test/matmul-configs.test.ts';
import '../test/peers/loopy-vector-types.test.ts';
import '../test/peers/test_transform/substitutions.test.ts';
import '../test/elementwise-literal-range.test.ts';
import '../test/schedule-one-step-loops.test.ts';
import '../test/constant-tables.test.ts';
import '../test/run.test.ts';
import '../test/cuda-device.test.ts';
import '../test/footprint-global-barriers.test.ts';
import '../test/peers/test_apps.py.kernels.test.ts';
import '../test/peers/test_domain.py.test.ts';
import '../test/peers/test_loop_fusion.py.test.ts';
import '../test/peers/test_loopy.py.auto-test.test.ts';
import '../test/peers/test_loopy.py.einsum.test.ts';
import '../test/peers/test_loopy.py.public-api.test.ts';
import '../test/peers/test_nbody.py.rules.test.ts';
import '../test/peers/test_transform/axes-and-names.test.ts';
import '../test/transform-through-rules.test.ts';
import '../test/temporaries-parametric.test.ts';
import '../test/aliased-arguments.test.ts';
import '../test/computation-plan.test.ts';
import '../test/computation-complex.test.ts';
import { exec } from 'uvu';

await exec();
