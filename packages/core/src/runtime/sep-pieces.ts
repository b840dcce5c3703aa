/**
 * The host side of a `sep` axis: the caller passes one row-major array, and each index
 * along the sep axis is a device array of its own (a piece), laid out as the piece's own
 * dim tags say (`f,f,sep`: each piece column-major). `piecesOf` gathers the pieces from
 * the caller's array, `scatterPieces` puts them back.
 */
import { hostArrayConstructor, type DType, type HostArray } from '../dtypes.ts';
import { int } from '../expr/nodes.ts';
import type { KernelArg } from '../kernel/model.ts';
import { requiredLength, stridesOf } from '../kernel/strides.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';

/** Where the pieces of a sep array are: the axis, and each piece's element strides. */
export interface SepLayout {
  readonly axis: number;
  /** The strides of a piece (the array's axes but the sep one), in elements. */
  readonly pieceStrides: readonly number[];
}

/** Each piece's strides, from the array's dim tags without the sep axis. */
export function pieceStrides(
  arg: KernelArg,
  shape: readonly number[],
  axis: number,
  values: ReadonlyMap<string, number | bigint>,
): number[] {
  const tags = arg.dimTags!.filter((_, k) => k !== axis);
  const what = `the strides of the pieces of '${arg.name}'`;
  const env = valuesEnv(values, what);
  return stridesOf(
    shape.filter((_, k) => k !== axis).map((n) => int(n)),
    tags,
  ).map((s) => evaluateInt(s, env, what));
}

/** The pieces of the caller's row-major array (zeros where nothing was given). */
export function piecesOf(dtype: DType, shape: readonly number[], layout: SepLayout, given?: HostArray): HostArray[] {
  const Ctor = hostArrayConstructor(dtype);
  const inner = shape.filter((_, k) => k !== layout.axis);
  const length = requiredLength(inner, layout.pieceStrides);
  const pieces = Array.from({ length: shape[layout.axis] }, () => new Ctor(length) as HostArray);
  if (given)
    forEachElement(
      shape,
      layout,
      (flat, piece, at) => ((pieces[piece] as Float64Array)[at] = (given as Float64Array)[flat]),
    );
  return pieces;
}

/** Writes the pieces back into the caller's row-major array. */
export function scatterPieces(
  target: HostArray,
  shape: readonly number[],
  layout: SepLayout,
  pieces: readonly HostArray[],
): void {
  forEachElement(
    shape,
    layout,
    (flat, piece, at) => ((target as Float64Array)[flat] = (pieces[piece] as Float64Array)[at]),
  );
}

/** Calls `f` with each element's row-major offset, its piece, and its offset in the piece. */
function forEachElement(
  shape: readonly number[],
  layout: SepLayout,
  f: (flat: number, piece: number, at: number) => void,
): void {
  const total = shape.reduce((x, y) => x * y, 1);
  const index = new Array<number>(shape.length).fill(0);
  for (let flat = 0; flat < total; flat++) {
    let at = 0;
    let s = 0;
    for (let k = 0; k < shape.length; k++) if (k !== layout.axis) at += index[k] * layout.pieceStrides[s++];
    f(flat, index[layout.axis], at);
    // the next row-major index
    for (let k = shape.length - 1; k >= 0 && ++index[k] === shape[k]; k--) index[k] = 0;
  }
}
