/**
 * The elimination steps shared by projection, emptiness and bounds: removing a variable
 * through an equality, and Fourier–Motzkin's shadows for inequalities.
 *
 * For a variable x with lower bounds `a·x >= L` (a > 0) and upper bounds `b·x <= U`
 * (b > 0), some integer x fits between one pair iff `ceil(L/a) <= floor(U/b)`, and
 * between all of them iff every pair fits (the largest lower bound is below the
 * smallest upper one). Per pair:
 *  - the real shadow `b·L <= a·U` is necessary, and sufficient when a = 1 or b = 1;
 *  - the dark shadow `a·U - b·L >= (a-1)(b-1)` is sufficient (the interval is long
 *    enough to hold an integer whatever the remainders).
 */
import { type Constraint, eliminateWith, ge, substitute, tidy } from './constraint.ts';
import { InternalError } from '../errors.ts';

/** The inequalities of a system, seen from one variable (which has no equality left). */
export interface Split {
  readonly variable: string;
  /** `a·x + rest >= 0` with a > 0. */
  readonly lower: readonly Constraint[];
  /** `-b·x + rest >= 0` with b > 0. */
  readonly upper: readonly Constraint[];
  /** Constraints without x. */
  readonly rest: readonly Constraint[];
}

export function splitOn(cs: readonly Constraint[], variable: string): Split {
  const lower: Constraint[] = [];
  const upper: Constraint[] = [];
  const rest: Constraint[] = [];
  for (const c of cs) {
    const a = c.expr.coeff(variable);
    if (a === 0) rest.push(c);
    else if (c.kind === 'eq') throw new InternalError(`splitOn: '${variable}' still has an equality`);
    else (a > 0 ? lower : upper).push(c);
  }
  return { variable, lower, upper, rest };
}

/** Every pair has a unit coefficient on one side, so the real shadow is the integer projection. */
export function isExact(split: Split): boolean {
  const x = split.variable;
  return (
    split.lower.every((l) => l.expr.coeff(x) === 1) ||
    split.upper.every((u) => u.expr.coeff(x) === -1) ||
    split.lower.every((l) => split.upper.every((u) => l.expr.coeff(x) === 1 || u.expr.coeff(x) === -1))
  );
}

/** Number of constraints the elimination would create: the measure for choosing what to eliminate. */
export function pairCount(split: Split): number {
  return split.lower.length * split.upper.length;
}

function shadow(split: Split, dark: boolean): Constraint[] {
  const x = split.variable;
  const out = [...split.rest];
  for (const l of split.lower) {
    const a = l.expr.coeff(x);
    for (const u of split.upper) {
      const b = -u.expr.coeff(x);
      // b·(a·x + Rl) + a·(-b·x + Ru) = b·Rl + a·Ru: x cancels.
      const combined = l.expr.scale(b).add(u.expr.scale(a));
      out.push(ge(dark ? combined.sub((a - 1) * (b - 1)) : combined));
    }
  }
  return tidy(out);
}

export const realShadow = (split: Split): Constraint[] => shadow(split, false);
export const darkShadow = (split: Split): Constraint[] => shadow(split, true);

/**
 * Removes `variable` using the equality `pivot`. With a unit coefficient this is plain
 * substitution and exact. Otherwise the other constraints are combined with the pivot
 * (exact given the pivot) and the pivot is dropped, which forgets the stride it
 * imposed: callers that need exactness keep such variables instead (see existentials.ts).
 */
export function eliminateByEquality(cs: readonly Constraint[], pivot: Constraint, variable: string): Constraint[] {
  const a = pivot.expr.coeff(variable);
  if (Math.abs(a) === 1) {
    // a·x + R = 0  =>  x = -R/a = -a·R  (a = ±1)
    const value = pivot.expr.without([variable]).scale(-a);
    return tidy(cs.filter((c) => c !== pivot).map((c) => substitute(c, variable, value)));
  }
  return tidy(cs.filter((c) => c !== pivot).map((c) => eliminateWith(c, pivot, variable)));
}

/** The equality to eliminate `variable` with: one with a unit coefficient if there is one, else the smallest. */
export function bestEquality(cs: readonly Constraint[], variable: string): Constraint | undefined {
  let best: Constraint | undefined;
  for (const c of cs) {
    if (c.kind !== 'eq' || !c.expr.dependsOn(variable)) continue;
    if (!best || Math.abs(c.expr.coeff(variable)) < Math.abs(best.expr.coeff(variable))) best = c;
  }
  return best;
}
