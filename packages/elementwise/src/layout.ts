/**
 * The task space of a pointwise call, as PyTorch's TensorIterator lays it out.
 *
 * 1. Stride order: the axes are sorted by how far apart their elements lie in the
 *    operands (outputs that exist first, then inputs; broadcast axes say nothing).
 *    An output that must be allocated gets that order, so `x.T + 1` is transposed
 *    like `x.T`: outputs follow their inputs' layout, and the kernel walks every
 *    operand in memory order.
 * 2. Coalescing: neighbouring axes merge when, for every operand, stepping over the
 *    inner one completely lands exactly on the next step of the outer one. Contiguous
 *    operands of any rank become one axis; a transposed one keeps two. Axes of size 1
 *    vanish. The kernel is generated for the rank that is left.
 */

/** Each operand's strides, aligned with the task shape; undefined for an output yet to be allocated. */
export type OperandStrides = readonly (readonly number[] | undefined)[];

/**
 * The axes, fastest-moving first (PyTorch's `perm_`): an insertion sort in which the
 * first operand that tells two axes apart decides (smaller stride inside; on equal
 * strides, the smaller axis inside), and axes nobody tells apart keep their order.
 */
export function strideOrder(shape: readonly number[], operands: OperandStrides): number[] {
  const rank = shape.length;
  const perm = Array.from({ length: rank }, (_, k) => rank - 1 - k);
  // 1: dim0 goes outside dim1; -1: inside; 0: no operand can tell
  const shouldSwap = (dim0: number, dim1: number): number => {
    for (const strides of operands) {
      if (!strides) continue;
      // a flipped axis is as far apart as its mirror image
      const s0 = Math.abs(strides[dim0]);
      const s1 = Math.abs(strides[dim1]);
      if (s0 === 0 || s1 === 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[dim0] > shape[dim1]) return 1;
    }
    return 0;
  };
  for (let i = 1; i < rank; i++) {
    let dim1 = i;
    for (let dim0 = i - 1; dim0 >= 0; dim0--) {
      const comparison = shouldSwap(perm[dim0], perm[dim1]);
      if (comparison > 0) {
        [perm[dim0], perm[dim1]] = [perm[dim1], perm[dim0]];
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  return perm;
}

/** Strides of a new dense tensor of `shape` whose axes are laid out in `perm` order (fastest first). */
export function stridesInOrder(shape: readonly number[], perm: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(0);
  let step = 1;
  for (const axis of perm) {
    strides[axis] = step;
    step *= Math.max(shape[axis], 1);
  }
  return strides;
}

export interface TaskSpace {
  /** Slowest axis first, as a row-major loop nest would run. */
  readonly shape: readonly number[];
  /** Per operand, its strides along those axes. */
  readonly strides: readonly (readonly number[])[];
}

/**
 * Merges what can be merged (see the file comment): `shape` and every operand's
 * `strides` (all present now) become a task space of the smallest rank that still
 * addresses each operand's elements through one stride per axis.
 */
export function coalesce(
  shape: readonly number[],
  strides: readonly (readonly number[])[],
  perm: readonly number[],
): TaskSpace {
  // axes fastest first, each with its size and every operand's stride
  const axes: { size: number; strides: number[] }[] = [];
  for (const axis of perm) {
    if (shape[axis] === 1) continue;
    const next = { size: shape[axis], strides: strides.map((s) => s[axis]) };
    const inner = axes[axes.length - 1];
    if (inner && inner.strides.every((s, k) => s * inner.size === next.strides[k])) {
      inner.size *= next.size;
    } else {
      axes.push(next);
    }
  }
  axes.reverse();
  return { shape: axes.map((a) => a.size), strides: strides.map((_, k) => axes.map((a) => a.strides[k])) };
}
