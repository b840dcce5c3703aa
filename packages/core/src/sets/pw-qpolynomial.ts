/**
 * Piecewise quasi-polynomials over parameters, isl's PwQPolynomial: what counting the
 * points of a parametric set gives, e.g. `[n] -> { floor((n + 15)/16) : n > 0 }`.
 *
 * A value is the sum of the pieces whose domain contains the point, and 0 outside all
 * of them. Counting (card.ts) makes pieces with disjoint domains; adding two values
 * may overlap pieces, which is still exact, and printing shows them disjoint again as
 * isl does (overlaps split off, pieces of equal value merged).
 */
import { LoomError } from '../errors.ts';
import { Linear } from '../linear.ts';
import { BasicSet } from './basic-set.ts';
import { eq } from './constraint.ts';
import { freshName } from './names.ts';
import { convexUnion, subtract } from './piecewise.ts';
import { printConditions } from './print.ts';
import { QPolynomial, type FloorAtom, type Valuation } from './quasi-polynomial.ts';
import { Rational } from './rational.ts';

export interface QPiece {
  /** A set over parameters (no set variables; existentials allowed). */
  readonly domain: BasicSet;
  readonly value: QPolynomial;
}

/** Parameter values: numbers (safe integers) or BigInts. */
export type ParamValues = Readonly<Record<string, number | bigint>> | ReadonlyMap<string, number | bigint>;

/** A piecewise quasi-polynomial (isl's): a quasi-polynomial on each of a set of domains, 0 outside them all. */
export class PwQPolynomial {
  private constructor(
    /** The parameter space, sorted by name (loopy's order). */
    readonly params: readonly string[],
    /** The pieces: a domain and the value there each. */
    readonly pieces: readonly QPiece[],
  ) {
    Object.freeze(this);
  }

  /** Pieces with equal domains are added, empty ones and zero values dropped. */
  static fromPieces(params: readonly string[], pieces: readonly QPiece[]): PwQPolynomial {
    const byDomain = new Map<string, QPiece>();
    for (const p of pieces) {
      if (p.value.isZero) continue;
      const key = domainKey(p.domain);
      const had = byDomain.get(key);
      byDomain.set(key, had ? { domain: had.domain, value: had.value.add(p.value) } : p);
    }
    const kept = [...byDomain.values()].filter((p) => !p.value.isZero);
    const used = kept.flatMap((p) => [...p.domain.params, ...p.value.variables()]);
    return new PwQPolynomial(sortedUnion(params, used), kept);
  }

  /** The value 0 everywhere (no pieces), over the parameters `params`. */
  static zero(params: readonly string[] = []): PwQPolynomial {
    return PwQPolynomial.fromPieces(params, []);
  }

  /** `value` everywhere. */
  static of(value: QPolynomial | number, params: readonly string[] = []): PwQPolynomial {
    const q = typeof value === 'number' ? QPolynomial.constant(value) : value;
    return PwQPolynomial.fromPieces(params, [{ domain: BasicSet.universe([], []), value: q }]);
  }

  /** Whether it has no pieces, so is 0 everywhere. */
  get isZero(): boolean {
    return this.pieces.length === 0;
  }

  /**
   * The sum: both sets of pieces, over the union of the parameter spaces (overlapping
   * pieces are kept; a value is the sum of the pieces that contain the point).
   */
  add(o: PwQPolynomial): PwQPolynomial {
    return PwQPolynomial.fromPieces(sortedUnion(this.params, o.params), [...this.pieces, ...o.pieces]);
  }

  /**
   * The product: a piece per pair of pieces, on the intersection of their domains (empty
   * intersections dropped).
   */
  mul(o: PwQPolynomial): PwQPolynomial {
    const pieces: QPiece[] = [];
    for (const a of this.pieces) {
      for (const b of o.pieces) {
        const domain = domainKey(a.domain) === domainKey(b.domain) ? a.domain : a.domain.intersect(b.domain);
        if (domain !== a.domain && domain.isEmpty()) continue;
        pieces.push({ domain, value: a.value.mul(b.value) });
      }
    }
    return PwQPolynomial.fromPieces(sortedUnion(this.params, o.params), pieces);
  }

  /** Every piece's value times the rational `r`. */
  scale(r: Rational | number): PwQPolynomial {
    return PwQPolynomial.fromPieces(
      this.params,
      this.pieces.map((p) => ({ domain: p.domain, value: p.value.scale(r) })),
    );
  }

  /** The exact value; every parameter of the space needs a value. */
  evaluate(values: ParamValues): Rational {
    const point = pointOf(this.params, values);
    const asNumbers: Record<string, number> = {};
    for (const [k, v] of point) asNumbers[k] = Number(v);
    let total = Rational.ZERO;
    for (const p of this.pieces) {
      if (p.domain.contains(pick(asNumbers, p.domain.params))) total = total.add(p.value.evaluate(point));
    }
    return total;
  }

  /** The value as a number: an integer below 2^53 (else a LoomError saying to use `evaluateBig`). */
  evalWithDict(values: ParamValues): number {
    const r = this.evaluate(values);
    if (!r.isInteger) throw new LoomError(`the value ${r.toString()} is not an integer`);
    const n = Number(r.num);
    if (!Number.isSafeInteger(n))
      throw new LoomError(`the value ${r.num} is beyond 2^53 - 1; use evaluate() for the exact value`);
    return n;
  }

  /** isl's notation: `[n, m] -> { (n * m) : n > 0 and m > 0 }`, pieces separated by `;`. */
  toString(): string {
    const head = this.params.length > 0 ? `[${this.params.join(', ')}] -> ` : '';
    const disjoint = disjointPieces(this.pieces);
    if (!disjoint) return this.pieces.map((p) => `${head}{ ${printPiece(p, this.params)} }`).join(' + ');
    const shown = coalesced(disjoint.map(simplifiedPiece).filter((p) => !p.value.isZero));
    if (shown.length === 0) return `${head}{ 0 }`;
    return `${head}{ ${shown.map((p) => printPiece(p, this.params)).join('; ')} }`;
  }
}

// ---- helpers -----------------------------------------------------------------------------

function sortedUnion(a: readonly string[], b: Iterable<string>): string[] {
  return [...new Set([...a, ...b])].sort();
}

function domainKey(d: BasicSet): string {
  return printConditions({ ...d, params: [...d.params].sort() });
}

function printPiece(p: QPiece, params: readonly string[]): string {
  const where = printConditions({ ...p.domain, params: sortedUnion(params, p.domain.params) });
  return where ? `${p.value.toString()} : ${where}` : p.value.toString();
}

function pointOf(params: readonly string[], values: ParamValues): Map<string, bigint> {
  const get =
    values instanceof Map
      ? (n: string) => values.get(n)
      : (n: string) => (values as Record<string, number | bigint>)[n];
  const missing = params.filter((p) => get(p) === undefined);
  if (missing.length > 0)
    throw new LoomError(
      `no value for the parameter${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')} (the count depends on ${params.join(', ')})`,
    );
  const out = new Map<string, bigint>();
  for (const p of params) {
    const v = get(p)!;
    if (typeof v === 'number' && !Number.isSafeInteger(v))
      throw new LoomError(`parameter '${p}' = ${v} is not an integer`);
    out.set(p, BigInt(v));
  }
  return out;
}

function pick(values: Readonly<Record<string, number>>, names: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of names) out[n] = values[n]!;
  return out;
}

/** A stride is the one existential set difference can complement. */
function subtractable(d: BasicSet): boolean {
  return d.existentials.every((e) => {
    const uses = d.constraints.filter((c) => c.expr.dependsOn(e));
    return (
      uses.length === 1 && uses[0]!.kind === 'eq' && d.existentials.every((x) => x === e || !uses[0]!.expr.dependsOn(x))
    );
  });
}

/** The same function as disjoint pieces, or undefined where a domain cannot be subtracted. */
function disjointPieces(pieces: readonly QPiece[]): QPiece[] | undefined {
  let out: QPiece[] = [];
  for (const p of pieces) {
    if (out.every((q) => q.domain.intersect(p.domain).isEmpty())) {
      out.push(p);
      continue;
    }
    if (!subtractable(p.domain) || out.some((q) => !subtractable(q.domain))) return undefined;
    let rest = [p.domain];
    const next: QPiece[] = [];
    for (const q of out) {
      const common = q.domain.intersect(p.domain);
      if (common.isEmpty()) {
        next.push(q);
        continue;
      }
      next.push({ domain: common, value: q.value.add(p.value) });
      for (const d of subtract(q.domain, p.domain)) next.push({ domain: d, value: q.value });
      rest = rest.flatMap((d) => subtract(d, q.domain));
    }
    out = [...next, ...rest.map((domain) => ({ domain, value: p.value }))];
  }
  return out;
}

/**
 * The value as it reads on its domain: parameters the domain fixes (`n = 1`) replaced by
 * their value, floors that are constant there evaluated.
 */
function simplifiedPiece(p: QPiece): QPiece {
  let value = p.value;
  for (const c of p.domain.constraints) {
    const [name] = c.expr.variables;
    if (c.kind !== 'eq' || c.expr.variables.length !== 1 || p.domain.existentials.includes(name!)) continue;
    const a = c.expr.coeff(name!);
    if (Math.abs(a) === 1) value = value.substituteAffine(name!, Linear.constant(-c.expr.constant * a));
  }
  return {
    domain: p.domain,
    value: value.atoms().length === 0 ? value : value.mapAtoms((atom) => constantOn(p.domain, atom)),
  };
}

/** floor(e/d) when e stays within one multiple of d on the domain, else undefined. */
function constantOn(domain: BasicSet, atom: FloorAtom): QPolynomial | undefined {
  const v = freshName('v');
  // every parameter a variable, so the bounds of v come out constant where they are
  const withV = domain
    .moveParamsToDims(domain.params)
    .addDims([v])
    .addConstraints([eq(Linear.variable(v).sub(atom.expr))]);
  const lows = withV
    .lowerBounds(v, [])
    .filter((b) => b.expr.isConstant)
    .map((b) => Math.ceil(b.expr.constant / b.divisor));
  const highs = withV
    .upperBounds(v, [])
    .filter((b) => b.expr.isConstant)
    .map((b) => Math.floor(b.expr.constant / b.divisor));
  if (lows.length === 0 || highs.length === 0) return undefined;
  const q = Math.floor(Math.max(...lows) / atom.den);
  return q === Math.floor(Math.min(...highs) / atom.den) ? QPolynomial.constant(q) : undefined;
}

/** Pieces of equal value whose union is convex become one. */
function coalesced(pieces: readonly QPiece[]): QPiece[] {
  const out = [...pieces];
  for (let i = 0; i < out.length; i++) {
    for (let j = i + 1; j < out.length; j++) {
      if (!out[i]!.value.equals(out[j]!.value)) continue;
      const union = convexUnion(out[i]!.domain, out[j]!.domain);
      if (!union) continue;
      out[i] = { domain: union, value: out[i]!.value };
      out.splice(j, 1);
      j = i;
    }
  }
  return out;
}

export type { Valuation };
