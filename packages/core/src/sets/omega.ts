/**
 * Exact integer emptiness: does a conjunction of constraints have an integer solution?
 *
 * This is Pugh's Omega test. Equalities are removed first (by substitution, or with the
 * "mod-hat" step that shrinks coefficients until one is ±1). Then variables are removed
 * one at a time from the inequalities: exactly when a variable has no lower (or no upper)
 * bound, or when every pair of its bounds has a unit coefficient; otherwise the real
 * shadow (empty => no solution), the dark shadow (non-empty => a solution) and, between
 * the two, the "splinters": a solution outside the dark shadow lies close to one of the
 * lower bounds, so that bound is tried as an equality at each of the few offsets left.
 *
 * Every answer is exact; soundness never depends on a heuristic, only speed does.
 */
import { Linear, floorDiv } from '../linear.ts';
import {
  type Constraint,
  FALSE,
  eq,
  isFalse,
  negation,
  normalize,
  substitute,
  tidy,
  variablesOf,
} from './constraint.ts';
import {
  type Split,
  darkShadow,
  eliminateByEquality,
  isExact,
  pairCount,
  realShadow,
  splitOn,
} from './fourier-motzkin.ts';
import { freshName } from './names.ts';
import { canonicalForm, setCache } from './canonical.ts';

const answers = setCache<boolean>();

export function hasIntegerPoint(constraints: readonly Constraint[]): boolean {
  // the answer does not depend on the variables' names (canonical.ts)
  return answers.memo(canonicalForm(constraints).key, () => search(constraints));
}

function search(constraints: readonly Constraint[]): boolean {
  let cs = tidy(constraints);
  for (;;) {
    if (isFalse(cs)) return false;
    const pivot = choosePivot(cs);
    if (pivot) {
      cs = removeEquality(cs, pivot);
      continue;
    }
    const choice = chooseVariable(cs);
    if (choice === 'none') return true; // no variable left, and tidy found no false constant
    if (choice.kind === 'unbounded') cs = [...choice.split.rest];
    else if (choice.kind === 'exact') cs = realShadow(choice.split);
    else return inexactStep(cs, choice.split);
  }
}

/** True when every integer solution of `cs` satisfies `c`. */
export function implies(cs: readonly Constraint[], c: Constraint): boolean {
  return negation(c).every((not) => !hasIntegerPoint([...cs, not]));
}

type Choice = 'none' | { kind: 'unbounded' | 'exact' | 'inexact'; split: Split };

/**
 * Prefers what is free (an unbounded variable), then exact eliminations (the fewest new
 * constraints), then the inexact elimination with the fewest splinters to try.
 */
function chooseVariable(cs: readonly Constraint[]): Choice {
  let exact: Split | undefined;
  let inexact: Split | undefined;
  let inexactCost = Infinity;
  for (const v of variablesOf(cs)) {
    const split = splitOn(cs, v);
    if (split.lower.length === 0 || split.upper.length === 0) return { kind: 'unbounded', split };
    if (isExact(split)) {
      if (!exact || pairCount(split) < pairCount(exact)) exact = split;
    } else if (!exact) {
      const cost = splinterCount(split);
      if (cost < inexactCost) [inexact, inexactCost] = [split, cost];
    }
  }
  if (exact) return { kind: 'exact', split: exact };
  if (inexact) return { kind: 'inexact', split: inexact };
  return 'none';
}

function inexactStep(cs: readonly Constraint[], split: Split): boolean {
  if (!search(realShadow(split))) return false;
  if (search(darkShadow(split))) return true;
  return splinters(split).some((equality) => search([...cs, equality]));
}

/**
 * The equalities to try when the real shadow holds and the dark one does not: an integer
 * solution outside the dark shadow lies within a few steps of one of the bounds on one
 * side (a·x + R = i, for i up to (a·m - a - m)/m with m the largest coefficient on the
 * other side). Either side will do, so the one with fewer equalities is taken: with the
 * divisions of an index (`c·q <= e <= c·q + c - 1`) one side can be far cheaper.
 */
function splinters(split: Split): Constraint[] {
  const { bounds, farCoefficient } = cheaperSide(split);
  return bounds.flatMap((c) =>
    Array.from({ length: offsets(c, split.variable, farCoefficient) }, (_, i) => eq(c.expr.sub(i))),
  );
}

const splinterCount = (split: Split): number => cheaperSide(split).count;

/** The side of `split` to splinter on (its bounds, the other side's largest coefficient) and how many equalities it takes. */
function cheaperSide(split: Split): { bounds: readonly Constraint[]; farCoefficient: number; count: number } {
  const x = split.variable;
  const side = (bounds: readonly Constraint[], far: readonly Constraint[]) => {
    const farCoefficient = Math.max(...far.map((c) => Math.abs(c.expr.coeff(x))));
    return { bounds, farCoefficient, count: bounds.reduce((n, c) => n + offsets(c, x, farCoefficient), 0) };
  };
  const low = side(split.lower, split.upper);
  const high = side(split.upper, split.lower);
  return high.count < low.count ? high : low;
}

/** How many offsets from bound `c` of x a solution outside the dark shadow may sit at. */
function offsets(c: Constraint, x: string, farCoefficient: number): number {
  const a = Math.abs(c.expr.coeff(x));
  return Math.max(0, floorDiv(a * farCoefficient - a - farCoefficient, farCoefficient) + 1);
}

/**
 * The equality to remove first: one with a unit coefficient if any (plain substitution),
 * else the one with the smallest coefficient.
 */
function choosePivot(cs: readonly Constraint[]): Constraint | undefined {
  let best: Constraint | undefined;
  let bestSize = Infinity;
  for (const c of cs) {
    if (c.kind !== 'eq') continue;
    const size = Math.min(...[...c.expr.coeffs.values()].map(Math.abs));
    if (size < bestSize) [best, bestSize] = [c, size];
  }
  return best;
}

/**
 * Removes one variable through the equality `pivot`. Without a unit coefficient, Pugh's
 * "mod-hat" step replaces a variable by a fresh one so that the pivot's coefficients
 * shrink; it is repeated on the same pivot (held apart from the other constraints, so
 * that no other equality takes its place) until a coefficient is ±1.
 */
function removeEquality(cs: readonly Constraint[], pivot: Constraint): Constraint[] {
  let rest = cs.filter((c) => c !== pivot);
  let current: Constraint = pivot;
  for (;;) {
    let k = '';
    for (const [name, c] of current.expr.coeffs) if (!k || Math.abs(c) < Math.abs(current.expr.coeff(k))) k = name;
    const ak = current.expr.coeff(k);
    if (Math.abs(ak) === 1) return eliminateByEquality([...rest, current], current, k);

    // With m = |a_k| + 1 and σ fresh, m·σ = Σ modhat(a_i)·x_i + modhat(c) holds for some
    // integer σ (both sides are ≡ 0 mod m), and modhat(a_k) = -sign(a_k), so it can be
    // solved for x_k:  x_k = sign(a_k)·(Σ_{i≠k} modhat(a_i)·x_i + modhat(c) - m·σ).
    const m = Math.abs(ak) + 1;
    const sigma = freshName('σ');
    const others = [...current.expr.coeffs].filter(([n]) => n !== k).map(([n, c]) => [n, modHat(c, m)] as const);
    const value = Linear.of([...others, [sigma, -m]], modHat(current.expr.constant, m)).scale(Math.sign(ak));
    rest = rest.map((c) => substitute(c, k, value));
    const next = normalize(substitute(current, k, value));
    if (next === false) return [FALSE];
    if (next === true) return tidy(rest);
    current = next;
  }
}

/** The remainder of a by m closest to zero (in (-m/2, m/2]). */
function modHat(a: number, m: number): number {
  return a - m * floorDiv(2 * a + m, 2 * m);
}
