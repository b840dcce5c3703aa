/**
 * Exact simplification of existential variables: a set keeps an existential only when
 * removing it would change the set's integer points (or would need a disjunction).
 *
 *  - unused: dropped;
 *  - in an equality with a unit coefficient: substituted away;
 *  - in an equality `a·e + W = 0` with |a| > 1: the equality is used to remove e from the
 *    other constraints (exact, the equality stays), leaving a pure stride "W ≡ 0 mod a";
 *    W's coefficients are then reduced mod a (replacing e by e + k·x), which can make
 *    the stride vanish or give another existential a unit coefficient;
 *  - only in inequalities: dropped with them when it is unbounded on one side, replaced
 *    by Fourier–Motzkin's shadow when that is exact (a unit coefficient in every pair,
 *    or a real shadow that implies the dark shadow), or by its one possible least (or
 *    greatest) value when the other variables' bounds pin that down (`pinned`);
 *  - otherwise kept.
 */
import { Linear } from '../linear.ts';
import { type Constraint, eliminateWith, ge, isFalse, tidy } from './constraint.ts';
import {
  bestEquality,
  darkShadow,
  eliminateByEquality,
  isExact,
  realShadow,
  splitOn,
  type Split,
} from './fourier-motzkin.ts';
import { implies } from './omega.ts';
import { eliminateApprox } from './projection.ts';
import { type PositionalConstraint, canonicalForm, fromPositions, setCache, toPositions } from './canonical.ts';

export interface System {
  readonly constraints: readonly Constraint[];
  readonly existentials: readonly string[];
}

const MAX_ROUNDS = 64;

interface PositionalSystem {
  readonly constraints: readonly PositionalConstraint[];
  readonly existentials: readonly number[];
}

const simplified = setCache<PositionalSystem>();

export function simplifyExistentials(constraints: readonly Constraint[], existentials: readonly string[]): System {
  // every set operation ends here: remembered up to renaming (canonical.ts). Existentials the
  // constraints do not mention are dropped without effect; the others' order is the order
  // they are simplified in, so it is part of the key. Without existentials it is tidying alone.
  if (existentials.length === 0) return { constraints: tidy(constraints), existentials: [] };
  const form = canonicalForm(constraints);
  const used = existentials.flatMap((e) => form.index.get(e) ?? []);
  const key = `${form.key}|${used.join(',')}`;
  const known = simplified.get(key);
  if (known)
    return {
      constraints: fromPositions(known.constraints, form.names),
      existentials: known.existentials.map((i) => form.names[i]!),
    };
  const out = simplify(constraints, existentials);
  simplified.set(key, {
    constraints: toPositions(out.constraints, form.index),
    existentials: out.existentials.map((e) => form.index.get(e)!),
  });
  return out;
}

function simplify(constraints: readonly Constraint[], existentials: readonly string[]): System {
  let cs = tidy(constraints);
  let exists = [...existentials];
  for (let round = 0; round < MAX_ROUNDS && !isFalse(cs); round++) {
    let changed = false;
    for (const e of [...exists]) {
      const step = simplifyOne(cs, e);
      if (!step) continue;
      changed = true;
      cs = step.constraints;
      if (step.removed) exists = exists.filter((x) => x !== e);
      if (isFalse(cs)) break;
    }
    if (!changed) break;
  }
  // An empty set needs no existentials; anything still unused is dropped too.
  if (isFalse(cs)) return { constraints: cs, existentials: [] };
  return { constraints: cs, existentials: exists.filter((e) => cs.some((c) => c.expr.dependsOn(e))) };
}

interface Step {
  readonly constraints: Constraint[];
  readonly removed: boolean;
}

/** One simplification of `e`, or undefined when none applies. */
function simplifyOne(cs: readonly Constraint[], e: string): Step | undefined {
  const uses = cs.filter((c) => c.expr.dependsOn(e));
  if (uses.length === 0) return { constraints: [...cs], removed: true };

  const pivot = bestEquality(cs, e);
  if (pivot) {
    if (Math.abs(pivot.expr.coeff(e)) === 1) return { constraints: eliminateByEquality(cs, pivot, e), removed: true };
    if (uses.length > 1) {
      const isolated = cs.map((c) => (c === pivot ? c : eliminateWith(c, pivot, e)));
      return { constraints: tidy(isolated), removed: false };
    }
    const reduced = reduceStride(pivot, e);
    if (reduced.expr.equals(pivot.expr)) return undefined;
    return { constraints: tidy(cs.map((c) => (c === pivot ? reduced : c))), removed: false };
  }

  const split = splitOn(cs, e);
  if (split.lower.length === 0 || split.upper.length === 0) return { constraints: tidy(split.rest), removed: true };
  if (isExact(split)) return { constraints: realShadow(split), removed: true };
  // The integer projection lies between the dark and the real shadow: when the real
  // shadow implies the dark one, the two coincide with it.
  const real = realShadow(split);
  if (darkShadow(split).every((c) => implies(real, c))) return { constraints: real, removed: true };
  return pinned(split);
}

/**
 * `exists e: -j <= 96e < m - j` with `0 <= j <= 95` (a split loop seen from its inner
 * index): e's lower bound, ceil(-j/96), is 0 for every j the other constraints allow, so
 * e exists iff e = 0 fits the upper bounds: `0 < m - j`. In general: when a lower bound
 * of e has the same ceiling over the box the single-variable constraints give its
 * variables, and the other constraints keep every other lower bound at or below the
 * largest such ceiling (`-2560o - j <= 96e` beside `-j <= 96e`, with o >= 0: the
 * bound of an outer split, whose range is no box), that ceiling is e's least value, and
 * e exists iff it meets every upper bound (the same with the roles of the bounds exchanged).
 */
function pinned(split: Split): Step | undefined {
  const e = split.variable;
  const box = variableRanges(
    split.rest,
    new Set([...split.lower, ...split.upper].flatMap((c) => c.expr.variables.filter((v) => v !== e))),
  );
  // The value e is pinned to on one side: the extreme of the bounds' constant roundings, if
  // every other bound of that side is implied no further (a·e + R >= 0 at that value).
  const side = (
    bounds: readonly Constraint[],
    round: (x: number) => number,
    sign: 1 | -1,
    extreme: (...xs: number[]) => number,
  ): number | undefined => {
    const values: number[] = [];
    for (const c of bounds) {
      // a·e + R >= 0: e >= -R/a (a > 0), e <= R/|a| (a < 0)
      const a = c.expr.coeff(e);
      const range = rangeOf(c.expr.without([e]).scale(-sign), box);
      if (!range) continue;
      const [lo, hi] = [round(range[0] / Math.abs(a)), round(range[1] / Math.abs(a))];
      if (lo === hi) values.push(lo);
    }
    if (values.length === 0) return undefined;
    const at = extreme(...values);
    const within = (c: Constraint) => implies(split.rest, ge(c.expr.substitute(e, Linear.constant(at))));
    return bounds.every(within) ? at : undefined;
  };
  const least = side(split.lower, Math.ceil, 1, Math.max);
  if (least !== undefined)
    return {
      constraints: tidy([...split.rest, ...split.upper.map((u) => ge(u.expr.substitute(e, Linear.constant(least))))]),
      removed: true,
    };
  const greatest = side(split.upper, Math.floor, -1, Math.min);
  if (greatest !== undefined)
    return {
      constraints: tidy([
        ...split.rest,
        ...split.lower.map((l) => ge(l.expr.substitute(e, Linear.constant(greatest)))),
      ]),
      removed: true,
    };
  return undefined;
}

/**
 * For each variable, an interval the constraints allow it (missing sides are infinite): from
 * the constraints with the other variables projected away, then narrowed by propagating the
 * intervals through each constraint a few times. Both steps keep every integer point, so
 * the intervals are sound for deciding that a bound is pinned.
 */
function variableRanges(cs: readonly Constraint[], wanted: ReadonlySet<string>): Map<string, [number, number]> {
  const all = [...new Set(cs.flatMap((c) => c.expr.variables))];
  const ranges = new Map<string, [number, number]>(all.map((v) => [v, [-Infinity, Infinity]]));
  const narrow = (v: string, lo: number, hi: number) => {
    const [l, h] = ranges.get(v)!;
    ranges.set(v, [Math.max(l, lo), Math.min(h, hi)]);
  };
  for (const v of all.filter((x) => wanted.has(x) || cs.some((c) => c.expr.dependsOn(x)))) {
    for (const c of eliminateApprox(
      cs,
      all.filter((x) => x !== v),
    )) {
      if (c.expr.variables.length !== 1) continue;
      const k = c.expr.coeff(v);
      const at = -c.expr.constant / k;
      if (c.kind === 'eq') narrow(v, at, at);
      else if (k > 0) narrow(v, Math.ceil(at), Infinity);
      else narrow(v, -Infinity, Math.floor(at));
    }
  }
  // k·v + R >= 0: v >= ceil(-max(R)/k) for k > 0, v <= floor(max(R)/|k|) for k < 0 (equalities both ways)
  for (let round = 0; round < 3; round++) {
    for (const c of cs) {
      for (const v of c.expr.variables) {
        const k = c.expr.coeff(v);
        const rest = rangeOf(c.expr.without([v]), ranges, true);
        if (!rest) continue;
        if (k > 0 || c.kind === 'eq') {
          if (k > 0) narrow(v, Math.ceil(-rest[1] / k), c.kind === 'eq' ? Math.floor(-rest[0] / k) : Infinity);
          else narrow(v, Math.ceil(rest[0] / -k), Math.floor(rest[1] / -k));
        } else narrow(v, -Infinity, Math.floor(rest[1] / -k));
      }
    }
  }
  return ranges;
}

/**
 * The interval of a linear expression over the box, or undefined where a variable is unbounded
 * (`infinite`: the sides unbounded variables make infinite are given as such instead).
 */
function rangeOf(
  expr: Linear,
  box: ReadonlyMap<string, [number, number]>,
  infinite = false,
): [number, number] | undefined {
  let lo = expr.constant;
  let hi = expr.constant;
  for (const v of expr.variables) {
    const r = box.get(v);
    if (!infinite && (!r || !Number.isFinite(r[0]) || !Number.isFinite(r[1]))) return undefined;
    if (!r) return [-Infinity, Infinity];
    const k = expr.coeff(v);
    lo += k > 0 ? k * r[0] : k * r[1];
    hi += k > 0 ? k * r[1] : k * r[0];
  }
  return [lo, hi];
}

/**
 * `a·e + Σ c_i·x_i + c = 0`, with e nowhere else, only says Σ c_i·x_i + c ≡ 0 (mod a):
 * each c_i may be replaced by its remainder closest to zero, the constant by its
 * remainder in [0, |a|).
 */
function reduceStride(pivot: Constraint, e: string): Constraint {
  const a = pivot.expr.coeff(e);
  const m = Math.abs(a);
  const coeffs = [...pivot.expr.coeffs].map(([n, c]) => [n, n === e ? c : closestRemainder(c, m)] as const);
  const constant = ((pivot.expr.constant % m) + m) % m;
  return { kind: 'eq', expr: Linear.of(coeffs, constant) };
}

function closestRemainder(c: number, m: number): number {
  const r = ((c % m) + m) % m;
  return r > m / 2 ? r - m : r;
}
