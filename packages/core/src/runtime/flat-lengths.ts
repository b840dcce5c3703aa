/**
 * How long a host array passed flat (a TypedArray, or `{ data, shape }` without strides)
 * may be for an array argument. Such an array is the argument's buffer, laid out as the
 * kernel lays the argument out: row-major and dense by default, so exactly as long as
 * its element count. A padded layout (`addPadding`, a `stride:EXPR` tag, a split axis
 * whose groups start on aligned lines) leaves gaps, as loopy's host arrays have the
 * argument's padded strides: the buffer then holds every element the layout reaches
 * (loopy allocates `1 + sum(stride*(extent-1))` for an output) and at most the whole
 * padded block (its last row's padding included, what a caller allocating
 * `extent0 * stride0` elements passes). An offset moves the whole layout into the buffer.
 */
import { freeVariables } from '../expr/index.ts';
import type { KernelArg } from '../kernel/model.ts';
import { requiredLength, stridesOf } from '../kernel/strides.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';

/** The shortest and the longest flat array the argument's layout takes (equal when it is dense from the start). */
export interface FlatLengths {
  readonly least: number;
  readonly most: number;
  /** The layout's strides, in elements, when it has tags or an offset (for messages). */
  readonly strides?: readonly number[];
  readonly offset?: number;
}

/**
 * The lengths a flat host array for `arg` may have at these parameter values (`shape`
 * evaluated). A stride or offset the array passed decides (`stride:auto`, `offset: 'auto'`,
 * a value argument not known yet) is what a flat array has: row-major from element 0.
 */
export function flatLengths(
  arg: KernelArg,
  shape: readonly number[],
  values: ReadonlyMap<string, number | bigint>,
): FlatLengths {
  const count = shape.reduce((a, b) => a * b, 1);
  const dense = { least: count, most: count };
  if (!arg.shape || (!arg.dimTags && !arg.offset) || arg.dimTags?.some((t) => t.kind === 'sep')) return dense;
  const known = (e: Parameters<typeof freeVariables>[0]) => [...freeVariables(e)].every((n) => values.has(n));
  const strideExprs = stridesOf(arg.shape, arg.dimTags);
  if (!strideExprs.every(known)) return dense;
  const what = `the layout of '${arg.name}'`;
  const env = valuesEnv(values, what);
  const strides = strideExprs.map((s) => evaluateInt(s, env, what));
  const offset = arg.offset && known(arg.offset) ? evaluateInt(arg.offset, env, what) : 0;
  const reach = requiredLength(shape, strides);
  if (reach === 0) return { least: 0, most: 0, strides, offset };
  // the padded block: the outermost axis' extent times its stride, when that is longer than the reach
  const block = Math.max(reach, ...shape.map((n, axis) => n * strides[axis]));
  return { least: offset + reach, most: offset + block, strides, offset };
}
