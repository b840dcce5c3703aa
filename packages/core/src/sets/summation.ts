/**
 * Exact sums of a quasi-polynomial over the integer points of a polyhedron: the engine of
 * counting (card.ts). The variables are summed away one at a time:
 *
 *  - an equality with a unit coefficient substitutes its variable; one without is
 *    rewritten by Pugh's "mod-hat" step (a bijective change of variables) until it has
 *    one, or, when a single summed variable is left in it, that variable becomes an
 *    existential of the result's domain (a stride condition on the parameters);
 *  - otherwise a variable x with lower bounds a·x >= L and upper bounds b·x <= U is
 *    summed per "chamber": the region where one lower bound is the largest and one
 *    upper bound the smallest. Rounding is monotone, so the largest ceil(L/a) is the
 *    ceil of the largest L/a: chambers are cut by affine comparisons of the bounds, and
 *    in each one Σ_{x = ceil(L/a)..floor(U/b)} is Faulhaber's sum (faulhaber.ts), valid
 *    wherever L/a <= U/b (which the chamber requires; elsewhere there is no point);
 *  - where x sits inside a floor atom of the summand, x is split by residue first
 *    (x = D·x' + r for r = 0..D-1), which takes it out of the atoms.
 *
 * Chambers are disjoint, so the pieces of the result are. Every step is exact; a set that
 * would need too many pieces is refused with a LoomError, never approximated.
 */
import { LoomError } from '../errors.ts';
import { Linear } from '../linear.ts';
import { type Constraint, eliminateWith, ge, isFalse, substitute, tidy } from './constraint.ts';
import { sumOverRange } from './faulhaber.ts';
import { freshName } from './names.ts';
import { hasIntegerPoint, implies } from './omega.ts';
import { QPolynomial } from './quasi-polynomial.ts';

/** A piece of a sum: its value where `constraints` hold (over parameters and `existentials`). */
export interface SumPiece {
  readonly constraints: readonly Constraint[];
  readonly existentials: readonly string[];
  readonly value: QPolynomial;
}

interface State {
  readonly constraints: readonly Constraint[];
  /** Variables still to sum over. */
  readonly vars: readonly string[];
  readonly summand: QPolynomial;
  /** Variables that became existentials of the result's domain. */
  readonly kept: readonly string[];
}

/** Beyond this many states, a set is too complex to count (and would be too slow). */
const MAX_STATES = 20_000;

/** Σ of `summand` over the integer points of `vars` satisfying `constraints`, as pieces over the other variables. */
export function sumOver(
  constraints: readonly Constraint[],
  vars: readonly string[],
  summand: QPolynomial,
  describe: () => string,
): SumPiece[] {
  const out: SumPiece[] = [];
  const stack: State[] = [{ constraints, vars, summand, kept: [] }];
  let states = 0;
  while (stack.length > 0) {
    if (++states > MAX_STATES) {
      throw new LoomError(
        `counting the points of ${describe()} exactly needs more than ${MAX_STATES} pieces; Loom does not count it (it never approximates)`,
      );
    }
    const state = stack.pop()!;
    const cs = tidy(state.constraints);
    if (isFalse(cs) || state.summand.isZero) continue;
    if (state.vars.length === 0) {
      out.push({ constraints: cs, existentials: state.kept, value: state.summand });
      continue;
    }
    stack.push(...step({ ...state, constraints: cs }, describe));
  }
  return out;
}

function step(s: State, describe: () => string): State[] {
  const summed = new Set(s.vars);
  const equality = s.constraints.find((c) => c.kind === 'eq' && c.expr.variables.some((v) => summed.has(v)));
  if (equality) return useEquality(s, equality);
  const x = chooseVariable(s);
  const atoms = s.summand.atomsWith(x);
  if (atoms.length > 0)
    return splitByResidue(
      s,
      x,
      atoms.reduce((d, a) => lcm(d, a.den / gcd(a.expr.coeff(x), a.den)), 1),
    );
  return chambers(s, x, describe);
}

// ---- equalities --------------------------------------------------------------------------

function useEquality(s: State, eq: Constraint): State[] {
  const inEq = s.vars.filter((v) => eq.expr.dependsOn(v));
  const unit = inEq.find((v) => Math.abs(eq.expr.coeff(v)) === 1);
  if (unit !== undefined) {
    // a·x + R = 0 with a = ±1: x = -a·R
    const a = eq.expr.coeff(unit);
    const value = eq.expr.without([unit]).scale(-a);
    return [
      {
        constraints: s.constraints.filter((c) => c !== eq).map((c) => substitute(c, unit, value)),
        vars: s.vars.filter((v) => v !== unit),
        summand: s.summand.substituteAffine(unit, value),
        kept: s.kept,
      },
    ];
  }
  if (inEq.length === 1) {
    // a·x + R = 0, |a| > 1, R free of summed variables: x = -R/a where a divides R; x stays
    // as the existential of that stride condition and leaves everything else
    const x = inEq[0]!;
    const a = eq.expr.coeff(x);
    const rest = eq.expr.without([x]);
    return [
      {
        constraints: s.constraints.map((c) => (c === eq ? c : eliminateWith(c, eq, x))),
        vars: s.vars.filter((v) => v !== x),
        summand: s.summand.substituteAffine(x, a > 0 ? rest.negate() : rest, Math.abs(a)),
        kept: [...s.kept, x],
      },
    ];
  }
  return [modHatStep(s, eq, inEq)];
}

/**
 * Pugh's step for an equality Σ a_i·x_i + c = 0 without a unit coefficient on a summed
 * variable: with x_k the summed variable of least |a_k| and m = |a_k| + 1,
 * x_k = sign(a_k)·(Σ_{i≠k} modhat(a_i)·x_i + modhat(c) - m·σ) for a unique integer σ. The
 * change of variables is a bijection, so sums are unchanged; the equality's other
 * summed coefficients shrink, so a unit one, or a single summed variable, comes.
 */
function modHatStep(s: State, eq: Constraint, inEq: readonly string[]): State {
  const k = inEq.reduce((best, v) => (Math.abs(eq.expr.coeff(v)) < Math.abs(eq.expr.coeff(best)) ? v : best));
  const ak = eq.expr.coeff(k);
  const m = Math.abs(ak) + 1;
  const sigma = freshName('σ');
  const others = [...eq.expr.coeffs].filter(([n]) => n !== k).map(([n, c]) => [n, modHat(c, m)] as const);
  const value = Linear.of([...others, [sigma, -m]], modHat(eq.expr.constant, m)).scale(Math.sign(ak));
  return {
    constraints: s.constraints.map((c) => substitute(c, k, value)),
    vars: s.vars.map((v) => (v === k ? sigma : v)),
    summand: s.summand.substituteAffine(k, value),
    kept: s.kept,
  };
}

function modHat(a: number, m: number): number {
  return a - m * Math.floor((2 * a + m) / (2 * m));
}

// ---- choosing what to sum next -----------------------------------------------------------

/**
 * The cheapest variable: few chambers, no floors created over variables still to sum
 * (a bound with a coefficient other than 1 on x becomes a floor), no residue split.
 */
function chooseVariable(s: State): string {
  let best = s.vars[0]!;
  let bestCost = Infinity;
  for (const x of s.vars) {
    let lower = 0;
    let upper = 0;
    let floorsOverSummed = 0;
    for (const c of s.constraints) {
      const a = c.expr.coeff(x);
      if (a === 0) continue;
      if (a > 0) lower++;
      else upper++;
      if (Math.abs(a) !== 1 && c.expr.variables.some((v) => v !== x && s.vars.includes(v))) floorsOverSummed++;
    }
    const residue = s.summand.atomsWith(x).length > 0 ? 1 : 0;
    const cost = Math.max(1, lower) * Math.max(1, upper) + 50 * floorsOverSummed + 1000 * residue;
    if (cost < bestCost) [best, bestCost] = [x, cost];
  }
  return best;
}

// ---- residue split -----------------------------------------------------------------------

/** x = D·x' + r for each r in [0, D): the floors of x over D become affine in x'. */
function splitByResidue(s: State, x: string, D: number): State[] {
  const out: State[] = [];
  for (let r = 0; r < D; r++) {
    const fresh = freshName(x.split('~')[0]);
    const value = Linear.of([[fresh, D]], r);
    out.push({
      constraints: s.constraints.map((c) => substitute(c, x, value)),
      vars: s.vars.map((v) => (v === x ? fresh : v)),
      summand: s.summand.substituteAffine(x, value),
      kept: s.kept,
    });
  }
  return out;
}

// ---- chambers ----------------------------------------------------------------------------

interface Bound {
  readonly constraint: Constraint;
  /** Coefficient of x, made positive: a·x >= value (lower) or a·x <= value (upper). */
  readonly a: number;
  readonly value: Linear;
}

function chambers(s: State, x: string, describe: () => string): State[] {
  const rest = s.constraints.filter((c) => !c.expr.dependsOn(x));
  let lowers: Bound[] = [];
  let uppers: Bound[] = [];
  for (const c of s.constraints) {
    const a = c.expr.coeff(x);
    if (a === 0) continue;
    const other = c.expr.without([x]);
    // a·x + R >= 0: x >= -R/a (a > 0); x <= R/|a| (a < 0)
    if (a > 0) lowers.push({ constraint: c, a, value: other.negate() });
    else uppers.push({ constraint: c, a: -a, value: other });
  }
  if (lowers.length === 0 || uppers.length === 0) {
    if (!hasIntegerPoint(s.constraints)) return [];
    throw new LoomError(
      `cannot count the points of ${describe()}: '${x.split('~')[0]}' has no ${lowers.length === 0 ? 'lower' : 'upper'} bound, so there are infinitely many`,
    );
  }
  // bounds the others imply make chambers that are empty: drop them first
  // (each test against what is left: two bounds that imply each other must not both go)
  lowers = withoutImplied(lowers, s.constraints);
  uppers = withoutImplied(uppers, [...rest, ...lowers.map((b) => b.constraint), ...uppers.map((b) => b.constraint)]);

  const out: State[] = [];
  lowers.forEach((lo, i) => {
    uppers.forEach((up, j) => {
      const conditions: Constraint[] = [];
      // lo is the largest lower bound (the first one on ties): a_k·L_i - a_i·L_k >= 0 (> 0 for k < i)
      lowers.forEach((other, k) => {
        if (k !== i)
          conditions.push(
            ge(
              lo.value
                .scale(other.a)
                .sub(other.value.scale(lo.a))
                .sub(k < i ? 1 : 0),
            ),
          );
      });
      // up is the smallest upper bound: b_j·U_k - b_k·U_j >= 0 (> 0 for k < j)
      uppers.forEach((other, k) => {
        if (k !== j)
          conditions.push(
            ge(
              other.value
                .scale(up.a)
                .sub(up.value.scale(other.a))
                .sub(k < j ? 1 : 0),
            ),
          );
      });
      // some rational x between them: L/a <= U/b
      conditions.push(ge(up.value.scale(lo.a).sub(lo.value.scale(up.a))));
      const constraints = tidy([...rest, ...conditions]);
      if (isFalse(constraints) || !hasIntegerPoint(constraints)) return;
      const first = QPolynomial.ceil(lo.value, lo.a);
      const last = QPolynomial.floor(up.value, up.a);
      out.push({
        constraints,
        vars: s.vars.filter((v) => v !== x),
        summand: sumOverRange(s.summand, x, first, last),
        kept: s.kept,
      });
    });
  });
  return out;
}

/** The bounds that the system without them does not imply (one kept at least). */
function withoutImplied(bounds: Bound[], system: readonly Constraint[]): Bound[] {
  let kept = [...bounds];
  for (const b of bounds) {
    if (kept.length === 1) break;
    const others = system.filter(
      (c) => c !== b.constraint && (kept.some((k) => k.constraint === c) || !bounds.some((x) => x.constraint === c)),
    );
    if (implies(others, b.constraint)) kept = kept.filter((k) => k !== b);
  }
  return kept;
}

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}
