/**
 * Plain-JS references for the algorithm library's tests (numpy's meaning): row-major
 * multi-indices, reductions with keepdims, transposes, cumulative scans, rolls, matrix
 * products. Deliberately naive: one loop per element, nothing shared with the code tested.
 */

export const sizeOf = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** The multi-index of flat position `f` in `shape`. */
export function unflatten(f: number, shape: readonly number[]): number[] {
  const idx: number[] = [];
  for (let k = shape.length - 1; k >= 0; k--) {
    idx[k] = f % shape[k];
    f = Math.floor(f / shape[k]);
  }
  return idx;
}

export const flatten = (idx: readonly number[], shape: readonly number[]) =>
  idx.reduce((acc, v, k) => acc * shape[k] + v, 0);

/** numpy's reduce(..., axis=axes, keepdims=True) with `op` from `empty`. */
export function reduceRef(
  data: ArrayLike<number>,
  shape: readonly number[],
  axes: readonly number[],
  op: (a: number, b: number) => number,
  empty: number,
): number[] {
  const outShape = shape.map((n, k) => (axes.includes(k) ? 1 : n));
  const out = new Array(sizeOf(outShape)).fill(empty);
  for (let f = 0; f < data.length; f++) {
    const idx = unflatten(f, shape).map((v, k) => (axes.includes(k) ? 0 : v));
    const o = flatten(idx, outShape);
    out[o] = op(out[o], data[f]);
  }
  return out;
}

/** numpy.transpose(data, perm). */
export function transposeRef(data: ArrayLike<number>, shape: readonly number[], perm: readonly number[]): number[] {
  const outShape = perm.map((a) => shape[a]);
  const out = new Array(data.length);
  for (let f = 0; f < data.length; f++) {
    const idx = unflatten(f, shape);
    out[
      flatten(
        perm.map((a) => idx[a]),
        outShape,
      )
    ] = data[f];
  }
  return out;
}

/** A scan along `axis` (inclusive, or exclusive: the empty value first). */
export function scanRef(
  data: ArrayLike<number>,
  shape: readonly number[],
  axis: number,
  op: (a: number, b: number) => number,
  empty: number,
  exclusive: boolean,
): number[] {
  const out = new Array(data.length);
  const inner = sizeOf(shape.slice(axis + 1));
  const n = shape[axis];
  const outer = sizeOf(shape.slice(0, axis));
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      let acc = empty;
      for (let k = 0; k < n; k++) {
        const f = (o * n + k) * inner + i;
        if (exclusive) {
          out[f] = acc;
          acc = op(acc, data[f]);
        } else {
          acc = op(acc, data[f]);
          out[f] = acc;
        }
      }
    }
  }
  return out;
}

/** A scan over several axes (Scan's meaning): the axes made innermost in their order, flattened, scanned, and put back. */
export function scanAlongAxes(
  data: ArrayLike<number>,
  shape: readonly number[],
  axes: readonly number[],
  op: (a: number, b: number) => number,
  empty: number,
  exclusive: boolean,
): number[] {
  const kept = shape.map((_, k) => k).filter((k) => !axes.includes(k));
  const perm = [...kept, ...axes];
  const moved = transposeRef(data, shape, perm);
  const scanned = scanRef(
    moved,
    [sizeOf(kept.map((k) => shape[k])), sizeOf(axes.map((k) => shape[k]))],
    1,
    op,
    empty,
    exclusive,
  );
  return transposeRef(
    scanned,
    perm.map((k) => shape[k]),
    perm.map((_, k) => perm.indexOf(k)),
  );
}

/** Small integers as float32 or int32 data: sums of up to 10^6 of them stay exact in both. */
export function testIntegers<T extends Float32Array | Int32Array>(
  Ctor: { new (n: number): T },
  n: number,
  seed = 1,
): T {
  const out = new Ctor(n);
  let s = seed >>> 0 || 1;
  for (let k = 0; k < n; k++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    out[k] = ((s >>> 24) % 7) - 3;
  }
  return out;
}
