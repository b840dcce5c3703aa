/**
 * Random expressions as loopy's test_expression.py fuzzes its code generators with: sums,
 * products, differences and quotients of literals and variables (floats, complex values),
 * or of integers with `//` and `%` besides, each with its exact value worked out here in
 * JavaScript. A case is a list of such expressions, one output each, and the variables'
 * values, which the kernel assigns to temporaries before it evaluates them.
 *
 * Integer expressions keep every sub-expression inside int32 (loopy's bounds-checking
 * evaluation): the value is then exact in int32 and int64 code alike, whatever the order
 * of a product's partial results (wrapping arithmetic is a ring).
 */
import { Rng } from './differential/random.ts';

export type FuzzKind = 'int' | 'int_nonneg' | 'real' | 'complex';

/** A complex value; a real one has `im` 0. */
export interface Value {
  readonly re: number;
  readonly im: number;
}

/** One expression: its text in Loom's syntax and its value. */
export interface FuzzExpression {
  readonly text: string;
  /** Integers: a bigint (exact); floats and complex values: a Value. */
  readonly value: bigint | Value;
}

export interface FuzzCase {
  readonly expressions: readonly FuzzExpression[];
  /** Each variable's literal text and whether it is complex, in the order they are assigned. */
  readonly variables: ReadonlyMap<string, { readonly text: string; readonly complex: boolean }>;
}

class Discard extends Error {}

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

interface Node {
  readonly text: string;
  readonly value: bigint | Value;
}

/** Python's `//` and `%` on integers: the quotient rounded down, the remainder with the divisor's sign. */
const floorDiv = (a: bigint, b: bigint) => a / b - (a % b !== 0n && a < 0n !== b < 0n ? 1n : 0n);
const pyMod = (a: bigint, b: bigint) => a - b * floorDiv(a, b);

class Generator {
  private size = 0;
  readonly variables = new Map<string, { text: string; complex: boolean }>();

  constructor(
    private readonly rng: Rng,
    private readonly kind: FuzzKind,
    private readonly prefix: string,
  ) {}

  // --- integers ------------------------------------------------------------------------------

  private intLiteral(): bigint {
    const r = this.rng;
    if (this.kind === 'int_nonneg') return BigInt(r.int(1, 99));
    for (;;) {
      const z = r.int(-100, 99);
      if (z !== 0) return BigInt(z);
    }
  }

  private intLeaf(v: bigint): Node {
    return { text: v < 0n ? `(${v})` : `${v}`, value: v };
  }

  private checked(text: string, value: bigint): Node {
    if (value < INT32_MIN || value > INT32_MAX) throw new Discard();
    return { text, value };
  }

  intExpr(): Node {
    const r = this.rng;
    const v = this.size < 10 ? r.int(0, 799) : r.int(0, 999);
    this.size++;
    if (v < 10) return this.variable(this.intLiteral(), false);
    if (v < 200 && this.size < 40) {
      const terms = Array.from({ length: r.int(2, 4) }, () => this.intExpr());
      const product = r.chance(0.5);
      const value = terms.reduce(
        (acc, t) => (product ? acc * (t.value as bigint) : acc + (t.value as bigint)),
        product ? 1n : 0n,
      );
      return this.checked(`(${terms.map((t) => t.text).join(product ? ' * ' : ' + ')})`, value);
    }
    if (v < 600 && this.size < 40) {
      const floor = v < 400;
      const a = this.intExpr();
      const b = this.nonzeroIntExpr();
      const [x, y] = [a.value as bigint, b.value as bigint];
      return this.checked(`(${a.text} ${floor ? '//' : '%'} ${b.text})`, floor ? floorDiv(x, y) : pyMod(x, y));
    }
    if (v < 800 && this.kind !== 'int_nonneg' && this.size < 40) {
      const a = this.intExpr();
      const b = this.intExpr();
      return this.checked(`(${a.text} - ${b.text})`, (a.value as bigint) - (b.value as bigint));
    }
    return this.intLeaf(this.intLiteral());
  }

  private nonzeroIntExpr(): Node {
    for (;;) {
      const size = this.size;
      const known = new Set(this.variables.keys());
      const e = this.intExpr();
      if (e.value !== 0n) return e;
      // drawn again, as if the zero one had never been: its variables go too
      this.size = size;
      for (const name of [...this.variables.keys()]) if (!known.has(name)) this.variables.delete(name);
    }
  }

  // --- floats and complex values -------------------------------------------------------------

  private fpValue(): Value {
    const r = this.rng;
    const v = r.int(0, 2);
    if (v === 0) {
      for (;;) {
        const z = r.int(-1000, 999);
        if (z !== 0) return { re: z, im: 0 };
      }
    }
    const re = r.next() * 20 - 10;
    if (v === 1 || this.kind !== 'complex') return { re, im: 0 };
    return { re, im: r.next() * 20 - 10 };
  }

  private fpLiteral(v: Value): string {
    // a whole number is a float64 literal (`3.0d`): `3 / 2` would divide integers, and `3.0`,
    // which float32 holds exactly, would be computed in float32 (loopy's literal rule)
    const real = (x: number) => (Number.isInteger(x) ? `${x}.0d` : `${x}`);
    if (v.im === 0) return v.re < 0 ? `(${real(v.re)})` : real(v.re);
    return `(${real(v.re)} + ${real(v.im)}j)`;
  }

  fpExpr(): Node {
    const r = this.rng;
    const v = r.int(0, 1499);
    this.size++;
    if (v < 500 && this.size < 40) {
      const terms = Array.from({ length: r.int(2, 4) }, () => this.fpExpr());
      const product = r.chance(0.5);
      const value = terms.reduce((acc, t) => (product ? mul(acc, t.value as Value) : add(acc, t.value as Value)), {
        re: product ? 1 : 0,
        im: 0,
      });
      return { text: `(${terms.map((t) => t.text).join(product ? ' * ' : ' + ')})`, value };
    }
    if (v < 750) {
      const value = this.fpValue();
      return { text: this.fpLiteral(value), value };
    }
    if (v < 1000) {
      const value = this.fpValue();
      return this.variable(value, value.im !== 0);
    }
    const a = this.fpExpr();
    const b = this.fpExpr();
    const [x, y] = [a.value as Value, b.value as Value];
    if (v < 1250) return { text: `(${a.text} - ${b.text})`, value: { re: x.re - y.re, im: x.im - y.im } };
    if (y.re === 0 && y.im === 0) throw new Discard();
    return { text: `(${a.text} / ${b.text})`, value: div(x, y) };
  }

  private variable(value: bigint | Value, complex: boolean): Node {
    const name = `var_${this.prefix}_${this.variables.size}`;
    const text = typeof value === 'bigint' ? `${value}` : this.fpLiteral(value);
    this.variables.set(name, { text, complex });
    return { text: name, value };
  }
}

const add = (a: Value, b: Value): Value => ({ re: a.re + b.re, im: a.im + b.im });
const mul = (a: Value, b: Value): Value => ({ re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re });
function div(a: Value, b: Value): Value {
  const d = b.re * b.re + b.im * b.im;
  return { re: (a.re * b.re + a.im * b.im) / d, im: (a.im * b.re - a.re * b.im) / d };
}

/**
 * `count` expressions of `kind` from `seed` (loopy's ten per case), with the variables they
 * read; an expression that leaves int32 or divides by zero is drawn again, as loopy's test does.
 */
export function fuzzCase(kind: FuzzKind, seed: number, count = 10): FuzzCase {
  const rng = new Rng(seed * 7919 + 1);
  const expressions: FuzzExpression[] = [];
  const variables = new Map<string, { text: string; complex: boolean }>();
  for (let k = 0; expressions.length < count; k++) {
    const gen = new Generator(rng, kind, `e${k}`);
    try {
      const node = kind === 'int' || kind === 'int_nonneg' ? gen.intExpr() : gen.fpExpr();
      expressions.push(node);
      for (const [name, v] of gen.variables) variables.set(name, v);
    } catch (e) {
      if (!(e instanceof Discard)) throw e;
    }
  }
  return { expressions, variables };
}
