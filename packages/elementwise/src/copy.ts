/**
 * Copies through a pointwise identity: `clone(t)` keeps t's layout (dense, in t's
 * stride order, as PyTorch's preserve_format); `contiguous(t)` is row-major. The copy
 * converts nothing: NO_OPMATH keeps the dtype as it is.
 */
import { pointwise, type PointwiseFunction } from './pointwise.ts';
import { empty, type Tensor } from './tensor.ts';

let identity: PointwiseFunction<Tensor> | undefined;

/** Made on first use (an expression payload: no TypeScript parser to load). */
const copy = () => (identity ??= pointwise({ promotionMethods: [[0, 'NO_OPMATH']], name: 'copy', params: ['x'] }, 'x'));

/** A contiguous copy of a tensor, on its device. */
export function clone(t: Tensor): Promise<Tensor> {
  return copy()(t);
}

/** `t` itself when already row-major, else a row-major copy. */
export async function contiguous(t: Tensor): Promise<Tensor> {
  if (t.isContiguous()) return t;
  return copy()(t, { out0: empty(t.shape, { dtype: t.dtype, device: t.device }) });
}
