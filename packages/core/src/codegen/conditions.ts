/** Turning sets and bounds into expressions: loop bounds, guards, divisibility tests. */
import { LoomError } from '../errors.ts';
import { binary, compare, int, logical, type Expr } from '../expr/nodes.ts';
import { fromLinear, simplify } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Bound, type Constraint } from '../sets/index.ts';
import { assign, normalize } from '../sets/constraint.ts';
import type { Instruction } from '../kernel/model.ts';

export type Side = 'lower' | 'upper';

/** `iname >= ceil(expr/d)` or `iname <= floor(expr/d)` as a constraint. */
export function boundConstraint(iname: string, b: Bound, side: Side): Constraint {
  return side === 'lower'
    ? { kind: 'ge', expr: Linear.variable(iname, b.divisor).sub(b.expr) }
    : { kind: 'ge', expr: b.expr.sub(Linear.variable(iname, b.divisor)) };
}

/** Drops bounds that the others (with what is enforced) already imply. */
export function nonRedundant(bounds: readonly Bound[], side: Side, iname: string, enforced: BasicSet): Bound[] {
  const unique = bounds.filter(
    (b, k) => bounds.findIndex((c) => c.divisor === b.divisor && c.expr.equals(b.expr)) === k,
  );
  if (unique.length <= 1) return unique;
  const kept = [...unique];
  for (const b of unique) {
    const others = kept.filter((c) => c !== b);
    if (others.length === 0) break;
    const set = withDim(enforced, iname).addConstraints(others.map((o) => boundConstraint(iname, o, side)));
    if (set.implies(boundConstraint(iname, b, side))) kept.splice(kept.indexOf(b), 1);
  }
  return kept;
}

/**
 * A guard (a gisted set) that depends on a vector lane the same way for every lane, as the
 * last lane's: `128*g + 4*l + lane <= 4099` holds for every lane of a vector exactly when
 * `128*g + 4*l + 3 <= 4099` does (the first lane's index is a multiple of 4, so are the
 * vectors of a row of 4100). The lanes then stay one vector statement under one guard. The
 * guard as it was where lanes may differ (or with existentials, which are not substituted).
 */
export function laneUniformGuard(guard: BasicSet, context: BasicSet, lane: string, last: number): BasicSet {
  if (guard.existentials.length || !guard.constraints.some((c) => c.expr.dependsOn(lane))) return guard;
  const atLast = guard.constraints.map((c) => ({ kind: c.kind, expr: c.expr.substitute(lane, Linear.constant(last)) }));
  // equivalent where the context holds: each implies the other, on every lane
  const underGuard = context.addConstraints(guard.constraints);
  const underLast = context.addConstraints(atLast);
  if (!atLast.every((c) => underGuard.implies(c)) || !guard.constraints.every((c) => underLast.implies(c)))
    return guard;
  return BasicSet.fromConstraints(guard.params, guard.dims, atLast);
}

/**
 * A guard with the values the context pins (an unrolled copy's iname: `u = 1`) put in, each
 * constraint then tightened on the integers: the copy for 1 of `4*l + u <= 7` guards with
 * `l <= 1`, as the copies for 0, 2 and 3 do, so that adjacent copies share one `if` (a run of
 * copies of consecutive elements can then become one wide move). Where no value is pinned, or
 * a constraint would turn false (a copy that never runs keeps its own guard), the guard as it was.
 */
export function withPinnedValues(guard: BasicSet, context: BasicSet): BasicSet {
  const pinned = new Map<string, number>();
  for (const c of context.constraints) {
    const [name, ...more] = c.expr.variables;
    const k = name === undefined ? 0 : c.expr.coeff(name);
    if (c.kind === 'eq' && more.length === 0 && Math.abs(k) === 1) pinned.set(name!, -c.expr.constant / k);
  }
  if (guard.existentials.length || !guard.constraints.some((c) => c.expr.variables.some((v) => pinned.has(v))))
    return guard;
  const tightened: Constraint[] = [];
  for (const c of guard.constraints) {
    const n = normalize({ kind: c.kind, expr: assign(c.expr, pinned) });
    if (n === false) return guard;
    if (n !== true) tightened.push(n);
  }
  return BasicSet.fromConstraints(guard.params, guard.dims, tightened);
}

export function withDim(set: BasicSet, name: string): BasicSet {
  return set.dims.includes(name) || set.params.includes(name) ? set : set.addDims([name]);
}

/**
 * ceil(e/d) = (e + d - 1) // d ; floor(e/d) = e // d. Where the enclosing code
 * guarantees a non-negative numerator, C's truncating `/` gives the same value and
 * reads better (loopy's `(15 + n) / 16` under `n >= 0`).
 */
export function boundExpr(b: Bound, side: Side, enforced?: BasicSet): Expr {
  if (b.divisor === 1) return fromLinear(b.expr);
  const numerator = side === 'lower' ? b.expr.add(b.divisor - 1) : b.expr;
  const nonNegative = (e: Linear) => enforced?.implies({ kind: 'ge', expr: e }) ?? false;
  if (nonNegative(numerator)) return binary('/', fromLinear(numerator), int(b.divisor));
  // floor(e/d) = floor((e + k*d)/d) - k: one shift often makes the numerator non-negative
  for (const k of [1, 2]) {
    const shifted = numerator.add(k * b.divisor);
    if (nonNegative(shifted)) return binary('-', binary('/', fromLinear(shifted), int(b.divisor)), int(k));
  }
  return binary('//', fromLinear(numerator), int(b.divisor));
}

export function combineBounds(bounds: readonly Bound[], side: Side, enforced?: BasicSet): Expr {
  const exprs = bounds.map((b) => boundExpr(b, side, enforced));
  return exprs
    .slice(1)
    .reduce<Expr>((acc, x) => ({ kind: 'call', fn: side === 'lower' ? 'max' : 'min', args: [acc, x] }), exprs[0]);
}

/** The constraints of a (gisted) set as one condition, or undefined when none remain. */
export function constraintsToCondition(set: BasicSet, insn: Instruction): Expr | undefined {
  const existentials = new Set(set.existentials);
  const parts: Expr[] = [];
  // an existential bounded by inequalities alone, each its only one: exists as floor divisions
  const bounded = set.existentials.filter((e) => onlyInInequalities(set, e, existentials));
  for (const e of bounded) parts.push(...existsBetweenBounds(set, e));
  for (const c of set.constraints) {
    if (bounded.some((e) => c.expr.dependsOn(e))) continue;
    const ex = c.expr.variables.filter((v) => existentials.has(v));
    if (ex.length === 0) {
      parts.push(linearCondition(c, set.dims));
      continue;
    }
    if (c.kind === 'eq' && ex.length === 1) {
      const k = Math.abs(c.expr.coeff(ex[0]));
      let rest = c.expr.without(ex);
      // divisibility reads better with a positive leading coefficient: i % 3 == 0
      if ((rest.coeffs.values().next().value ?? 0) < 0) rest = rest.negate();
      parts.push(compare('==', binary('%', fromLinear(rest), int(k)), int(0)));
      continue;
    }
    // bounds on existentials alone say nothing about the inames
    if (c.expr.variables.every((v) => existentials.has(v))) continue;
    throw new LoomError(
      `instruction '${insn.id}': cannot generate a guard for the domain constraint '${c.expr.toString()} ${c.kind === 'eq' ? '=' : '>='} 0'`,
      insn.span,
    );
  }
  if (parts.length === 0) return undefined;
  return parts.reduce((a, b) => logical('and', a, b));
}

/** `expr >= 0` written around one of the inames: `i <= n - 1`, `j >= 2`. */
function linearCondition(c: Constraint, dims: readonly string[]): Expr {
  const v = c.expr.variables.find((x) => dims.includes(x)) ?? c.expr.variables[0];
  if (v === undefined) return compare(c.kind === 'eq' ? '==' : '>=', int(c.expr.constant), int(0));
  const k = c.expr.coeff(v);
  const rest = c.expr.without([v]);
  const lhs = simplify(fromLinear(Linear.variable(v, Math.abs(k))));
  // k*v + rest >= 0  →  k>0: |k|v >= -rest ;  k<0: |k|v <= rest
  const rhs = fromLinear(k > 0 ? rest.negate() : rest);
  if (c.kind === 'eq') return compare('==', lhs, rhs);
  return compare(k > 0 ? '>=' : '<=', lhs, rhs);
}

/** `e` appears in no equality, and in no constraint beside another existential. */
function onlyInInequalities(set: BasicSet, e: string, existentials: ReadonlySet<string>): boolean {
  const uses = set.constraints.filter((c) => c.expr.dependsOn(e));
  return uses.every((c) => c.kind === 'ge' && c.expr.variables.filter((v) => existentials.has(v)).length === 1);
}

/**
 * `exists e: L_k <= a_k·e and b_j·e <= U_j` as the conditions the other variables must meet:
 * some integer lies between the bounds exactly when every lower bound's ceiling is at most
 * every upper bound's floor, ceil(L/a) <= floor(U/b) for each pair (isl's and loopy's guards
 * write it with floor divisions too). A unit coefficient on either side keeps the pair
 * linear: L <= floor(U/b) is b·L <= U.
 */
function existsBetweenBounds(set: BasicSet, e: string): Expr[] {
  const lower: { bound: Linear; coeff: number }[] = [];
  const upper: { bound: Linear; coeff: number }[] = [];
  for (const c of set.constraints) {
    if (!c.expr.dependsOn(e)) continue;
    // k·e + R >= 0: e >= -R/k for k > 0, e <= R/|k| for k < 0
    const k = c.expr.coeff(e);
    const rest = c.expr.without([e]);
    if (k > 0) lower.push({ bound: rest.negate(), coeff: k });
    else upper.push({ bound: rest, coeff: -k });
  }
  const parts: Expr[] = [];
  for (const l of lower) {
    for (const u of upper) {
      if (l.coeff === 1 || u.coeff === 1) {
        // b·L <= U, or L <= a·U
        const diff = u.bound.scale(l.coeff).sub(l.bound.scale(u.coeff));
        // two constant bounds (0 <= e <= 5) say nothing about the other variables
        if (diff.variables.length || diff.constant < 0)
          parts.push(linearCondition({ kind: 'ge', expr: diff }, set.dims));
        continue;
      }
      if (!l.bound.variables.length && !u.bound.variables.length) {
        if (Math.floor(u.bound.constant / u.coeff) < Math.ceil(l.bound.constant / l.coeff))
          parts.push(compare('>=', int(0), int(1)));
        continue;
      }
      const ceilLower = boundExpr({ expr: l.bound, divisor: l.coeff }, 'lower');
      const floorUpper = boundExpr({ expr: u.bound, divisor: u.coeff }, 'upper');
      parts.push(compare('>=', floorUpper, ceilLower));
    }
  }
  return parts;
}
