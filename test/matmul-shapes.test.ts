/**
 * examples/matmul.ts on shapes that are not n x n multiples of the tiles: c (m x n) = a (m x k) ·
 * b (k x n) with m, n, k distinct and not multiples of any tile, and batches of products
 * (c[l, i, j] = sum(k, a[l, i, k]*b[l, k, j]), the batch on the grid's axis 2). The splits guard
 * the edges; the float4 configurations take rows of whole float4s (k and n multiples of 4) and
 * refuse the others before anything runs. Every product is checked against plain JavaScript on
 * every device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, autotune, generateCode, LoomError, run } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import {
  configProblem,
  matmulError,
  matmulKernel,
  matmulTuning,
  pseudoRandom,
  referenceMatmul,
  shapeProblem,
  type MatmulConfig,
  type MatmulShape,
} from '../examples/matmul.ts';
import { paddedMatmul, runPaddedMatmul } from '../examples/matmul-padded.ts';
import { testDevices } from './support/devices.ts';

const scalar = (layout: 'strided' | 'blocked', extra: Partial<MatmulConfig> = {}): MatmulConfig => ({
  tileM: 16,
  tileN: 16,
  tileK: 8,
  regM: 2,
  regN: 2,
  layout,
  prefetch: true,
  unrollK: false,
  ...extra,
});
const vector = (layout: 'strided' | 'blocked', extra: Partial<MatmulConfig> = {}): MatmulConfig => ({
  tileM: 32,
  tileN: 32,
  tileK: 8,
  regM: 4,
  regN: 4,
  layout,
  prefetch: true,
  unrollK: false,
  vectorWidth: 4,
  ...extra,
});

const SCALAR_CONFIGS = [
  scalar('strided'),
  scalar('blocked', { unrollK: true }),
  scalar('strided', { prefetch: false }),
];
const VECTOR_CONFIGS = [
  vector('strided'),
  vector('strided', { vectorReads: true }),
  vector('blocked', { vectorReads: true, aVectorReads: true }),
];

/** No size a multiple of a tile, nor of 4: the scalar configurations only. */
const ODD: MatmulShape = { m: 37, n: 45, k: 29 };
/** Not multiples of the tiles, but rows of whole float4s (as 4000 x 4100 x 3900). */
const FOURS: MatmulShape = { m: 37, n: 44, k: 28 };
const BATCH: MatmulShape = { batch: 3, m: 19, n: 36, k: 20 };
/** k equal to the configurations' tileK (8): the loop over the steps of k has one step. */
const ONE_STEP: MatmulShape = { m: 37, n: 44, k: 8 };

const clCode = (config: MatmulConfig, shape: MatmulShape) =>
  generateCode(addDtypes(matmulKernel(config, shape), { a: 'float32', b: 'float32' }), openclTarget()).code;

test('float4 configurations refuse rows that are not whole float4s, before anything runs', () => {
  assert.match(shapeProblem(VECTOR_CONFIGS[0], ODD) ?? '', "a's rows (k = 29) are not whole float4s");
  assert.match(
    shapeProblem(VECTOR_CONFIGS[0], { m: 8, n: 45, k: 28 }) ?? '',
    "b's rows (n = 45) are not whole float4s",
  );
  assert.is(shapeProblem(VECTOR_CONFIGS[0], FOURS), undefined);
  assert.is(shapeProblem(SCALAR_CONFIGS[0], ODD), undefined);
  assert.throws(
    () => matmulKernel(VECTOR_CONFIGS[1], ODD),
    (e: unknown) =>
      e instanceof LoomError &&
      /37x45x29\): a's rows \(k = 29\) are not whole float4s: vectorWidth 4 needs k a multiple of 4/.test(
        (e as Error).message,
      ),
  );
  // a configuration's own problem comes first, as for n x n
  assert.throws(
    () => matmulKernel({ ...VECTOR_CONFIGS[0], prefetch: false }, FOURS),
    (e: unknown) => e instanceof LoomError && /needs prefetch/.test((e as Error).message),
  );
  assert.is(configProblem(VECTOR_CONFIGS[2]), undefined);
  assert.throws(() => matmulKernel(SCALAR_CONFIGS[0], { m: 0, n: 4, k: 4 }), /m must be a positive integer, got 0/);
});

test('4000 x 4100 x 3900: the edges guarded, the float4 loads of b and stores of c kept whole, the last step of k a slab of its own', () => {
  const code = clCode(
    {
      tileM: 128,
      tileN: 128,
      tileK: 16,
      regM: 8,
      regN: 8,
      layout: 'strided',
      prefetch: true,
      unrollK: false,
      vectorWidth: 4,
      vectorReads: true,
    },
    { m: 4000, n: 4100, k: 3900 },
  );
  // b's panel: a float4 load under the guard of its vector (n = 4100 is 1025 float4s)
  assert.match(
    code,
    /if \(32 \* gid\(0\) <= -lid\(0\) \+ 1024\)\n\s*\{\n\s*b_vec\[0\] = b\[16400 \* k_outer \+ 1025 \* lid\(1\) \+ 32 \* gid\(0\) \+ lid\(0\)\];/,
  );
  // a's rows past m = 4000 are not loaded
  assert.match(code, /if \(.*128 \* gid\(1\) <= .*\+ 3999\)/);
  assert.match(code, "/* bulk slab for 'k_outer' */");
  assert.match(code, "/* final slab for 'k_outer' */");
  assert.match(code, 'for (int k_outer = 0; k_outer <= 242; ++k_outer)');
  // c written as float4s, within its rows and columns
  assert.match(code, /if \(128 \* gid\(1\) <= -lid\(1\) \+ 3999 && 32 \* gid\(0\) <= -lid\(0\) \+ 1024\)\n\s*c\[/);
  assert.not.match(code, '.s3 =');
});

test('multiples of the tiles (64 x 512 x 512 x 512): no guard at the edges, the batch on the grid axis 2', () => {
  const code = clCode(
    {
      tileM: 128,
      tileN: 128,
      tileK: 16,
      regM: 8,
      regN: 8,
      layout: 'strided',
      prefetch: true,
      unrollK: false,
      vectorWidth: 4,
      vectorReads: true,
      aVectorReads: true,
    },
    { batch: 64, m: 512, n: 512, k: 512 },
  );
  // (a's panel rows are fewer than the work-items: that guard is the configuration's, as for n x n)
  assert.not.match(code, /if \([^)]*gid/);
  assert.not.match(code, 'slab');
  assert.match(code, /\n\s*c\[65536 \* gid\(2\) \+ /);
  assert.match(code, '__global float4 const *__restrict__ a');
});

const BIG_FOUR: MatmulConfig = {
  tileM: 128,
  tileN: 128,
  tileK: 16,
  regM: 8,
  regN: 8,
  layout: 'strided',
  prefetch: true,
  unrollK: false,
  vectorWidth: 4,
  vectorReads: true,
};

test('the padded plan of 4000 x 4100 x 3900: a and b padded to 4096 x 3904 and 3904 x 4224, the product unguarded, c cropped', () => {
  const plan = paddedMatmul(BIG_FOUR, { m: 4000, n: 4100, k: 3900 });
  assert.equal(plan.padded, { m: 4096, n: 4224, k: 3904 });
  assert.equal(plan.temporaries, [
    { name: 'a_padded', shape: [4096, 3904] },
    { name: 'b_padded', shape: [3904, 4224] },
    { name: 'c_padded', shape: [4096, 4224] },
  ]);
  assert.equal(
    plan.steps.map((s) => [s.kernel.name, s.args]),
    [
      ['pad_a', { source: 'a', target: 'a_padded' }],
      ['pad_b', { source: 'b', target: 'b_padded' }],
      ['sgemm', { a: 'a_padded', b: 'b_padded', c: 'c_padded' }],
      ['crop_c', { source: 'c_padded', target: 'c' }],
    ],
  );
  const product = generateCode(addDtypes(plan.steps[2].kernel, { a: 'float32', b: 'float32' }), openclTarget()).code;
  // no edge guard (no condition on the group's position), no last step of k apart
  assert.not.match(product, /if \([^)]*gid/);
  assert.not.match(product, 'slab');
  assert.match(product, 'for (int k_outer = 0; k_outer <= 243; ++k_outer)');
  // the pad: zero outside a, one element a work-item, neighbours along a row
  const pad = generateCode(plan.steps[0].kernel, openclTarget()).code;
  assert.match(
    pad,
    /target\[3904 \* \(4 \* gid\(1\) \+ lid\(1\)\) \+ \(64 \* gid\(0\) \+ lid\(0\)\)\] = .* < 4000 && .* < 3900 \? source\[.*\] : 0\.0f;/,
  );
});

test('the padded plan copies only what needs it', () => {
  const names = (shape: MatmulShape) => paddedMatmul(BIG_FOUR, shape).steps.map((s) => s.kernel.name);
  // whole tiles: the kernel alone
  assert.equal(names({ m: 1024, n: 8192, k: 1024 }), ['sgemm']);
  assert.equal(paddedMatmul(BIG_FOUR, { batch: 2, m: 512, n: 512, k: 512 }).temporaries, []);
  // only rows of a and c (m): b stays
  assert.equal(names({ m: 1000, n: 1024, k: 1024 }), ['pad_a', 'sgemm', 'crop_c']);
  // only k: a and b padded, c written in place
  assert.equal(names({ m: 1024, n: 1024, k: 1000 }), ['pad_a', 'pad_b', 'sgemm']);
  // only n: b and c
  assert.equal(names({ m: 1024, n: 1000, k: 1024 }), ['pad_b', 'sgemm', 'crop_c']);
  // the batch axis stays; each product padded
  assert.equal(paddedMatmul(BIG_FOUR, { batch: 3, m: 19, n: 36, k: 20 }).temporaries[0], {
    name: 'a_padded',
    shape: [3, 128, 32],
  });
});

for (const device of testDevices()) {
  const check = async (shape: MatmulShape, configs: readonly MatmulConfig[]) => {
    const { m, n, k, batch = 1 } = shape;
    const a = pseudoRandom(batch * m * k, 3);
    const b = pseudoRandom(batch * k * n, 4);
    const expected = referenceMatmul(a, b, shape);
    for (const config of configs) {
      const { c } = await run(matmulKernel(config, shape), device, { a, b });
      const error = matmulError(c as Float32Array, expected, shape);
      assert.ok(error < 1e-6, `${JSON.stringify(shape)} ${JSON.stringify(config)}: error ${error}`);
    }
  };

  test(`${device.name}: 37 x 45 x 29 (no size a multiple of a tile or of 4), the scalar configurations`, () =>
    check(ODD, SCALAR_CONFIGS));
  test(`${device.name}: 37 x 44 x 28 (rows of whole float4s), the float4 configurations`, () =>
    check(FOURS, VECTOR_CONFIGS));
  test(`${device.name}: a batch of 3 products of 19 x 36 x 20, scalar and float4`, () =>
    check(BATCH, [SCALAR_CONFIGS[0], VECTOR_CONFIGS[2]]));
  test(`${device.name}: pipelined configurations (the next k step's loads ahead) on every shape, the last k step a slab`, async () => {
    await check(ODD, [scalar('strided', { pipelined: true }), scalar('blocked', { unrollK: true, pipelined: true })]);
    await check(FOURS, [vector('strided', { vectorReads: true, pipelined: true })]);
    await check(BATCH, [
      scalar('strided', { pipelined: true }),
      vector('blocked', { vectorReads: true, aVectorReads: true, pipelined: true }),
    ]);
  });

  test(`${device.name}: 37 x 44 x 8 (k equal to tileK: one step of k), scalar and float4, pipelined too`, async () => {
    await check(ONE_STEP, [...SCALAR_CONFIGS, scalar('strided', { pipelined: true })]);
    await check(ONE_STEP, [
      ...VECTOR_CONFIGS,
      vector('blocked', { vectorReads: true, aVectorReads: true, pipelined: true }),
    ]);
    await check({ m: 32, n: 32, k: 8 }, [SCALAR_CONFIGS[0], VECTOR_CONFIGS[1]]);
  });

  test(`${device.name}: the padded plans (pad, unguarded product, crop) equal plain JavaScript on every shape`, async () => {
    for (const [shape, configs] of [
      [ODD, SCALAR_CONFIGS],
      [FOURS, VECTOR_CONFIGS],
      [BATCH, [SCALAR_CONFIGS[0], VECTOR_CONFIGS[2]]],
      // padded to whole tiles, rows of odd lengths become whole float4s: the float4 configurations take them
      [ODD, [VECTOR_CONFIGS[1], VECTOR_CONFIGS[2]]],
      // only the rows of a and c, only k, only n
      [{ m: 37, n: 32, k: 16 }, [SCALAR_CONFIGS[0]]],
      [{ m: 32, n: 32, k: 29 }, [SCALAR_CONFIGS[1]]],
      [{ m: 32, n: 44, k: 16 }, [VECTOR_CONFIGS[1]]],
    ] as const) {
      const { m, n, k, batch = 1 } = shape as MatmulShape;
      const a = pseudoRandom(batch * m * k, 5);
      const b = pseudoRandom(batch * k * n, 6);
      const expected = referenceMatmul(a, b, shape);
      for (const config of configs) {
        const c = await runPaddedMatmul(paddedMatmul(config, shape), device, a, b);
        const error = matmulError(c, expected, shape);
        assert.ok(error < 1e-6, `padded ${JSON.stringify(shape)} ${JSON.stringify(config)}: error ${error}`);
      }
    }
  });

  test(`${device.name}: the tuner on a shape leaves out the configurations that cannot take it, and checks the others`, async () => {
    const result = await autotune(matmulTuning(ODD, [SCALAR_CONFIGS[1], VECTOR_CONFIGS[0]]), device, {
      budgetSeconds: 60,
      fresh: true,
    });
    assert.equal(
      result.trials.map((t) => [t.config, t.failure]),
      [[SCALAR_CONFIGS[1], undefined]],
    );
    const batched = await autotune(matmulTuning(BATCH, [VECTOR_CONFIGS[1]]), device, {
      budgetSeconds: 60,
      fresh: true,
    });
    assert.is(batched.trials[0].failure, undefined);
  });
}

test.run();
