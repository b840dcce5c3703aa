/**
 * Constraints (`expr = 0`, `expr >= 0` over named integer variables) and the small
 * integer facts the rest of the library leans on: a constraint's canonical form, its
 * negation, and `tidy`, which cleans a conjunction of constraints.
 */
import { Linear, floorDiv, gcd } from '../linear.ts';

/** `expr == 0` (kind 'eq') or `expr >= 0` (kind 'ge'). */
export interface Constraint {
  readonly kind: 'eq' | 'ge';
  readonly expr: Linear;
}

/**
 * A bound on a variable v, in terms of other variables.
 * As a lower bound: v >= ceil(expr / divisor); as an upper bound: v <= floor(expr / divisor).
 */
export interface Bound {
  readonly expr: Linear;
  readonly divisor: number;
}

export const ge = (expr: Linear): Constraint => Object.freeze({ kind: 'ge', expr });
export const eq = (expr: Linear): Constraint => Object.freeze({ kind: 'eq', expr });

/** The unsatisfiable constraint `-1 >= 0`: how an empty conjunction is written. */
export const FALSE: Constraint = ge(Linear.constant(-1));

export function isFalse(cs: readonly Constraint[]): boolean {
  return cs.length === 1 && cs[0] === FALSE;
}

/** Divides every coefficient by `d` (exactly) and the constant by `d`, rounding down. */
export function divideFloor(expr: Linear, d: number): Linear {
  return Linear.of(
    [...expr.coeffs].map(([n, c]) => [n, c / d] as const),
    floorDiv(expr.constant, d),
  );
}

/**
 * The canonical form of a constraint, or `true`/`false` when no variable is left.
 *
 * On integers, `a·x + c >= 0` with g = gcd(a) is equivalent to `(a/g)·x + floor(c/g) >= 0`:
 * the left side is a multiple of g, so it can only reach the next multiple of g. This is
 * the "integer tightening" that makes Fourier–Motzkin sharper than on the rationals. An
 * equality whose constant is not a multiple of g has no integer solution at all.
 */
export function normalize(c: Constraint): Constraint | boolean {
  const g = c.expr.coefficientGcd();
  if (g === 0) return c.kind === 'eq' ? c.expr.constant === 0 : c.expr.constant >= 0;
  if (c.kind === 'eq' && c.expr.constant % g !== 0) return false;
  return g === 1 ? c : { kind: c.kind, expr: divideFloor(c.expr, g) };
}

/** The disjuncts of `not c` (two for an equality: `e >= 1` or `e <= -1`). */
export function negation(c: Constraint): Constraint[] {
  const below = ge(c.expr.negate().sub(1)); // e <= -1
  return c.kind === 'ge' ? [below] : [ge(c.expr.sub(1)), below];
}

export function substitute(c: Constraint, name: string, value: Linear): Constraint {
  return c.expr.dependsOn(name) ? { kind: c.kind, expr: c.expr.substitute(name, value) } : c;
}

/** Replaces variables by integer values. */
export function assign(expr: Linear, values: ReadonlyMap<string, number>): Linear {
  let out = expr;
  for (const name of expr.variables) {
    const v = values.get(name);
    if (v !== undefined) out = out.substitute(name, Linear.constant(v));
  }
  return out;
}

export function renameIn(expr: Linear, renaming: ReadonlyMap<string, string>): Linear {
  return Linear.of(
    [...expr.coeffs].map(([n, c]) => [renaming.get(n) ?? n, c] as const),
    expr.constant,
  );
}

export function variablesOf(cs: readonly Constraint[]): string[] {
  const seen = new Set<string>();
  for (const c of cs) for (const n of c.expr.coeffs.keys()) seen.add(n);
  return [...seen];
}

/**
 * `first + factor·second` for forms where the product is meant to cancel a variable:
 * used by elimination, where `factor` is chosen so one coefficient becomes zero.
 */
export function combine(first: Linear, scaleFirst: number, second: Linear, scaleSecond: number): Linear {
  return first.scale(scaleFirst).add(second.scale(scaleSecond));
}

/**
 * Eliminates `name` from `c` using the equality `pivot` (which contains it): scales `c`
 * by a positive factor (so an inequality keeps its direction) and subtracts a multiple
 * of the equality. Exact, since the equality itself is kept or already used.
 */
export function eliminateWith(c: Constraint, pivot: Constraint, name: string): Constraint {
  const a = pivot.expr.coeff(name);
  const b = c.expr.coeff(name);
  if (b === 0) return c;
  const g = gcd(a, b);
  const expr = combine(c.expr, Math.abs(a) / g, pivot.expr, (-b * Math.sign(a)) / g);
  return { kind: c.kind, expr };
}

/** The variable part of a linear form as a string (sign flipped for `sign = -1`): parallel constraints share it. */
function shapeKey(expr: Linear, sign: 1 | -1 = 1): string {
  return expr.termsKeys()[sign === 1 ? 0 : 1];
}

/**
 * Cleans a conjunction without changing its integer points: normalizes every constraint,
 * drops trivially true ones and duplicates, keeps only the tightest of parallel
 * inequalities, turns a pair `e >= 0`, `-e >= 0` into `e = 0`, and settles inequalities
 * parallel to an equality. Returns `[FALSE]` when a contradiction shows up on the way.
 * The order of first appearance is kept (it is the order constraints are printed in).
 */
export function tidy(constraints: readonly Constraint[]): Constraint[] {
  // Slots keep first-appearance order; later findings may replace or delete a slot.
  const slots: (Constraint | undefined)[] = [];
  const geAt = new Map<string, number>(); // shape key of an inequality -> slot
  const eqAt = new Map<string, number>(); // shape key of an equality (either sign) -> slot
  const contradiction = [FALSE];

  for (const raw of constraints) {
    const c = normalize(raw);
    if (c === true) continue;
    if (c === false) return contradiction;
    const key = shapeKey(c.expr);
    const negKey = shapeKey(c.expr, -1);

    // An equality with the same (or opposite) variable part decides this constraint outright.
    const eqSlot = eqAt.get(key) ?? eqAt.get(negKey);
    if (eqSlot !== undefined) {
      const e = slots[eqSlot]!.expr;
      const sign = eqAt.has(key) ? 1 : -1;
      const value = c.expr.sub(e.scale(sign)).constant; // c.expr = sign·e + value, and e = 0
      if (c.kind === 'eq' ? value !== 0 : value < 0) return contradiction;
      continue;
    }

    if (c.kind === 'eq') {
      // Inequalities parallel to the new equality are now decided; re-check them.
      for (const k of [key, negKey]) {
        const at = geAt.get(k);
        if (at === undefined) continue;
        const value = slots[at]!.expr.sub(k === key ? c.expr : c.expr.negate()).constant;
        if (value < 0) return contradiction;
        slots[at] = undefined;
        geAt.delete(k);
      }
      eqAt.set(key, slots.length);
      slots.push(c);
      continue;
    }

    // Of parallel inequalities only the tightest matters.
    let at = geAt.get(key);
    if (at !== undefined) {
      if (c.expr.constant >= slots[at]!.expr.constant) continue;
      slots[at] = c;
    } else {
      at = slots.length;
      geAt.set(key, at);
      slots.push(c);
    }
    const opposite = geAt.get(negKey);
    if (opposite === undefined) continue;
    // e + c1 >= 0 and -e + c2 >= 0 leave room c1 + c2 between them: none is a
    // contradiction, exactly none pins e to one value.
    const room = c.expr.constant + slots[opposite]!.expr.constant;
    if (room < 0) return contradiction;
    if (room === 0) {
      slots[at] = undefined;
      geAt.delete(key);
      slots[opposite] = eq(slots[opposite]!.expr);
      geAt.delete(negKey);
      eqAt.set(negKey, opposite);
    }
  }
  return slots.filter((c): c is Constraint => c !== undefined);
}
