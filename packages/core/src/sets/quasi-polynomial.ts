/**
 * Quasi-polynomials: polynomials with rational coefficients over integer variables and
 * "floor atoms" `floor(e/d)` of affine forms `e` — what the number of integer points of a
 * parametric loop nest is (`floor((n + 15)/16)` work-groups, `n·(n+1)/2` points of a
 * triangle).
 *
 * Immutable. Atoms are kept canonical (floor.ts: common factors cancelled, integer parts
 * taken out), so equal atoms have equal keys and like terms combine.
 */
import { InternalError } from '../errors.ts';
import { Linear } from '../linear.ts';
import { Rational, floorDivBig } from './rational.ts';

/** A variable, or `floor(expr/den)` with den >= 2 and every coefficient of expr in [0, den). */
export type Sym =
  | { readonly kind: 'var'; readonly name: string; readonly key: string }
  | { readonly kind: 'floor'; readonly expr: Linear; readonly den: number; readonly key: string };

export type FloorAtom = Extract<Sym, { kind: 'floor' }>;

interface Term {
  /** Symbols with their (positive) exponents, sorted by key. */
  readonly factors: readonly (readonly [Sym, number])[];
  readonly coeff: Rational;
}

/** Values of variables, for evaluation. */
export type Valuation = ReadonlyMap<string, bigint>;

/** A quasi-polynomial in the parameters (isl's): what counts of operations and accesses are. */
export class QPolynomial {
  private constructor(
    /** Non-zero terms by monomial key ('' is the constant term). */
    private readonly terms: ReadonlyMap<string, Term>,
  ) {
    Object.freeze(this);
  }

  /** The polynomial 0. */
  static readonly ZERO = new QPolynomial(new Map());
  /** The polynomial 1. */
  static readonly ONE = QPolynomial.constant(Rational.ONE);

  /** The constant quasi-polynomial `value`. */
  static constant(value: Rational | number | bigint): QPolynomial {
    const r = value instanceof Rational ? value : Rational.of(value);
    return r.isZero ? QPolynomial.ZERO : new QPolynomial(new Map([['', { factors: [], coeff: r }]]));
  }

  /** The quasi-polynomial `name` (a parameter or a set variable). */
  static variable(name: string): QPolynomial {
    return QPolynomial.symbol({ kind: 'var', name, key: name });
  }

  /** `lin / den`, an affine form with a rational factor. */
  static affine(lin: Linear, den = 1): QPolynomial {
    let out = QPolynomial.constant(Rational.of(lin.constant, den));
    for (const [name, c] of lin.coeffs) out = out.add(QPolynomial.variable(name).scale(Rational.of(c, den)));
    return out;
  }

  /** `floor(lin / den)` for a positive integer den, canonical: the integer part outside the atom. */
  static floor(lin: Linear, den: number): QPolynomial {
    if (!Number.isInteger(den) || den < 1) throw new InternalError(`QPolynomial.floor: divisor ${den}`);
    if (den === 1) return QPolynomial.affine(lin);
    // common factors of the coefficients and den cancel: floor((g·e + c)/(g·d)) = floor((e + floor(c/g))/d)
    const g = gcdNum(lin.coefficientGcd(), den);
    if (g > 1)
      return QPolynomial.floor(
        Linear.of(
          [...lin.coeffs].map(([n, c]) => [n, c / g] as const),
          Math.floor(lin.constant / g),
        ),
        den / g,
      );
    // integer multiples of den come out of the floor
    const whole: [string, number][] = [];
    const kept: [string, number][] = [];
    for (const [n, c] of lin.coeffs) {
      const r = mod(c, den);
      if (c !== r) whole.push([n, (c - r) / den]);
      if (r !== 0) kept.push([n, r]);
    }
    const r0 = mod(lin.constant, den);
    const outside = QPolynomial.affine(Linear.of(whole, (lin.constant - r0) / den));
    if (kept.length === 0) return outside; // floor(r0/den) = 0
    const expr = Linear.of(kept, r0);
    const sorted = [...expr.variables].sort();
    return outside.add(
      QPolynomial.symbol({ kind: 'floor', expr, den, key: `floor((${expr.toString(sorted)})/${den})` }),
    );
  }

  /** `ceil(lin / den)` = -floor(-lin / den). */
  static ceil(lin: Linear, den: number): QPolynomial {
    return QPolynomial.floor(lin.negate(), den).neg();
  }

  private static symbol(s: Sym): QPolynomial {
    return new QPolynomial(new Map([[s.key, { factors: [[s, 1]], coeff: Rational.ONE }]]));
  }

  // ---- questions ---------------------------------------------------------------------

  /** Whether it is the zero polynomial (no terms). */
  get isZero(): boolean {
    return this.terms.size === 0;
  }

  /** The value when the polynomial is a constant, else undefined. */
  get constantValue(): Rational | undefined {
    if (this.terms.size === 0) return Rational.ZERO;
    if (this.terms.size > 1) return undefined;
    return this.terms.get('')?.coeff;
  }

  /** Variables it depends on, also through atoms. */
  variables(): Set<string> {
    const out = new Set<string>();
    for (const t of this.terms.values()) {
      for (const [s] of t.factors) {
        if (s.kind === 'var') out.add(s.name);
        else for (const n of s.expr.variables) out.add(n);
      }
    }
    return out;
  }

  /** Whether `name` occurs in it, inside a floor atom too. */
  dependsOn(name: string): boolean {
    return this.variables().has(name);
  }

  /** The atoms whose argument contains `name`. */
  atomsWith(name: string): FloorAtom[] {
    const out = new Map<string, FloorAtom>();
    for (const t of this.terms.values())
      for (const [s] of t.factors) if (s.kind === 'floor' && s.expr.dependsOn(name)) out.set(s.key, s);
    return [...out.values()];
  }

  /** Highest power of the variable `name` (outside atoms). */
  degreeIn(name: string): number {
    let d = 0;
    for (const t of this.terms.values())
      for (const [s, e] of t.factors) if (s.kind === 'var' && s.name === name) d = Math.max(d, e);
    return d;
  }

  /** Coefficients of the powers of `name` (which must not occur inside an atom): out[k] multiplies name^k. */
  coefficientsOf(name: string): QPolynomial[] {
    if (this.atomsWith(name).length > 0) throw new InternalError(`coefficientsOf: '${name}' occurs inside a floor`);
    const parts: Map<string, Term>[] = [];
    for (const [, t] of this.terms) {
      const at = t.factors.findIndex(([s]) => s.kind === 'var' && s.name === name);
      const power = at < 0 ? 0 : t.factors[at]![1];
      const factors = at < 0 ? t.factors : t.factors.filter((_, k) => k !== at);
      while (parts.length <= power) parts.push(new Map());
      parts[power]!.set(monomialKey(factors), { factors, coeff: t.coeff });
    }
    return parts.map((m) => new QPolynomial(m));
  }

  /** Whether both have the same terms (atoms are canonical, so this is equality of the forms). */
  equals(o: QPolynomial): boolean {
    if (this.terms.size !== o.terms.size) return false;
    for (const [k, t] of this.terms) {
      const u = o.terms.get(k);
      if (!u || !u.coeff.equals(t.coeff)) return false;
    }
    return true;
  }

  // ---- arithmetic --------------------------------------------------------------------

  /** The sum; like terms combine, zero terms are dropped. */
  add(o: QPolynomial): QPolynomial {
    if (o.isZero) return this;
    if (this.isZero) return o;
    const out = new Map(this.terms);
    for (const [k, t] of o.terms) {
      const mine = out.get(k);
      if (!mine) out.set(k, t);
      else {
        const c = mine.coeff.add(t.coeff);
        if (c.isZero) out.delete(k);
        else out.set(k, { factors: mine.factors, coeff: c });
      }
    }
    return new QPolynomial(out);
  }

  /** The difference. */
  sub(o: QPolynomial): QPolynomial {
    return this.add(o.neg());
  }

  /** The polynomial times -1. */
  neg(): QPolynomial {
    return this.scale(Rational.of(-1));
  }

  /** Every coefficient times the rational `r`. */
  scale(r: Rational | number): QPolynomial {
    const f = r instanceof Rational ? r : Rational.of(r);
    if (f.isZero) return QPolynomial.ZERO;
    if (f.equals(Rational.ONE)) return this;
    return new QPolynomial(
      new Map([...this.terms].map(([k, t]) => [k, { factors: t.factors, coeff: t.coeff.mul(f) }])),
    );
  }

  /** The product, expanded into terms. */
  mul(o: QPolynomial): QPolynomial {
    if (this.isZero || o.isZero) return QPolynomial.ZERO;
    const out = new Map<string, Term>();
    for (const a of this.terms.values()) {
      for (const b of o.terms.values()) {
        const factors = multiplyFactors(a.factors, b.factors);
        const key = monomialKey(factors);
        const c = (out.get(key)?.coeff ?? Rational.ZERO).add(a.coeff.mul(b.coeff));
        if (c.isZero) out.delete(key);
        else out.set(key, { factors, coeff: c });
      }
    }
    return new QPolynomial(out);
  }

  /** The `k`-th power, for a non-negative integer `k` (1 for `k` = 0). */
  pow(k: number): QPolynomial {
    let out = QPolynomial.ONE;
    for (let i = 0; i < k; i++) out = out.mul(this);
    return out;
  }

  // ---- substitution ------------------------------------------------------------------

  /**
   * Replaces the variable `name` by `value / den` everywhere, inside atoms too. Inside an
   * atom this is only right where `value / den` is an integer (the value of a variable
   * is): floor((c·x + R)/d) with x = v/den is floor((c·v + den·R)/(den·d)).
   */
  substituteAffine(name: string, value: Linear, den = 1): QPolynomial {
    if (!this.dependsOn(name)) return this;
    const replacement = QPolynomial.affine(value, den);
    let out = QPolynomial.ZERO;
    for (const t of this.terms.values()) {
      let product = QPolynomial.constant(t.coeff);
      for (const [s, e] of t.factors) {
        let factor: QPolynomial;
        if (s.kind === 'var') factor = s.name === name ? replacement : QPolynomial.symbol(s);
        else if (!s.expr.dependsOn(name)) factor = QPolynomial.symbol(s);
        else {
          const c = s.expr.coeff(name);
          const rest = s.expr.without([name]);
          factor = QPolynomial.floor(value.scale(c).add(rest.scale(den)), den * s.den);
        }
        product = product.mul(factor.pow(e));
      }
      out = out.add(product);
    }
    return out;
  }

  /** Replaces the variable `name` (which must not occur inside an atom) by a polynomial. */
  substitute(name: string, value: QPolynomial): QPolynomial {
    const parts = this.coefficientsOf(name);
    let out = QPolynomial.ZERO;
    let power = QPolynomial.ONE;
    for (let k = 0; k < parts.length; k++) {
      if (k > 0) power = power.mul(value);
      out = out.add(parts[k]!.mul(power));
    }
    return out;
  }

  /** Replaces atoms by what `f` gives for them (undefined: kept). */
  mapAtoms(f: (atom: FloorAtom) => QPolynomial | undefined): QPolynomial {
    let out = QPolynomial.ZERO;
    for (const t of this.terms.values()) {
      let product = QPolynomial.constant(t.coeff);
      for (const [s, e] of t.factors)
        product = product.mul(((s.kind === 'floor' ? f(s) : undefined) ?? QPolynomial.symbol(s)).pow(e));
      out = out.add(product);
    }
    return out;
  }

  /** Every atom, once. */
  atoms(): FloorAtom[] {
    const out = new Map<string, FloorAtom>();
    for (const t of this.terms.values()) for (const [s] of t.factors) if (s.kind === 'floor') out.set(s.key, s);
    return [...out.values()];
  }

  // ---- values and text ---------------------------------------------------------------

  /** Exact value; every variable needs a value. */
  evaluate(values: Valuation): Rational {
    let total = Rational.ZERO;
    for (const t of this.terms.values()) {
      let v = t.coeff;
      for (const [s, e] of t.factors) {
        const x = Rational.of(
          s.kind === 'var' ? valueOf(values, s.name) : floorDivBig(evaluateLinear(s.expr, values), BigInt(s.den)),
        );
        for (let i = 0; i < e; i++) v = v.mul(x);
      }
      total = total.add(v);
    }
    return total;
  }

  /**
   * isl's notation: `3 * l * m * n`, `(1/2 * n + 1/2 * n^2)`, `floor((n + 15)/16)`;
   * terms of higher degree first, a sum in parentheses.
   */
  toString(): string {
    if (this.terms.size === 0) return '0';
    const terms = [...this.terms.values()].sort(compareTerms);
    const parts = terms.map((t, k) => {
      const factors = t.factors.map(([s, e]) => (e === 1 ? s.key : `${s.key}^${e}`));
      const magnitude = t.coeff.num < 0n ? t.coeff.neg() : t.coeff;
      const coeff = factors.length > 0 && magnitude.equals(Rational.ONE) ? [] : [magnitude.toString()];
      const body = [...coeff, ...factors].join(' * ');
      const negative = t.coeff.num < 0n;
      return k === 0 ? `${negative ? '-' : ''}${body}` : `${negative ? ' - ' : ' + '}${body}`;
    });
    const text = parts.join('');
    return terms.length > 1 ? `(${text})` : text;
  }
}

// ---- helpers -----------------------------------------------------------------------------

function gcdNum(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}

function valueOf(values: Valuation, name: string): bigint {
  const v = values.get(name);
  if (v === undefined) throw new InternalError(`QPolynomial.evaluate: no value for '${name}'`);
  return v;
}

function evaluateLinear(lin: Linear, values: Valuation): bigint {
  let total = BigInt(lin.constant);
  for (const [n, c] of lin.coeffs) total += BigInt(c) * valueOf(values, n);
  return total;
}

/** Variables before atoms, each kind alphabetically. */
function compareSyms(a: Sym, b: Sym): number {
  if (a.kind !== b.kind) return a.kind === 'var' ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function monomialKey(factors: readonly (readonly [Sym, number])[]): string {
  return factors.map(([s, e]) => (e === 1 ? s.key : `${s.key}^${e}`)).join('*');
}

function multiplyFactors(
  a: readonly (readonly [Sym, number])[],
  b: readonly (readonly [Sym, number])[],
): (readonly [Sym, number])[] {
  const byKey = new Map<string, [Sym, number]>();
  for (const [s, e] of [...a, ...b]) {
    const had = byKey.get(s.key);
    byKey.set(s.key, [s, (had?.[1] ?? 0) + e]);
  }
  return [...byKey.values()].sort(([x], [y]) => compareSyms(x, y));
}

function degree(t: Term): number {
  return t.factors.reduce((d, [, e]) => d + e, 0);
}

function compareTerms(a: Term, b: Term): number {
  const d = degree(b) - degree(a);
  if (d !== 0) return d;
  const ka = monomialKey(a.factors);
  const kb = monomialKey(b.factors);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
