/**
 * A tiled matrix-vector product staged through local memory, the kernel the double-buffer and
 * asynchronous-copy tests transform, and its plain JavaScript reference.
 */
import { addDtypes, addPrefetch, makeKernel, splitIname, tagInames, type LoopKernel } from '@loom/core';

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

/** The n sums of the n x k matrix m times x, in float64. */
export function matvecReference(m: Float32Array, x: Float32Array, n: number, k: number): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) y[i] += m[i * k + j] * x[j];
  return y;
}
