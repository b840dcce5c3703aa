/**
 * Broadcasting, as numpy and PyTorch do it: shapes are aligned at their last axis,
 * and along each axis the sizes must agree or be 1 (a missing leading axis counts as
 * 1). An operand is then read through strides of the broadcast shape, 0 along every
 * axis it is repeated on — no data moves.
 */
import { LoomError } from '@loom/core';
import type { Layout } from './host.ts';

/** The broadcast shape of `shapes`; the error names the shapes that disagree and where. */
export function broadcastShapes(shapes: readonly (readonly number[])[], names?: readonly string[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  const owner = new Array<number>(rank).fill(-1);
  shapes.forEach((shape, k) => {
    shape.forEach((size, i) => {
      const axis = rank - shape.length + i;
      if (size === out[axis] || size === 1) return;
      if (out[axis] === 1) {
        out[axis] = size;
        owner[axis] = k;
        return;
      }
      const j = owner[axis];
      const name = (n: number) => names?.[n] ?? `operand ${n}`;
      throw new LoomError(
        `shapes cannot be broadcast together: ${name(j)} has shape [${shapes[j].join(', ')}] and ${name(k)} has shape [${shape.join(', ')}]; ` +
          `sizes ${out[axis]} and ${size} differ at axis ${axis - rank} (counted from the end), and neither is 1`,
      );
    });
  });
  return out;
}

/** Strides that read `layout` as the broadcast `shape`: 0 on new and repeated axes. */
export function broadcastStrides(layout: Layout, shape: readonly number[]): number[] {
  const lead = shape.length - layout.shape.length;
  return shape.map((size, axis) => {
    const own = axis - lead;
    if (own < 0) return 0;
    return layout.shape[own] === 1 && size !== 1 ? 0 : layout.strides[own];
  });
}
