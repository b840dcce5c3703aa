/** loopy's `get_grid_size_upper_bounds`: the launch sizes of a kernel, in its parameters. */
import type { Expr } from '../expr/nodes.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { preprocess } from '../preprocess/pipeline.ts';
import { findGrid } from './hardware.ts';

export interface GridSizes {
  /** Number of work-groups per axis (expressions in the parameters). */
  readonly groups: readonly Expr[];
  /** Work-group size per axis (expressions in the parameters where they are not constants). */
  readonly local: readonly Expr[];
}

/** A kernel's launch sizes per axis: its work-group counts, in its parameters, and its work-group size (loopy's `get_grid_size_upper_bounds`). */
export function getGridSizeUpperBounds(knl: LoopKernel): GridSizes {
  const grid = findGrid(knl.args.every((a) => a.dtype !== undefined) ? preprocess(knl) : knl);
  return { groups: grid.groupCount, local: grid.localSize };
}
