/**
 * Piecewise affine values over parameter sets, just enough to describe a failed static
 * maximum the way loopy does: `[n] -> { [(1)] : n <= 1; [(n)] : n >= 2 }`.
 *
 * A piece's value is floor(expr/divisor) for a maximum (it comes from upper bounds) and
 * ceil(expr/divisor) for a minimum. Pieces have disjoint domains; two pieces with the
 * same value are merged when their union is convex (isl's coalescing).
 */
import { Linear } from '../linear.ts';
import { BasicSet } from './basic-set.ts';
import { type Bound, type Constraint, ge, negation, variablesOf } from './constraint.ts';
import { freshName } from './names.ts';
import { printConditions } from './print.ts';

export type Sense = 'max' | 'min';

export interface Piece {
  /** A set over parameters only. */
  readonly domain: BasicSet;
  readonly value: Bound;
}

/** The value at each point: floor(expr/divisor) (max) or ceil(expr/divisor) (min) as a form in a new variable. */
function rounded(value: Bound, sense: Sense, into: { names: string[]; constraints: Constraint[] }): Linear {
  if (value.divisor === 1) return value.expr;
  const q = freshName('q');
  const d = value.divisor;
  const rest = value.expr.sub(Linear.variable(q, d)); // expr - d·q
  // floor: 0 <= expr - d·q <= d - 1;  ceil: -(d - 1) <= expr - d·q <= 0
  const range = sense === 'max' ? [ge(rest), ge(rest.negate().add(d - 1))] : [ge(rest.negate()), ge(rest.add(d - 1))];
  into.names.push(q);
  into.constraints.push(...range);
  return Linear.variable(q);
}

/** The part of `domain` where `a op b` holds (a, b rounded as the sense says). */
export function whereCompared(domain: BasicSet, a: Bound, op: '<' | '<=', b: Bound, sense: Sense): BasicSet {
  const helpers = { names: [] as string[], constraints: [] as Constraint[] };
  const diff = rounded(b, sense, helpers).sub(rounded(a, sense, helpers)); // b - a
  const condition = ge(op === '<' ? diff.sub(1) : diff);
  return domain
    .addDims(helpers.names)
    .addConstraints([...helpers.constraints, condition])
    .project(helpers.names);
}

/** Pointwise maximum (or minimum) of two piecewise values, in isl's piece order. */
export function combine(first: readonly Piece[], second: readonly Piece[], sense: Sense): Piece[] {
  const out: Piece[] = [];
  for (const a of first) {
    for (const b of second) {
      const common = a.domain.intersect(b.domain);
      if (common.isEmpty()) continue;
      // max: where a <= b take b, elsewhere a;  min: where b <= a take b, elsewhere a.
      const takeB =
        sense === 'max'
          ? whereCompared(common, a.value, '<=', b.value, sense)
          : whereCompared(common, b.value, '<=', a.value, sense);
      const takeA =
        sense === 'max'
          ? whereCompared(common, b.value, '<', a.value, sense)
          : whereCompared(common, a.value, '<', b.value, sense);
      out.push({ domain: takeB, value: b.value }, { domain: takeA, value: a.value });
    }
  }
  for (const [pieces, others] of [
    [first, second],
    [second, first],
  ] as const) {
    for (const p of pieces) {
      for (const rest of subtractAll(
        p.domain,
        others.map((o) => o.domain),
      ))
        out.push({ domain: rest, value: p.value });
    }
  }
  return out.filter((p) => !p.domain.isEmpty());
}

/** Merges pieces of equal value whose union is convex, keeping the first one's place. */
export function coalesce(pieces: readonly Piece[]): Piece[] {
  const out = [...pieces];
  for (let i = 0; i < out.length; i++) {
    for (let j = i + 1; j < out.length; j++) {
      if (!sameBound(out[i]!.value, out[j]!.value)) continue;
      const union = convexUnion(out[i]!.domain, out[j]!.domain);
      if (!union) continue;
      out[i] = { domain: union, value: out[i]!.value };
      out.splice(j, 1);
      j = i; // the grown piece may now merge with one it could not before
    }
  }
  return out;
}

export function printPiecewise(params: readonly string[], pieces: readonly Piece[], sense: Sense): string {
  const head = params.length > 0 ? `[${params.join(', ')}] -> ` : '';
  const text = pieces.map((p) => {
    const expr = p.value.expr.toString(params);
    const value = p.value.divisor === 1 ? expr : `${sense === 'max' ? 'floor' : 'ceil'}((${expr})/${p.value.divisor})`;
    const where = printConditions({ ...p.domain, params });
    return where ? `[(${value})] : ${where}` : `[(${value})]`;
  });
  return `${head}{ ${text.join('; ')} }`;
}

export function sameBound(a: Bound, b: Bound): boolean {
  return a.divisor === b.divisor && a.expr.equals(b.expr);
}

// ---- set difference and convex union ---------------------------------------------------

/** `a` minus each of `others`: disjoint pieces. */
function subtractAll(a: BasicSet, others: readonly BasicSet[]): BasicSet[] {
  let pieces = [a];
  for (const b of others) pieces = pieces.flatMap((p) => subtract(p, b));
  return pieces;
}

/**
 * `a \ b` as disjoint pieces: a ∩ c1 ∩ ... ∩ c(k-1) ∩ not(ck) for b's constraints c1..cn.
 * A stride `W ≡ 0 (mod m)` has the convex complement `W mod m in [1, m-1]`. Other
 * constraints on existentials have no convex complement; they are skipped, which makes
 * the difference too small (this is only used to describe values in messages).
 */
export function subtract(a: BasicSet, b: BasicSet): BasicSet[] {
  const out: BasicSet[] = [];
  const prefix: Constraint[] = [];
  for (const c of b.constraints) {
    const local = b.existentials.filter((e) => c.expr.dependsOn(e));
    const complements = local.length === 0 ? negation(c).map((n) => [n]) : strideComplement(b, c, local);
    for (const extra of complements) {
      const fresh = variablesOf(extra).filter((n) => ![...b.params, ...b.dims, ...b.existentials].includes(n));
      const part = BasicSet.fromConstraints(b.params, b.dims, [...prefix, ...extra], [...b.existentials, ...fresh]);
      const piece = a.intersect(part);
      if (!piece.isEmpty()) out.push(piece);
    }
    prefix.push(c);
  }
  return out;
}

function strideComplement(b: BasicSet, c: Constraint, local: readonly string[]): Constraint[][] {
  const e = local[0]!;
  const isStride = local.length === 1 && c.kind === 'eq' && b.constraints.every((d) => d === c || !d.expr.dependsOn(e));
  if (!isStride) return [];
  const m = Math.abs(c.expr.coeff(e));
  const q = freshName('q');
  const rest = c.expr.without([e]).sub(Linear.variable(q, m)); // W - m·q, wanted in [1, m - 1]
  return [[ge(rest.sub(1)), ge(rest.negate().add(m - 1))]];
}

/**
 * The union of two existential-free sets when it is convex: the hull candidate keeps
 * each set's constraints that the other satisfies too, and must add no point.
 */
export function convexUnion(a: BasicSet, b: BasicSet): BasicSet | undefined {
  if (a.existentials.length > 0 || b.existentials.length > 0) return undefined;
  const halves = (s: BasicSet) =>
    s.constraints.flatMap((c) => (c.kind === 'eq' ? [ge(c.expr), ge(c.expr.negate())] : [c]));
  const hull = [...halves(a).filter((c) => b.implies(c)), ...halves(b).filter((c) => a.implies(c))];
  const candidate = BasicSet.fromConstraints(a.params, a.dims, hull);
  const extra = subtract(candidate, a).flatMap((p) => subtract(p, b));
  return extra.length === 0 ? candidate : undefined;
}
