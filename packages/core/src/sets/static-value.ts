/**
 * Static values: one affine expression that bounds a quantity everywhere it is defined,
 * e.g. the length of an array written at `out[i]` for 0 <= i < n and at `out[0]`.
 *
 * Each term says "expr, over the integer points of set". Its maximum is read from the
 * upper bounds of a new variable v = expr once everything but v and the parameters is
 * projected away. The candidates for the answer are these pieces' expressions; one is
 * valid when, for every term, every point of the set within the context has
 * expr <= candidate, which is an exact implication test. Of several valid candidates
 * the tightest is chosen. When none is valid the error shows the piecewise maximum,
 * as loopy's StaticValueFindingError does.
 */
import { StaticValueFindingError } from '../errors.ts';
import { Linear } from '../linear.ts';
import type { BasicSet } from './basic-set.ts';
import { type Bound, eq, ge } from './constraint.ts';
import { freshName } from './names.ts';
import {
  CanonicalKey,
  type PositionalConstraint,
  linearFromPositions,
  linearToPositions,
  setCache,
} from './canonical.ts';
import { type Piece, type Sense, coalesce, combine, printPiecewise, whereCompared } from './piecewise.ts';

export interface PieceTerm {
  readonly set: BasicSet;
  readonly expr: Linear;
}

/** An expression >= every term's expr on its set, for parameters satisfying `context`. */
export function staticMax(terms: readonly PieceTerm[], context: BasicSet, keep: readonly string[] = []): Linear {
  return staticExtremum(terms, context, keep, 'max');
}

/** An expression <= every term's expr on its set, for parameters satisfying `context`. */
export function staticMin(terms: readonly PieceTerm[], context: BasicSet, keep: readonly string[] = []): Linear {
  return staticExtremum(terms, context, keep, 'min');
}

const WORD: Readonly<Record<Sense, string>> = { max: 'maximum', min: 'minimum' };

const extrema = setCache<PositionalConstraint>();

/**
 * Remembered up to renaming (canonical.ts): the same static value is asked for in every kernel
 * with such a loop (an array's extent, a loop's range). Failures are not remembered.
 */
function staticExtremum(terms: readonly PieceTerm[], context: BasicSet, keep: readonly string[], sense: Sense): Linear {
  const key = new CanonicalKey().text(sense).variables(keep);
  for (const t of terms) withSet(key, t.set).linear(t.expr);
  withSet(key.text('in'), context);
  const known = extrema.get(key.key);
  if (known) return linearFromPositions(known, key.names);
  const value = computeExtremum(terms, context, keep, sense);
  const positional = linearToPositions(value, key.index);
  if (positional) extrema.set(key.key, positional);
  return value;
}

function withSet(key: CanonicalKey, set: BasicSet): CanonicalKey {
  return key.variables(set.params).variables(set.dims).variables(set.existentials).constraints(set.constraints);
}

/** The terms with `keep` made symbols, intersected with the context; the empty ones dropped. */
function liveTerms(terms: readonly PieceTerm[], context: BasicSet, keep: readonly string[]) {
  return terms
    .map((t) => ({ set: t.set.moveDimsToParams(keep.filter((k) => t.set.dims.includes(k))), expr: t.expr }))
    .map((t) => ({ ...t, within: t.set.intersect(context) }))
    .filter((t) => !t.within.isEmpty());
}

/**
 * The terms' own bounds (the candidates) that are on the right side of every term's expr at
 * every point of its set within the context.
 */
function validBounds(live: ReturnType<typeof liveTerms>, sense: Sense): Linear[] {
  const bounds = (c: Linear) =>
    live.every((t) => t.within.implies(ge(sense === 'max' ? c.sub(t.expr) : t.expr.sub(c))));
  // where each candidate holds (the pieces) matters only for the error message
  return candidates(
    live.flatMap((t) => termBounds(t.set, t.expr, sense).map((value) => ({ value, domain: t.set }))),
  ).filter(bounds);
}

/**
 * Every affine lower bound of the terms that `staticMin` could answer, its answer first. Where
 * none is tighter everywhere (`max(8*o, 2) - 2` has the bounds `0` and `8*o - 2`), the caller
 * chooses by what it needs: a footprint, the base that makes its box smallest.
 */
export function staticMinCandidates(
  terms: readonly PieceTerm[],
  context: BasicSet,
  keep: readonly string[] = [],
): Linear[] {
  const first = staticMin(terms, context, keep);
  const rest = validBounds(liveTerms(terms, context, keep), 'min').filter((c) => !c.equals(first));
  return [first, ...rest];
}

function computeExtremum(
  terms: readonly PieceTerm[],
  context: BasicSet,
  keep: readonly string[],
  sense: Sense,
): Linear {
  // `keep` variables are symbols of the answer, like parameters.
  const live = liveTerms(terms, context, keep);
  const valid = validBounds(live, sense);
  if (valid.length > 0)
    return tightest(
      valid,
      live.map((t) => t.within),
      sense,
    );
  const pieces = live.map((t) => termPieces(t.set, t.expr, sense));

  const params = unique([...live.flatMap((t) => t.set.params), ...context.params]);
  let pw = pieces[0] ?? [];
  for (const next of pieces.slice(1)) pw = combine(pw, next, sense);
  const inContext = pw
    .map((p) => ({ domain: p.domain.intersect(context), value: p.value }))
    .filter((p) => !p.domain.isEmpty());
  const shown = coalesce(inContext).map((p) => ({ domain: p.domain.gist(context), value: p.value }));
  throw new StaticValueFindingError(
    `a static ${WORD[sense]} was not found for PwAff '${printPiecewise(params, shown, sense)}'`,
  );
}

/**
 * `staticMax`, allowing a quasi-affine answer `floor(expr / divisor)` where no affine one
 * holds (the last block `floor((n - 1)/2560)` of n values in blocks of 2560): the first
 * such bound of the terms that bounds every term. For what may be sized at run time only
 * (a global temporary): a loop bound or a hardware axis needs staticMax's affine answer.
 */
export function staticMaxQuasiAffine(terms: readonly PieceTerm[], context: BasicSet): Bound {
  try {
    return { expr: staticMax(terms, context), divisor: 1 };
  } catch (e) {
    if (!(e instanceof StaticValueFindingError)) throw e;
    const live = terms
      .map((t) => t.set.intersect(context))
      .flatMap((within, k) => (within.isEmpty() ? [] : [{ within, expr: terms[k].expr }]));
    const holds = (b: Bound) => live.every((t) => t.within.implies(ge(b.expr.sub(t.expr.scale(b.divisor)))));
    const found = terms.flatMap((t) => termBounds(t.set, t.expr, 'max')).find(holds);
    if (found) return found;
    throw e;
  }
}

/** The bounds of `expr` over the set, in the parameters (its max is their min, and vice versa). */
function termBounds(set: BasicSet, expr: Linear, sense: Sense): Bound[] {
  const v = freshName('v');
  const withV = set.addDims([v]).addConstraints([eq(Linear.variable(v).sub(expr))]);
  const bounds = sense === 'max' ? withV.upperBounds(v, []) : withV.lowerBounds(v, []);
  if (bounds.length === 0) {
    const side = sense === 'max' ? 'above' : 'below';
    throw new StaticValueFindingError(
      `a static ${WORD[sense]} was not found: ${expr.toString()} is unbounded ${side} on ${set.toString()}`,
    );
  }
  return bounds;
}

/** The term's maximum (minimum) as pieces over the parameters where its set is non-empty. */
function termPieces(set: BasicSet, expr: Linear, sense: Sense): Piece[] {
  const bounds = termBounds(set, expr, sense);
  const domain = set.project(set.dims);
  // Several bounds: the value is their min (max), so each bound owns the part of the
  // domain where it is the smallest (largest), ties going to the first.
  return bounds
    .map((bound, k) => {
      let part = domain;
      bounds.forEach((other, j) => {
        if (j === k) return;
        const op = j < k ? '<' : '<=';
        part =
          sense === 'max' ? whereCompared(part, bound, op, other, sense) : whereCompared(part, other, op, bound, sense);
      });
      return { domain: part, value: bound };
    })
    .filter((p) => !p.domain.isEmpty());
}

/** The pieces' values that are affine: divisor 1, or a divisor that divides exactly. */
function candidates(pieces: readonly Piece[]): Linear[] {
  const out: Linear[] = [];
  for (const { value } of pieces) {
    const exact = asAffine(value);
    if (exact && !out.some((c) => c.equals(exact))) out.push(exact);
  }
  return out;
}

function asAffine({ expr, divisor }: Bound): Linear | undefined {
  if (divisor === 1) return expr;
  const divisible = expr.constant % divisor === 0 && [...expr.coeffs.values()].every((c) => c % divisor === 0);
  return divisible
    ? Linear.of(
        [...expr.coeffs].map(([n, c]) => [n, c / divisor] as const),
        expr.constant / divisor,
      )
    : undefined;
}

/**
 * The valid candidate that is below (above) all others wherever the terms live, else
 * the first. Judged on the terms' sets, not only the context: with an outer iname
 * kept as a symbol, `16*i_outer` beats `0` because the set says `i_outer >= 0`.
 */
function tightest(valid: readonly Linear[], where: readonly BasicSet[], sense: Sense): Linear {
  const atMost = (a: Linear, b: Linear) => where.every((w) => w.implies(ge(sense === 'max' ? b.sub(a) : a.sub(b))));
  return valid.find((c) => valid.every((o) => o === c || atMost(c, o))) ?? valid[0]!;
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}
