/**
 * Test data and checks of the Reikna ports, for every dtype they use, complex ones included:
 * Reikna's `get_test_array` (integers in [0, 100), floats in [0, 1), a complex value's parts
 * each so; deterministic here), the elements as plain JS values (a number, a bigint for 64-bit
 * integers, a pair [re, im] for a complex), their host arrays (a complex array's parts
 * interleaved), the arithmetic of the references in doubles, and `diff_is_negligible`.
 */
import * as assert from 'uvu/assert';
import { hostArrayConstructor, isComplex, type ComplexScalar, type DType, type HostArray } from '@loom/core';
import { sizeOf } from './ndarray.ts';

/** A complex value, its parts. */
export type C = readonly [number, number];
/** One element as the references compute it. */
export type Elem = number | bigint | C;

const is64 = (dtype: DType) => dtype === 'int64' || dtype === 'uint64';
const isInt = (dtype: DType) => /^u?int/.test(dtype);

/** A deterministic stream of numbers in [0, 1). */
function uniform(seed: number): () => number {
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Reikna's `get_test_array(n, dtype, high=...)`: `n` elements, integers in [0, high), floats in [0, high). */
export function testValues(dtype: DType, n: number, seed: number, high?: number): Elem[] {
  const next = uniform(seed);
  const real = (): number => {
    if (isInt(dtype)) return Math.floor(next() * (high ?? 100));
    const x = next() * (high ?? 1);
    return dtype === 'float32' || dtype === 'complex64' ? Math.fround(x) : x;
  };
  return Array.from({ length: n }, (): Elem => {
    if (isComplex(dtype)) return [real(), real()];
    const x = real();
    return is64(dtype) ? BigInt(x) : x;
  });
}

/** The host array of `values` for `dtype` (a complex one's parts interleaved). */
export function toHost(dtype: DType, values: readonly Elem[]): HostArray {
  const Ctor = hostArrayConstructor(dtype);
  const flat = values.flatMap((v) => (Array.isArray(v) ? [...(v as C)] : [v]));
  return new Ctor(flat.map((v) => (is64(dtype) ? BigInt(v as number | bigint) : Number(v))) as never) as HostArray;
}

/** The elements of a host array of `dtype`. */
export function fromHost(dtype: DType, host: ArrayLike<number | bigint>): Elem[] {
  if (!isComplex(dtype)) return Array.from(host);
  return Array.from({ length: host.length / 2 }, (_, k) => [Number(host[2 * k]), Number(host[2 * k + 1])] as const);
}

/** An element as a scalar argument: a complex one as `{ re, im }`. */
export function scalarArgument(value: Elem): number | bigint | ComplexScalar {
  return Array.isArray(value) ? { re: (value as C)[0], im: (value as C)[1] } : (value as number | bigint);
}

const pair = (v: Elem): C => (Array.isArray(v) ? (v as C) : [Number(v), 0]);
const bothBig = (a: Elem, b: Elem) => typeof a === 'bigint' && typeof b === 'bigint';
const anyComplex = (a: Elem, b: Elem) => Array.isArray(a) || Array.isArray(b);

/** a + b, in doubles (bigints exactly; a complex one if either is). */
export function add(a: Elem, b: Elem): Elem {
  if (bothBig(a, b)) return BigInt.asIntN(64, (a as bigint) + (b as bigint));
  if (!anyComplex(a, b)) return Number(a) + Number(b);
  const [x, y] = [pair(a), pair(b)];
  return [x[0] + y[0], x[1] + y[1]];
}

/** a * b, likewise. */
export function mul(a: Elem, b: Elem): Elem {
  if (bothBig(a, b)) return BigInt.asIntN(64, (a as bigint) * (b as bigint));
  if (!anyComplex(a, b)) return Number(a) * Number(b);
  const [[p, q], [r, s]] = [pair(a), pair(b)];
  return [p * r - q * s, p * s + q * r];
}

/** a / b (floats and complex values). */
export function div(a: Elem, b: Elem): Elem {
  if (!anyComplex(a, b)) return Number(a) / Number(b);
  const [[p, q], [r, s]] = [pair(a), pair(b)];
  const m = r * r + s * s;
  return [(p * r + q * s) / m, (q * r - p * s) / m];
}

/** |a|: the modulus of a complex value. */
export function abs(a: Elem): number {
  return Array.isArray(a) ? Math.hypot(...(a as C)) : Math.abs(Number(a));
}

/**
 * Reikna's `diff_is_negligible`: integers equal, floats close (rtol 1e-5, atol 1e-8 for single
 * precision; 1e-11 both for double), as numpy.isclose compares them (complex values by the
 * modulus of their difference).
 */
export function assertNegligible(
  actual: ArrayLike<number | bigint>,
  expected: readonly Elem[],
  dtype: DType,
  what: string,
  tolerance?: { rtol?: number; atol?: number },
): void {
  const got = fromHost(dtype, actual);
  assert.is(got.length, expected.length, `${what}: element count`);
  const double = dtype === 'float64' || dtype === 'complex128';
  const rtol = tolerance?.rtol ?? (double ? 1e-11 : 1e-5);
  const atol = tolerance?.atol ?? (double ? 1e-11 : 1e-8);
  // numpy.isclose: |actual - expected| <= atol + rtol * |expected|, a complex difference by its modulus
  const close = (x: Elem, e: Elem) => abs(add(x, mul(e, -1))) <= atol + rtol * abs(e);
  got.forEach((g, k) => {
    const e = expected[k];
    const ok = isInt(dtype) ? BigInt(g as number | bigint) === BigInt(e as number | bigint) : close(g, e);
    if (!ok) assert.unreachable(`${what}: element ${k} is ${String(g)}, expected ${String(e)}`);
  });
}

/** Reikna's ref_dot: numpy.dot per batch, a batch of 1 going with every batch of the other operand. */
export function matmulRef(
  a: readonly Elem[],
  aShape: readonly number[],
  b: readonly Elem[],
  bShape: readonly number[],
  ta = false,
  tb = false,
): Elem[] {
  const [m, k] = ta ? [aShape.at(-1)!, aShape.at(-2)!] : [aShape.at(-2)!, aShape.at(-1)!];
  const n = tb ? bShape.at(-2)! : bShape.at(-1)!;
  const ba = sizeOf(aShape.slice(0, -2));
  const bb = sizeOf(bShape.slice(0, -2));
  const batch = Math.max(ba, bb);
  const out: Elem[] = [];
  for (let t = 0; t < batch; t++) {
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s: Elem = 0;
        for (let q = 0; q < k; q++)
          s = add(
            s,
            mul(
              a[(ba > 1 ? t : 0) * m * k + (ta ? q * m + i : i * k + q)],
              b[(bb > 1 ? t : 0) * k * n + (tb ? j * k + q : q * n + j)],
            ),
          );
        out.push(s);
      }
    }
  }
  return out;
}
