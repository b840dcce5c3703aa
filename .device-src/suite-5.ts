// 23 test files, about 76 s on the 2-core machine
import './defer-uvu.ts';
import '../test/computation-reduce-order.test.ts';
import '../test/peers/reikna/test_scan.py.test.ts';
import '../test/peers/reikna/test_transformations.py.test.ts';
import '../test/vector-types.test.ts';
import '../test/peers/test_transform/inames.test.ts';
import '../test/peers/reikna/test_transformation.py.test.ts';
import '../test/dsl-run.test.ts';
import '../test/peers/test_target.py.test.ts';
import '../test/kernel-lane-temporaries.test.ts';
import '../test/images.test.ts';
import '../test/peers/test_callables.py.test.ts';
import '../test/peers/test_expression.py.test.ts';
import '../test/peers/test_loopy.py.arg-guessing.test.ts';
import '../test/peers/test_loopy.py.barriers-bounds.test.ts';
import '../test/peers/test_loopy.py.misc-B.test.ts';
import '../test/peers/test_loopy.py.temporaries.test.ts';
import '../test/peers/test_sem_reagan.py.vectors.test.ts';
import '../test/peers/test_transform/reduction-rules.test.ts';
import '../test/functions-user.test.ts';
import '../test/peers/reikna/test_pureparallel.py.test.ts';
import '../test/peers/test_nbody.py.test.ts';
import '../test/elementwise-integer-semantics.test.ts';
import '../test/prepare-launch.test.ts';
import { exec } from 'uvu';

await exec();
