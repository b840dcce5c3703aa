/**
 * Tensor tiles of bfloat16: HGEMM's kernel with bfloat16 factors (`bf16gemmKernel`), on WMMA's
 * 16x16x16 bfloat16 tiles into float32 accumulators. Checked on the CUDA C it becomes (bfloat16
 * fragments, panels of `__nv_bfloat16` in shared memory filled by copies that move the bits as they
 * are), on its values against float64 sums on every device with matrix instructions, and on the
 * refusal elsewhere: a bfloat16 accumulator, and targets without matrix instructions.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  bfloat16Bits,
  bfloat16Value,
  generateCode,
  LoomError,
  makeKernel,
  run,
  splitIname,
  targetFacts,
  tensorize,
} from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { bf16gemmKernel, HGEMM_CONFIGS, hgemmEntry } from '../examples/hgemm.ts';
import { testDevices } from './support/devices.ts';

/** n x n values in [-1, 1) rounded to bfloat16: their bits, and their values. */
function bfloat16Matrix(n: number, seed: number): { bits: Uint16Array; values: Float32Array } {
  const bits = new Uint16Array(n * n);
  const values = new Float32Array(n * n);
  let state = seed;
  for (let k = 0; k < n * n; k++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    bits[k] = bfloat16Bits((state / 2 ** 31) * 2 - 1);
    values[k] = bfloat16Value(bits[k]);
  }
  return { bits, values };
}

test('CUDA C: bfloat16 fragments, panels of __nv_bfloat16 in shared memory, copied as they are', () => {
  const code = generateCode(bf16gemmKernel(256, HGEMM_CONFIGS[1]), cudaTarget()).code;
  assert.match(code, '#include <cuda_bf16.h>');
  assert.match(code, '__nv_bfloat16 const *__restrict__ a');
  assert.match(code, '__shared__ __align__(32) __nv_bfloat16 a_fetch[2552];');
  assert.match(code, 'wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> loom_a_tile0;');
  assert.match(code, 'wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4];');
  // a copy moves the bits: no conversion through float on the way into shared memory
  assert.match(code, '] = a[256 * (64 * bIdx(y)');
  assert.not.match(code, 'loom_to_bfloat16');
  // 8 unrolled copies of consecutive bfloat16s at a multiple of 8 are one 16-byte move
  const wide = generateCode(bf16gemmKernel(256, HGEMM_CONFIGS.find((c) => c.wideCopies)!), cudaTarget()).code;
  assert.match(wide, '*(uint4 *) (a_fetch + ');
});

test('a bfloat16 accumulator has no matrix instruction: refused with the shapes there are', () => {
  let knl = makeKernel(
    '{ [i, j, k]: 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 64 }',
    'c[i, j] = sum(k, a[i, k] * b[k, j])',
  );
  knl = addDtypes(knl, { a: 'bfloat16', b: 'bfloat16', c: 'bfloat16' });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.1' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0' });
  knl = splitIname(knl, 'k', 16);
  const tiled = tensorize(knl, { m: 'i_inner', n: 'j_inner', k: 'k_inner' });
  try {
    generateCode(tiled, cudaTarget());
    assert.unreachable('a bfloat16 accumulator was accepted');
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, 'of bfloat16 into bfloat16');
    assert.match((e as Error).message, '16x16x16 of bfloat16 into float32');
  }
});

for (const device of testDevices()) {
  const support = targetFacts(device.target).matrixInstructions;
  if ('refused' in support) {
    test(`${device.name}: a bfloat16 tensor tile is refused with the reason`, async () => {
      const a = bfloat16Matrix(128, 1);
      const refusal = await run(bf16gemmKernel(128, HGEMM_CONFIGS[1]), device, { a: a.bits, b: a.bits }).then(
        () => undefined,
        (e: Error) => e,
      );
      assert.instance(refusal, LoomError);
      assert.match((refusal as Error).message, support.refused);
    });
    continue;
  }
  test(`${device.name}: the bfloat16 product on matrix instructions, against float64 sums`, async () => {
    // the CPU device computes each warp's tile in each of its lanes: smaller, fewer tilings
    const emulated = support.lanes === 1;
    const n = emulated ? 128 : 256;
    const a = bfloat16Matrix(n, 11);
    const b = bfloat16Matrix(n, 12);
    const configs = emulated
      ? [HGEMM_CONFIGS[1]!, { ...HGEMM_CONFIGS[1]!, wideCopies: true }]
      : HGEMM_CONFIGS.filter((c, k) => k < 2 || c.doubleBuffered || c.wideCopies);
    for (const config of configs) {
      const { c } = await run(bf16gemmKernel(n, config), device, { a: a.bits, b: b.bits });
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          // products of bfloat16s are exact in float32; the sums round in the tensor cores' order
          const { value, magnitude } = hgemmEntry(a.values, b.values, n, i, j);
          const got = (c as Float32Array)[i * n + j];
          if (!(Math.abs(got - value) <= 1e-6 * magnitude * Math.sqrt(n) + 1e-6))
            assert.unreachable(`${JSON.stringify(config)}: c[${i}, ${j}] = ${got}, expected ${value}`);
        }
    }
  });
}

test.run();
