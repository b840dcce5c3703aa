/**
 * Linear (affine) forms over named integer variables: `c0 + c1*x1 + ... + ck*xk`.
 *
 * This is the one representation of "affine" shared by the integer-set library
 * (constraints, bounds) and the expression IR (its affine view of an index or a
 * bound). Immutable; coefficients are JavaScript integers (checked safe), zero
 * coefficients are never stored.
 */
import { CoefficientRangeError } from './errors.ts';

/** An affine expression: a constant plus integer coefficients times variables. */
export class Linear {
  /** `termsKeys()`, once asked (a field of the form rather than a WeakMap entry: this is hot). */
  #termsKeys: readonly [string, string] | undefined = undefined;

  private constructor(
    /** Non-zero coefficients by variable name, in insertion order. */
    readonly coeffs: ReadonlyMap<string, number>,
    /** The constant term. */
    readonly constant: number,
  ) {}

  /**
   * The variable part as text, terms sorted by name, for the form and for its negation:
   * forms that differ only in their constant share it (parallel constraints, sets/constraint.ts).
   */
  termsKeys(): readonly [string, string] {
    if (this.#termsKeys === undefined) {
      const sorted = [...this.coeffs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      this.#termsKeys = [sorted.map(([n, c]) => `${n}:${c}`).join(','), sorted.map(([n, c]) => `${n}:${-c}`).join(',')];
    }
    return this.#termsKeys;
  }

  /** The form 0. */
  static readonly zero = new Linear(new Map(), 0);

  /**
   * The form `constant + Σ c·name` from coefficients by name (a map, entries or a record);
   * repeated names add up, zero coefficients are dropped. A coefficient or constant that is
   * not a safe integer (a fraction, or beyond 2^53 - 1) is a `CoefficientRangeError`, here and
   * in every operation below.
   */
  static of(coeffs: Iterable<readonly [string, number]> | Record<string, number>, constant = 0): Linear {
    const entries = Symbol.iterator in coeffs ? coeffs : Object.entries(coeffs);
    const map = new Map<string, number>();
    for (const [name, c] of entries as Iterable<readonly [string, number]>) {
      const next = checked((map.get(name) ?? 0) + c);
      if (next === 0) map.delete(name);
      else map.set(name, next);
    }
    return new Linear(map, checked(constant));
  }

  /** The constant form `value`. */
  static constant(value: number): Linear {
    return new Linear(new Map(), checked(value));
  }

  /** The form `coefficient·name`. */
  static variable(name: string, coefficient = 1): Linear {
    return Linear.of([[name, coefficient]]);
  }

  /** The coefficient of `name` (0 when the form does not depend on it). */
  coeff(name: string): number {
    return this.coeffs.get(name) ?? 0;
  }

  /** The variables with a non-zero coefficient, in insertion order (a fresh array). */
  get variables(): string[] {
    return [...this.coeffs.keys()];
  }

  /** Whether no variable has a non-zero coefficient. */
  get isConstant(): boolean {
    return this.coeffs.size === 0;
  }

  /** Whether `name` has a non-zero coefficient. */
  dependsOn(name: string): boolean {
    return this.coeffs.has(name);
  }

  /** The sum with another form or a constant. */
  add(other: Linear | number): Linear {
    if (typeof other === 'number') return new Linear(this.coeffs, checked(this.constant + other));
    // what Linear.of would make of both forms' terms, without the array in between (this is hot)
    const map = new Map(this.coeffs);
    for (const [name, c] of other.coeffs) {
      const next = checked((map.get(name) ?? 0) + c);
      if (next === 0) map.delete(name);
      else map.set(name, next);
    }
    return new Linear(map, checked(this.constant + other.constant));
  }

  /** The difference with another form or a constant. */
  sub(other: Linear | number): Linear {
    return this.add(typeof other === 'number' ? -other : other.scale(-1));
  }

  /** Every coefficient and the constant times an integer `factor`. */
  scale(factor: number): Linear {
    if (factor === 0) return Linear.zero;
    if (factor === 1) return this;
    const map = new Map<string, number>();
    for (const [name, c] of this.coeffs) map.set(name, checked(c * factor));
    return new Linear(map, checked(this.constant * factor));
  }

  /** The form times -1. */
  negate(): Linear {
    return this.scale(-1);
  }

  /** Replaces `name` by `value` (another linear form). */
  substitute(name: string, value: Linear): Linear {
    const c = this.coeff(name);
    if (c === 0) return this;
    const rest = Linear.of(
      [...this.coeffs].filter(([n]) => n !== name),
      this.constant,
    );
    return rest.add(value.scale(c));
  }

  /** Drops the given variables' terms (keeps the rest). */
  without(names: Iterable<string>): Linear {
    const drop = new Set(names);
    return Linear.of(
      [...this.coeffs].filter(([n]) => !drop.has(n)),
      this.constant,
    );
  }

  /** Value at an assignment; throws if a variable is missing. */
  evaluate(env: ReadonlyMap<string, number> | Record<string, number>): number {
    const get = env instanceof Map ? (n: string) => env.get(n) : (n: string) => (env as Record<string, number>)[n];
    let total = this.constant;
    for (const [name, c] of this.coeffs) {
      const v = get(name);
      if (v === undefined) throw new Error(`Linear.evaluate: no value for '${name}'`);
      total += c * v;
    }
    return total;
  }

  /** Greatest common divisor of the variable coefficients (0 for a constant form). */
  coefficientGcd(): number {
    let g = 0;
    for (const c of this.coeffs.values()) g = gcd(g, c);
    return g;
  }

  /** Whether both forms have the same constant and the same coefficients (order does not matter). */
  equals(other: Linear): boolean {
    if (this.constant !== other.constant || this.coeffs.size !== other.coeffs.size) return false;
    for (const [n, c] of this.coeffs) if (other.coeff(n) !== c) return false;
    return true;
  }

  /**
   * ISL-like text: variables in the given order (default: insertion order), constant last,
   * e.g. `n - 1`, `2i + j`, `-i + 3`. `orderBy` lists preferred variable order.
   */
  toString(orderBy?: readonly string[]): string {
    const names = this.variables;
    if (orderBy) names.sort((a, b) => rank(orderBy, a) - rank(orderBy, b));
    let out = '';
    for (const name of names) {
      const c = this.coeff(name);
      const mag = Math.abs(c) === 1 ? '' : String(Math.abs(c));
      if (out === '') out = `${c < 0 ? '-' : ''}${mag}${name}`;
      else out += ` ${c < 0 ? '-' : '+'} ${mag}${name}`;
    }
    if (out === '') return String(this.constant);
    if (this.constant !== 0) out += ` ${this.constant < 0 ? '-' : '+'} ${Math.abs(this.constant)}`;
    return out;
  }
}

function rank(order: readonly string[], name: string): number {
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}

function checked(n: number): number {
  if (!Number.isSafeInteger(n)) throw new CoefficientRangeError(n);
  return n === 0 ? 0 : n; // normalize -0
}

export function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Floor division on integers (rounds toward negative infinity). */
export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

/** Ceiling division on integers. */
export function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}
