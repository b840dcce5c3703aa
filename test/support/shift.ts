/**
 * Plain-JS references for shifts of arrays (numpy's meaning): `numpy.roll` along one axis and
 * `numpy.fft.fftshift` / `ifftshift` over a set of axes. `lanes` numbers per element: 2 for a
 * complex array held as its parts, interleaved (both parts move together).
 */
import { flatten, sizeOf, unflatten } from './ndarray.ts';

/** Moves each element of `a` (shape `shape`) to the index `to(index)` gives. */
function moved(
  a: ArrayLike<number>,
  shape: readonly number[],
  lanes: number,
  to: (idx: number[]) => number[],
): number[] {
  const out = new Array<number>(a.length);
  for (let f = 0; f < sizeOf(shape); f++) {
    const t = flatten(to(unflatten(f, shape)), shape);
    for (let l = 0; l < lanes; l++) out[t * lanes + l] = a[f * lanes + l];
  }
  return out;
}

const mod = (x: number, n: number) => ((x % n) + n) % n;

/** numpy.roll(a, shift, axis). */
export function rollRef(
  a: ArrayLike<number>,
  shape: readonly number[],
  shift: number,
  axis: number,
  lanes = 1,
): number[] {
  const ax = axis < 0 ? axis + shape.length : axis;
  return moved(a, shape, lanes, (idx) => idx.map((v, k) => (k === ax ? mod(v + shift, shape[k]) : v)));
}

/**
 * numpy.fft.fftshift(a, axes) (numpy.roll by floor(n/2) along each axis), or with `inverse`
 * numpy.fft.ifftshift (by -floor(n/2)); `axes` undefined: all of them.
 */
export function fftshiftRef(
  a: ArrayLike<number>,
  shape: readonly number[],
  axes: readonly number[] | undefined,
  inverse: boolean,
  lanes = 1,
): number[] {
  const along = (axes ?? shape.map((_, k) => k)).map((k) => (k < 0 ? k + shape.length : k));
  return moved(a, shape, lanes, (idx) =>
    idx.map((v, k) => (along.includes(k) ? mod(v + (inverse ? -1 : 1) * Math.floor(shape[k] / 2), shape[k]) : v)),
  );
}
