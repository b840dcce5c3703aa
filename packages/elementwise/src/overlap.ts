/**
 * Memory overlap between what a pointwise call reads and writes, judged as PyTorch
 * judges it (aten's MemoryOverlap): an output may be an input exactly (in-place),
 * but not share some of its elements with an input, nor hold one element twice.
 * Where the answer would take more than comparing ranges (views with gaps), PyTorch
 * says "too hard" and lets the call go ahead, and so do we.
 */
import { LoomError } from '@loom/core';
import { extent, type Tensor } from './tensor.ts';

export type Overlap = 'none' | 'full' | 'partial' | 'too-hard';

/** Whether the elements fill a block of memory with no gaps and no repeats, in some order of axes. */
export function isNonOverlappingAndDense(t: Tensor): boolean {
  const axes = t.shape.map((size, d) => ({ size, stride: Math.abs(t.strides[d]) })).filter((a) => a.size !== 1);
  axes.sort((a, b) => a.stride - b.stride);
  let expected = 1;
  for (const a of axes) {
    if (a.stride !== expected) return false;
    expected *= a.size;
  }
  return true;
}

/** Whether two views share memory: exactly the same elements in the same places, some, none, or unknown. */
export function overlapOf(a: Tensor, b: Tensor): Overlap {
  if (a === b) return 'full';
  if (a.storage !== b.storage || a.numel === 0 || b.numel === 0) return 'none';
  if (!isNonOverlappingAndDense(a) || !isNonOverlappingAndDense(b)) return 'too-hard';
  const same =
    a.offset === b.offset && a.dtype === b.dtype && sameList(a.shape, b.shape) && sameList(a.strides, b.strides);
  if (same) return 'full';
  const [aLo, aHi] = extent(a);
  const [bLo, bHi] = extent(b);
  return aLo <= bHi && bLo <= aHi ? 'partial' : 'none';
}

/** Whether some element of `t` is stored in the same place as another one (a broadcast axis). */
export function internalOverlap(t: Tensor): 'yes' | 'no' | 'too-hard' {
  if (isNonOverlappingAndDense(t)) return 'no';
  if (t.shape.some((size, d) => size > 1 && t.strides[d] === 0)) return 'yes';
  return 'too-hard';
}

/** PyTorch's checks before writing `output`: no element twice, no partial overlap with an input. */
export function checkWritable(output: Tensor, name: string, inputs: readonly { tensor: Tensor; name: string }[]): void {
  if (internalOverlap(output) === 'yes') {
    throw new LoomError(
      `unsupported operation: more than one element of the written-to tensor ${name} refers to a single memory location ` +
        `(shape [${output.shape.join(', ')}], strides [${output.strides.join(', ')}]); clone it before performing the operation`,
    );
  }
  for (const input of inputs) {
    if (overlapOf(output, input.tensor) === 'partial') {
      throw new LoomError(
        `unsupported operation: some elements of the input tensor ${input.name} and the written-to tensor ${name} refer to a single memory location; ` +
          'clone the input before performing the operation',
      );
    }
  }
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k]);
}
