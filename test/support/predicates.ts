/**
 * Associative predicates for reduce and scan tests, each with its plain-JS operation and a
 * way to draw int32 inputs that make the result depend on what the predicate is sensitive to.
 * Three are not commutative (a result combined out of order differs), four are (sum,
 * product, max, min: the library's own, which take the faster paths that may reorder).
 */
import {
  predicate,
  predicateMax,
  predicateMin,
  predicateProduct,
  predicateSum,
  type Predicate,
} from '@loom/computation';

export interface TestPredicate {
  readonly name: string;
  readonly predicate: Predicate;
  /** The same operation in plain JS, on int32 values. */
  readonly op: (a: number, b: number) => number;
  /** `n` int32 inputs from a random source of [0, 1) numbers. */
  draw(n: number, random: () => number): Int32Array;
}

// --- 2x2 matrices over the integers mod 3, each packed in one int (base 3: e00 + 3 e01 + 9 e10 + 27 e11)

const digit = (x: string, k: number) => `((${x}) // ${3 ** k}) % 3`;
/** Entry (i, j) of the product: sum over t of a[i, t] * b[t, j], mod 3. */
const entry = (i: number, j: number) =>
  `((${digit('a', 2 * i)} * ${digit('b', j)} + ${digit('a', 2 * i + 1)} * ${digit('b', 2 + j)}) % 3)`;
const MATRIX_PRODUCT = `${entry(0, 0)} + 3 * ${entry(0, 1)} + 9 * ${entry(1, 0)} + 27 * ${entry(1, 1)}`;

function matrixProduct(a: number, b: number): number {
  const d = (x: number, k: number) => Math.floor(x / 3 ** k) % 3;
  const e = (i: number, j: number) => (d(a, 2 * i) * d(b, j) + d(a, 2 * i + 1) * d(b, 2 + j)) % 3;
  return e(0, 0) + 3 * e(0, 1) + 9 * e(1, 0) + 27 * e(1, 1);
}

/** The 48 invertible matrices (GL(2, 3)): their products never collapse to a constant, so every order error shows. */
const INVERTIBLE = Array.from({ length: 81 }, (_, m) => m).filter((m) => {
  const d = (k: number) => Math.floor(m / 3 ** k) % 3;
  return (d(0) * d(3) - d(1) * d(2) + 9) % 3 !== 0;
});

/** Mostly zeros, so that the first or last non-zero value sits anywhere in a row. */
function sparse(n: number, random: () => number): Int32Array {
  const density = random() < 0.5 ? 0.002 : 0.05;
  return Int32Array.from({ length: n }, () => (random() < density ? 1 + Math.floor(random() * 1000) : 0));
}
const small = (n: number, random: () => number, below: number, from = 0) =>
  Int32Array.from({ length: n }, () => from + Math.floor(random() * below));

export const FIRST_NON_ZERO: TestPredicate = {
  name: 'first non-zero',
  predicate: predicate('if(a != 0, a, b)', 0),
  op: (a, b) => (a !== 0 ? a : b),
  draw: sparse,
};
export const LAST_NON_ZERO: TestPredicate = {
  name: 'last non-zero',
  predicate: predicate('if(b != 0, b, a)', 0),
  op: (a, b) => (b !== 0 ? b : a),
  draw: sparse,
};
export const MATRIX_PRODUCT_MOD3: TestPredicate = {
  name: '2x2 matrix product mod 3',
  predicate: predicate(MATRIX_PRODUCT, 1 + 27),
  op: matrixProduct,
  draw: (n, random) => Int32Array.from({ length: n }, () => INVERTIBLE[Math.floor(random() * INVERTIBLE.length)]),
};

/** Associative, not commutative: the order of the elements must be kept. */
export const NON_COMMUTATIVE: readonly TestPredicate[] = [FIRST_NON_ZERO, LAST_NON_ZERO, MATRIX_PRODUCT_MOD3];

/** The library's commutative predicates (int32 inputs small enough that every result is exact). */
export const COMMUTATIVE: readonly TestPredicate[] = [
  { name: 'sum', predicate: predicateSum('int32'), op: (a, b) => (a + b) | 0, draw: (n, r) => small(n, r, 201, -100) },
  // factors of 1 and -1: the product stays exact at any length
  {
    name: 'product',
    predicate: predicateProduct('int32'),
    op: (a, b) => Math.imul(a, b),
    draw: (n, r) => Int32Array.from({ length: n }, () => (r() < 0.5 ? -1 : 1)),
  },
  { name: 'max', predicate: predicateMax('int32'), op: Math.max, draw: (n, r) => small(n, r, 2_000_001, -1_000_000) },
  { name: 'min', predicate: predicateMin('int32'), op: Math.min, draw: (n, r) => small(n, r, 2_000_001, -1_000_000) },
];

/** A deterministic source of [0, 1) numbers (xorshift32), so that a failure reproduces. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}
