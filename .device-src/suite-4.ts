// 24 test files, about 76 s on the 2-core machine
import './defer-uvu.ts';
import '../test/elementwise-variants.test.ts';
import '../test/peers/reikna/test_reduce.py.test.ts';
import '../test/caches.test.ts';
import '../test/semantics.test.ts';
import '../test/transform-parallel.test.ts';
import '../test/elementwise-vector-bounds.test.ts';
import '../test/security-limits.test.ts';
import '../test/computation-runtime-sizes.test.ts';
import '../test/security-bounds.test.ts';
import '../test/padded-host-arrays.test.ts';
import '../test/peers/test_dg.py.vectors.test.ts';
import '../test/peers/test_linalg.py.matmul.test.ts';
import '../test/peers/test_loopy.py.atomics-storage.test.ts';
import '../test/peers/test_loopy.py.calls.test.ts';
import '../test/peers/test_loopy.py.offsets-strides.test.ts';
import '../test/peers/test_loopy.py.typing-rules.test.ts';
import '../test/peers/test_target.py.arguments.test.ts';
import '../test/shape-guess-shapeless.test.ts';
import '../test/tutorial-kernels.test.ts';
import '../test/bounds-guards.test.ts';
import '../test/elementwise-host-path.test.ts';
import '../test/transform-precompute.test.ts';
import '../test/check-validity.test.ts';
import '../test/language-instructions.test.ts';
import { exec } from 'uvu';

await exec();
