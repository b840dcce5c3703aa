/**
 * Differential testing of the computation library, the bounded sample CI runs: reduce and scan with
 * random predicates, shapes, axes and cuts, complex arrays and parameters, computations with nothing
 * to transform, and matrixMul with drawn tilings, on every device present, against plain JS
 * (test/support/differential/computation*.ts make the cases; `npx tsx bench/differential.ts` runs the
 * same with fresh seeds). Fixed seeds: a failure names the command that reproduces it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runComputationCase } from './support/differential/computations.ts';
import { runComplexParameterCase } from './support/differential/computation-complex.ts';
import { runNoAxesCase } from './support/differential/computation-no-axes.ts';
import { runMatmulConfigCase } from './support/differential/computation-matmul.ts';
import { casesOf, range, seedsUntilEveryKind } from './support/differential/sample.ts';

test('every device: the computation library (reduce and scan with random predicates, shapes, axes and cuts; complex arrays) agrees with plain JS', async () => {
  const ran = await casesOf(range(24_000, 3), runComputationCase);
  assert.ok(
    ran.some((w) => /^reduce.*, cut \d+ x \d+$/.test(w)) && ran.some((w) => w.startsWith('complex64')),
    ran.join('; '),
  );
});

test('every device: complex parameters of computations (scalars, parts, norms, real x complex products) agree with plain JS', async () => {
  // seeds from 31 000 until each of the four computations has run (computation-complex.ts)
  await seedsUntilEveryKind(
    31_000,
    40,
    [/scalars/, /combineComplex/, /Norm|normConst/, /matrixMul/],
    runComplexParameterCase,
  );
});

test('every device: computations with nothing to transform (no axes, or axes of length 1; rank 0 to 3) write their whole output', async () => {
  // seeds from 41 000 until the empty axis list, axes of length 1 and a rank-0 array have each run
  await seedsUntilEveryKind(41_000, 20, [/axes \(\)$/, /axes \(\d/, /shape \(\)/], runNoAxesCase);
});

test('every device: matrixMul with drawn tilings (float4 panels, a transposed as float4s, pipelined, two buffers, subgroups over blocks) computes a*b exactly, or refuses before it runs', async () => {
  // seeds from 51 015 until a product of a's k-major float4 panel, one of float4 reads, one with a subgroup
  // shape and a refusal have each run (eight seeds: 51 022 is the first of the k-major float4 panel and of a subgroup shape)
  await seedsUntilEveryKind(
    51_015,
    8,
    [
      /: matrixMul .*"aTransposedVectors":true/,
      /: matrixMul .*"vectorReads":true/,
      /: matrixMul .*"subgroupShape"/,
      /: refused, /,
    ],
    runMatmulConfigCase,
  );
});

test.run();
