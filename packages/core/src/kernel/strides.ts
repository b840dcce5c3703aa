/**
 * Strides: where element `a[i, j, ...]` of an array lies in linear memory.
 *
 * By default an array is row-major (C order). `tagArrayAxes` can give each axis a
 * data axis tag instead (`f`, `N0`–`N9`, `stride:EXPR`, `sep`, `vec`, see `DimTag` in
 * model.ts); this file turns shapes and tags into strides, prints the tags the way
 * loopy's kernel view does, and says how long a buffer a layout needs.
 */
import { LoomError } from '../errors.ts';
import { add, int, mul, sub, type Expr } from '../expr/nodes.ts';
import { exprEquals, printExpr, simplify } from '../expr/index.ts';
import type { DimTag } from './model.ts';

export function rowMajorStrides(shape: readonly Expr[]): Expr[] {
  const strides: Expr[] = new Array(shape.length);
  let stride: Expr = int(1);
  for (let axis = shape.length - 1; axis >= 0; axis--) {
    strides[axis] = stride;
    stride = simplify(mul(shape[axis], stride));
  }
  return strides;
}

/** The number of elements, as an expression. */
export function elementCount(shape: readonly Expr[]): Expr {
  return shape.reduce<Expr>((acc, s) => simplify(mul(acc, s)), int(1));
}

/** The row-major tags of an array of `rank` axes: `c` on every axis, i.e. N(rank-1) ... N0. */
export function rowMajorDimTags(rank: number): DimTag[] {
  return Array.from({ length: rank }, (_, axis) => ({ kind: 'nested', level: rank - 1 - axis }));
}

/**
 * One axis of a layout as loopy describes it: a stride (with its nesting level when it
 * was computed from one), a separate-array axis, or the lanes of a vector.
 */
export type AxisLayout =
  | { readonly kind: 'stride'; readonly stride: Expr; readonly level?: number }
  | { readonly kind: 'sep' }
  | { readonly kind: 'vec'; readonly length: number };

/**
 * The layout of each axis. Nested axes get strides from their levels: level 0 moves
 * fastest, and each next level's stride is the previous one's times that axis' length.
 * Strides here count elements of the array, or vectors when an axis is `vec` (loopy's
 * `c,c,vec` on shape (3, M, 4) is float4-based strides (M, 1)); `sep` and `vec` axes
 * take no part in the nesting.
 */
export function arrayLayout(shape: readonly Expr[], dimTags?: readonly DimTag[]): AxisLayout[] {
  const tags = dimTags ?? rowMajorDimTags(shape.length);
  if (tags.length !== shape.length) {
    throw new LoomError(
      `${tags.length} dim tags for an array with ${shape.length} axes (shape (${shape.map(printExpr).join(', ')}))`,
    );
  }
  const layout: AxisLayout[] = new Array(shape.length);
  const nested = tags
    .map((tag, axis) => ({ tag, axis }))
    .filter((x): x is { tag: Extract<DimTag, { kind: 'nested' }>; axis: number } => x.tag.kind === 'nested')
    .sort((a, b) => a.tag.level - b.tag.level);
  let stride: Expr = int(1);
  for (const { tag, axis } of nested) {
    layout[axis] = { kind: 'stride', stride, level: tag.level };
    stride = simplify(mul(shape[axis], stride)); // as rowMajorStrides does, so `c` prints the same
  }
  tags.forEach((tag, axis) => {
    if (tag.kind === 'stride') layout[axis] = { kind: 'stride', stride: tag.stride };
    else if (tag.kind === 'sep') layout[axis] = { kind: 'sep' };
    else if (tag.kind === 'vec') layout[axis] = { kind: 'vec', length: constantLength(shape[axis], axis, 'vec') };
  });
  return layout;
}

/**
 * Element strides of every axis, what flat indexing `a[i, j]` → `a[s0*i + s1*j]` uses;
 * row-major without tags. A `vec` axis is the fastest-moving one in memory (the lanes
 * of a vector are adjacent), so it gets stride 1 and the others are scaled by its
 * length: the same bytes a vectorizing code generator would read as `float4`s.
 * A `sep` axis has no stride (each index is its own array): asking is an error until
 * code generation supports separate arrays.
 */
export function stridesOf(shape: readonly Expr[], dimTags?: readonly DimTag[]): Expr[] {
  if (dimTags === undefined) return rowMajorStrides(shape);
  const layout = arrayLayout(shape, dimTags);
  const sepAxis = layout.findIndex((l) => l.kind === 'sep');
  if (sepAxis >= 0) {
    throw new LoomError(
      `axis ${sepAxis} is tagged 'sep' (one separate array per index); code generation does not support separate arrays yet`,
    );
  }
  const vec = layout.find((l): l is Extract<AxisLayout, { kind: 'vec' }> => l.kind === 'vec');
  const lanes = vec?.length ?? 1;
  return layout.map((l) =>
    l.kind === 'stride' ? (lanes === 1 ? l.stride : simplify(mul(int(lanes), l.stride), { integer: true })) : int(1),
  );
}

/**
 * The dim tags as loopy's kernel view prints them: `N1:stride:n, N0:stride:1` for a
 * row-major (n, n) array, `stride:EXPR` for a fixed stride, `sep`, `vec`.
 */
export function formatDimTags(shape: readonly Expr[], dimTags?: readonly DimTag[]): string {
  return arrayLayout(shape, dimTags)
    .map((l) =>
      l.kind === 'stride' ? `${l.level === undefined ? '' : `N${l.level}:`}stride:${printExpr(l.stride)}` : l.kind,
    )
    .join(', ');
}

/**
 * How many elements a buffer needs to hold every element of an array with these
 * (evaluated) extents and strides: the largest offset plus one. For a dense layout
 * (row-major, column-major, any nesting) that is the element count; padding (a
 * stride larger than the axes inside it need) makes it more. An array with an empty
 * axis needs nothing. Strides must not be negative (there is no base offset).
 */
export function requiredLength(shape: readonly number[], strides: readonly number[]): number {
  if (shape.length !== strides.length)
    throw new LoomError(`requiredLength: ${shape.length} extents but ${strides.length} strides`);
  if (shape.some((n) => n <= 0)) return 0;
  let last = 0;
  strides.forEach((s, axis) => {
    if (s < 0) throw new LoomError(`axis ${axis} has the negative stride ${s}; arrays start at offset 0`);
    last += (shape[axis] - 1) * s;
  });
  return last + 1;
}

/** `requiredLength` as an expression in the parameters (for extents that are at least 1). */
export function requiredLengthExpr(shape: readonly Expr[], strides: readonly Expr[]): Expr {
  // a dense row-major layout (the usual one) needs the product of its extents: n*n, as loopy prints it
  const dense = strides.every((s, axis) =>
    exprEquals(
      s,
      axis === strides.length - 1 ? int(1) : simplify(mul(shape[axis + 1], strides[axis + 1]), { integer: true }),
    ),
  );
  if (dense && shape.length) return simplify(mul(shape[0], strides[0]), { integer: true });
  const last = shape.reduce<Expr>((acc, n, axis) => add(acc, mul(sub(n, int(1)), strides[axis])), int(0));
  return simplify(add(last, int(1)), { integer: true });
}

function constantLength(extent: Expr, axis: number, tag: string): number {
  const e = simplify(extent, { integer: true });
  if (e.kind !== 'int')
    throw new LoomError(`axis ${axis} is tagged '${tag}', so its length must be a constant, not ${printExpr(extent)}`);
  return e.value;
}
