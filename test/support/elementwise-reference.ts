/**
 * Plain-JS references for the elementwise tests: PyTorch's semantics written out
 * element by element — broadcasting over row-major host arrays, and conversion of a
 * number into a dtype (integers wrap, float32, float16 and bfloat16 round, bools test != 0).
 */
import { bfloat16Value, float16Value, roundToBfloat16, roundToFloat16, type TensorDType } from '@loom/elementwise';

/** Row-major multi-indices of `shape`, in order. */
export function* indices(shape: readonly number[]): Generator<number[]> {
  const n = shape.reduce((a, b) => a * b, 1);
  const index = shape.map(() => 0);
  for (let k = 0; k < n; k++) {
    yield [...index];
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

/** numpy's broadcast shape, written independently of the package's. */
export function broadcastShape(shapes: readonly (readonly number[])[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  return Array.from({ length: rank }, (_, axis) => {
    let size = 1;
    for (const s of shapes) {
      const own = s[axis - (rank - s.length)] ?? 1;
      if (own !== 1) {
        if (size !== 1 && size !== own) throw new Error(`not broadcastable: ${JSON.stringify(shapes)}`);
        size = own;
      }
    }
    return size;
  });
}

export interface HostOperand {
  /** Row-major values (numbers; complex operands as [re, im] pairs). */
  readonly values: ArrayLike<number> | readonly (readonly [number, number])[];
  readonly shape: readonly number[];
}

/** `fn` applied elementwise over the broadcast of `operands` (scalars are shape []). */
export function broadcastApply<T>(
  operands: readonly HostOperand[],
  fn: (...xs: never[]) => T,
): { shape: number[]; values: T[] } {
  const shape = broadcastShape(operands.map((o) => o.shape));
  const values: T[] = [];
  for (const index of indices(shape)) {
    const args = operands.map((o) => {
      let flat = 0;
      o.shape.forEach((size, d) => {
        const i = size === 1 ? 0 : index[d + shape.length - o.shape.length];
        flat = flat * size + i;
      });
      return (o.values as ArrayLike<unknown>)[flat];
    });
    values.push((fn as (...xs: unknown[]) => T)(...args));
  }
  return { shape, values };
}

/** `x` converted to `dtype` as a C cast (and PyTorch's .to()) converts it. */
export function toDType(x: number | boolean, dtype: TensorDType): number {
  const v = Number(x);
  switch (dtype) {
    case 'bool':
      return v !== 0 ? 1 : 0;
    case 'int8':
      return Int8Array.of(Math.trunc(v))[0];
    case 'uint8':
      return Uint8Array.of(Math.trunc(v))[0];
    case 'int16':
      return Int16Array.of(Math.trunc(v))[0];
    case 'int32':
      return Int32Array.of(Math.trunc(v))[0];
    case 'uint32':
      return Uint32Array.of(Math.trunc(v))[0];
    case 'int64':
      return Math.trunc(v);
    case 'float16':
      return roundToFloat16(v);
    case 'bfloat16':
      return roundToBfloat16(v);
    case 'float32':
    case 'complex64':
      return Math.fround(v);
    default:
      return v;
  }
}

/** Host arrays as plain numbers (bigints converted; float16 and bfloat16 bits decoded). */
export function numbers(a: ArrayLike<number | bigint>, dtype?: TensorDType): number[] {
  return Array.from(a as ArrayLike<number | bigint>, (x) =>
    dtype === 'float16' ? float16Value(Number(x)) : dtype === 'bfloat16' ? bfloat16Value(Number(x)) : Number(x),
  );
}

/** Deterministic pseudo-random values for a dtype: small integers, bools, floats in [-2, 2). */
export function sample(dtype: TensorDType, n: number, seed = 7): number[] {
  let s = (seed * 2654435761) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  return Array.from({ length: n }, () => {
    const u = next();
    switch (dtype) {
      case 'bool':
        return u < 0.5 ? 0 : 1;
      case 'uint8':
        return Math.floor(u * 200);
      case 'uint32':
        // large enough that a sum wraps past 2^32 now and then
        return Math.floor(u * 2 ** 32);
      case 'int8':
      case 'int16':
      case 'int32':
      case 'int64':
        return Math.floor(u * 100) - 50;
      case 'float16':
        return roundToFloat16(u * 4 - 2);
      case 'bfloat16':
        return roundToBfloat16(u * 4 - 2);
      case 'float32':
      case 'complex64':
        return Math.fround(u * 4 - 2);
      default:
        return u * 4 - 2;
    }
  });
}

export function assertNumbers(
  actual: readonly number[],
  expected: readonly number[],
  what: string,
  tolerance = 0,
): void {
  if (actual.length !== expected.length)
    throw new Error(`${what}: ${actual.length} elements, expected ${expected.length}`);
  expected.forEach((e, k) => {
    const a = actual[k];
    const ok = Number.isNaN(e) ? Number.isNaN(a) : a === e || Math.abs(a - e) <= tolerance * Math.max(1, Math.abs(e));
    if (!ok)
      throw new Error(
        `${what}: element ${k} is ${a}, expected ${e}\n  actual   [${actual.slice(0, 24).join(', ')}]\n  expected [${expected.slice(0, 24).join(', ')}]`,
      );
  });
}
