/**
 * A tiled matrix-vector product and a tiled square product staged through local memory, the
 * kernels the double-buffer, asynchronous-copy, bulk-copy and swizzle tests transform, and the
 * plain JavaScript references those tests check them against.
 */
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  fixParameters,
  makeKernel,
  run,
  splitIname,
  tagInames,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { randomFloat32 } from './devices.ts';

/** y[i] = sum(j, m[i, j]*x[j]): rows over the work-items, x staged in local memory 16 at a time (`x_fetch`, filled along `j_outer`). */
export function stagedMatvec(): LoopKernel {
  let knl = makeKernel('{ [i, j]: 0 <= i < n and 0 <= j < k }', 'y[i] = sum(j, m[i, j]*x[j])', undefined, {
    name: 'matvec',
  });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'j', 16);
  knl = addPrefetch(knl, 'x', ['j_inner'], { temporaryAddressSpace: 'local' });
  knl = tagInames(knl, { x_dim_0: 'l.0' });
  return addDtypes(knl, { m: 'float32', x: 'float32' });
}

/**
 * c = a·b (n x n, float32, n fixed) in 16 x 16 blocks of work-items, k staged 32 at a time: a's 16 x
 * 32 panel (`a_fetch`) and b's 32 x 16 (`b_fetch`) filled by all 256 work-items, filled along `k_outer`.
 */
export function stagedProduct(n: number): LoopKernel {
  let knl = makeKernel('{ [i, j, k]: 0 <= i, j, k < n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
    name: 'staged_product',
  });
  knl = addDtypes(fixParameters(knl, { n }), { a: 'float32', b: 'float32' });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'k', 32);
  knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], {
    temporaryAddressSpace: 'local',
    fetchOuterInames: ['i_outer', 'k_outer'],
  });
  knl = addPrefetch(knl, 'b', ['k_inner', 'j_inner'], {
    temporaryAddressSpace: 'local',
    fetchOuterInames: ['j_outer', 'k_outer'],
  });
  knl = splitIname(knl, 'a_dim_1', 16, { innerTag: 'l.0' });
  knl = tagInames(knl, { a_dim_0: 'l.1', b_dim_1: 'l.0' });
  return splitIname(knl, 'b_dim_0', 16, { innerTag: 'l.1' });
}

/** The n sums of the n x k matrix m times x, in float64. */
export function matvecReference(m: Float32Array, x: Float32Array, n: number, k: number): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) y[i] += m[i * k + j] * x[j];
  return y;
}

/**
 * Runs `knl` (a matrix-vector product of the n x k matrix m and x, n and k fixed in it or passed)
 * on `device` and checks y against `reference` (default matvecReference) within 1e-5 k.
 */
export async function expectMatvec(
  device: Device,
  what: string,
  knl: LoopKernel,
  n: number,
  k: number,
  reference: (m: Float32Array, x: Float32Array, n: number, k: number) => ArrayLike<number> = matvecReference,
): Promise<void> {
  const m = randomFloat32(n * k, 5);
  const x = randomFloat32(k, 6);
  const expected = reference(m, x, n, k);
  const { y } = await run(knl, device, { m, x, ...(knl.arg('n') ? { n, k } : {}) });
  for (let i = 0; i < n; i++)
    assert.ok(
      Math.abs((y as Float32Array)[i] - expected[i]) <= 1e-5 * k,
      `${what}: y[${i}] = ${(y as Float32Array)[i]}, expected ${expected[i]}`,
    );
}

/** Checks c (n x n, row-major) against a·b computed in JavaScript, within 1e-5 n an element. */
export function expectSquareProduct(c: ArrayLike<number>, a: Float32Array, b: Float32Array, n: number, what: string) {
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let expected = 0;
      for (let k = 0; k < n; k++) expected += a[i * n + k] * b[k * n + j];
      const got = c[i * n + j];
      assert.ok(Math.abs(got - expected) <= 1e-5 * n, `${what}: c[${i}, ${j}] = ${got}, expected ${expected}`);
    }
}
