/**
 * Fourier–Motzkin projection on the rationals with integer tightening: a superset of the
 * integer projection, which is what bounds need (every point satisfies them), and as
 * tight as FM gets. Exact projection keeps variables as existentials instead
 * (existentials.ts).
 */
import { type Constraint, isFalse, tidy } from './constraint.ts';
import { bestEquality, eliminateByEquality, pairCount, realShadow, splitOn } from './fourier-motzkin.ts';
import { implies } from './omega.ts';
import { type PositionalConstraint, canonicalForm, fromPositions, setCache, toPositions } from './canonical.ts';

/** Past this many constraints, redundant ones are dropped before FM multiplies them further. */
const PRUNE_ABOVE = 12;

const projections = setCache<PositionalConstraint[]>();
const redundancies = setCache<readonly boolean[]>();

/** Eliminates `names` from the system; the result constrains the other variables only. */
export function eliminateApprox(constraints: readonly Constraint[], names: readonly string[]): Constraint[] {
  // remembered up to renaming (canonical.ts); the order of `names` breaks ties, so it is part of the key
  const form = canonicalForm(constraints);
  const eliminated = names.flatMap((n) => form.index.get(n) ?? []);
  const key = `${form.key}|${eliminated.join(',')}`;
  const known = projections.get(key);
  if (known) return fromPositions(known, form.names);
  const out = project(constraints, names);
  projections.set(key, toPositions(out, form.index));
  return out;
}

function project(constraints: readonly Constraint[], names: readonly string[]): Constraint[] {
  let cs = tidy(constraints);
  const pending = new Set(names);
  while (!isFalse(cs)) {
    for (const n of pending) if (!cs.some((c) => c.expr.dependsOn(n))) pending.delete(n);
    if (pending.size === 0) break;

    // Equalities first: they remove a variable without multiplying constraints.
    const withEquality = [...pending]
      .map((v) => ({ v, pivot: bestEquality(cs, v) }))
      .filter((x): x is { v: string; pivot: Constraint } => x.pivot !== undefined)
      .sort((x, y) => Math.abs(x.pivot.expr.coeff(x.v)) - Math.abs(y.pivot.expr.coeff(y.v)));
    if (withEquality.length > 0) {
      const { v, pivot } = withEquality[0]!;
      cs = eliminateByEquality(cs, pivot, v);
    } else {
      const splits = [...pending].map((v) => splitOn(cs, v));
      splits.sort((a, b) => pairCount(a) - pairCount(b));
      cs = realShadow(splits[0]!);
    }
    if (cs.length > PRUNE_ABOVE) cs = removeRedundant(cs);
  }
  return cs;
}

/**
 * Drops inequalities that the others imply on the integers, testing them in the given
 * order (so callers put the ones they would rather lose first). Equalities stay.
 */
export function removeRedundant(constraints: readonly Constraint[]): Constraint[] {
  // which of them stay does not depend on the names (canonical.ts)
  const keep = redundancies.memo(canonicalForm(constraints).key, () => keptMask(constraints));
  return constraints.filter((_, i) => keep[i]);
}

function keptMask(constraints: readonly Constraint[]): boolean[] {
  const keep = constraints.map(() => true);
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i]!;
    const others = constraints.filter((_, j) => j !== i && keep[j]);
    if (c.kind === 'ge' && implies(others, c)) keep[i] = false;
  }
  return keep;
}
