/**
 * `card(set)`: the number of integer points of a parametric set, exactly, as a piecewise
 * quasi-polynomial in its parameters (isl's `card`, barvinok's job, for the sets loop
 * nests make): `card({ [i, j] : 0 <= i < n and 0 <= j < m })` is `n * m` where n, m > 0.
 *
 * Before summing (summation.ts):
 *  - existentials count as variables of the set when each point of the set has exactly
 *    one value of them (a stride `i = 3e`, a split's hidden half); a projection where a
 *    point has several is refused with a LoomError (counting it needs more than sums);
 *  - the two halves of a split are merged back (`0 <= i_in < 16` with `16*i_out + i_in`
 *    everywhere else is one variable again), so a split loop counts as the loop it was.
 * After: redundant constraints of the pieces' domains are dropped.
 */
import { LoomError } from '../errors.ts';
import { Linear } from '../linear.ts';
import { BasicSet } from './basic-set.ts';
import { type Constraint, ge, renameIn } from './constraint.ts';
import { freshName } from './names.ts';
import { hasIntegerPoint } from './omega.ts';
import { removeRedundant } from './projection.ts';
import { PwQPolynomial, type QPiece } from './pw-qpolynomial.ts';
import { QPolynomial } from './quasi-polynomial.ts';
import { sumOver, type SumPiece } from './summation.ts';

/** The number of points of `set` (its dims; existentials projected away), over `params` and the set's own. */
export function card(set: BasicSet, params: readonly string[] = []): PwQPolynomial {
  const space = [...new Set([...params, ...set.params])].sort();
  if (set.isEmpty()) return PwQPolynomial.zero(space);
  requireUniqueExistentials(set);
  // Redundant constraints go first, the ones on fewer variables tested first: a projection
  // leaves `i_outer >= 0` beside `4*i_outer + i_inner_outer >= 0`, and only without it do
  // the halves of the split show as such.
  const byVariables = [...set.constraints].sort((a, b) => a.expr.variables.length - b.expr.variables.length);
  const merged = mergeSplits(removeRedundant(byVariables), [...set.dims, ...set.existentials]);
  const pieces = sumOver(merged.constraints, merged.vars, QPolynomial.ONE, () => set.toString());
  return PwQPolynomial.fromPieces(space, pieces.map(simplified));
}

/** Each existential must be a function of the set's variables and parameters. */
function requireUniqueExistentials(set: BasicSet): void {
  if (set.existentials.length === 0) return;
  const copy = new Map(set.existentials.map((e) => [e, freshName('e')] as const));
  const twice = [...set.constraints, ...set.constraints.map((c) => ({ kind: c.kind, expr: renameIn(c.expr, copy) }))];
  for (const [e, other] of copy) {
    // two points with the same variables but different e?
    if (hasIntegerPoint([...twice, ge(Linear.variable(other).sub(Linear.variable(e)).sub(1))])) {
      throw new LoomError(
        `cannot count the points of ${set.toString()} exactly: it is a projection in which some points stand for several values of a projected-out variable; Loom counts sums over loops, not such projections`,
      );
    }
  }
}

/**
 * Undoes splits for counting: a variable `inner` with constant bounds lo <= inner <= hi
 * (f = hi - lo + 1 values), and a variable `outer` whose coefficient is f times inner's
 * in every other constraint, only ever appear as f·outer + inner; t = f·outer + inner - lo
 * runs over the integers as (outer, inner) runs over Z × [lo, hi], one to one.
 */
function mergeSplits(
  constraints: readonly Constraint[],
  vars: readonly string[],
): { constraints: Constraint[]; vars: string[] } {
  let cs = [...constraints];
  let vs = [...vars];
  for (let changed = true; changed; ) {
    changed = false;
    for (const inner of vs) {
      const range = constantRange(cs, inner);
      if (!range) continue;
      const others = cs.filter((c) => c !== range.lower && c !== range.upper);
      const f = range.hi - range.lo + 1;
      const outer = vs.find(
        (o) =>
          o !== inner &&
          others.some((c) => c.expr.dependsOn(o)) &&
          others.every((c) => c.expr.coeff(o) === f * c.expr.coeff(inner)),
      );
      if (outer === undefined) continue;
      const t = freshName(inner.split('~')[0]);
      cs = others.map((c) => {
        const a = c.expr.coeff(inner);
        return { kind: c.kind, expr: c.expr.without([inner, outer]).add(Linear.variable(t, a).add(a * range.lo)) };
      });
      vs = [...vs.filter((v) => v !== inner && v !== outer), t];
      changed = true;
      break;
    }
  }
  return { constraints: cs, vars: vs };
}

/** `lo <= v <= hi` from two constraints on v alone, if there are such. */
function constantRange(
  cs: readonly Constraint[],
  v: string,
): { lower: Constraint; upper: Constraint; lo: number; hi: number } | undefined {
  const alone = cs.filter(
    (c) => c.kind === 'ge' && c.expr.variables.length === 1 && c.expr.dependsOn(v) && Math.abs(c.expr.coeff(v)) === 1,
  );
  const lower = alone.find((c) => c.expr.coeff(v) === 1);
  const upper = alone.find((c) => c.expr.coeff(v) === -1);
  if (!lower || !upper) return undefined;
  return { lower, upper, lo: -lower.expr.constant, hi: upper.expr.constant };
}

/** A piece with its domain's redundant constraints dropped (values are simplified for printing). */
function simplified(p: SumPiece): QPiece {
  return { domain: BasicSet.fromConstraints([], [], removeRedundant(p.constraints), p.existentials), value: p.value };
}
