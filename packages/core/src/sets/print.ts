/**
 * ISL-like text for sets: `[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }`.
 *
 * Like isl, each constraint is written around its last variable (parameters come
 * before set variables, existentials last), a lower and an upper bound of the same
 * variable are joined into a two-sided condition, and `e - 1 >= 0` reads as the strict
 * `e > 0`. Existentials that only express a stride print as `i mod 3 = 0`; any others
 * print in an `exists (e0: ...)` clause. The output parses back to the same set.
 */
import { Linear } from '../linear.ts';
import { type Constraint, isFalse, renameIn } from './constraint.ts';

export interface SetParts {
  readonly params: readonly string[];
  readonly dims: readonly string[];
  readonly existentials: readonly string[];
  readonly constraints: readonly Constraint[];
}

export function printSet(s: SetParts): string {
  const head = s.params.length > 0 ? `[${s.params.join(', ')}] -> ` : '';
  const conditions = printConditions(s);
  if (s.dims.length === 0) return `${head}{ : ${conditions || 'true'} }`;
  const tuple = `[${s.dims.join(', ')}]`;
  return conditions ? `${head}{ ${tuple} : ${conditions} }` : `${head}{ ${tuple} }`;
}

/** The conditions alone: '' for no constraint at all, 'false' for the empty set. */
export function printConditions(s: SetParts): string {
  if (isFalse(s.constraints)) return 'false';
  const taken = new Set([...s.params, ...s.dims]);
  const display = new Map<string, string>();
  for (const e of s.existentials) {
    let k = display.size;
    while (taken.has(`e${k}`)) k++;
    taken.add(`e${k}`);
    display.set(e, `e${k}`);
  }
  const order = [...s.params, ...s.dims, ...display.values()];
  const constraints = s.constraints.map((c) => ({ kind: c.kind, expr: renameIn(c.expr, display) }));
  const existentials = [...display.values()];

  const strides = new Map<Constraint, string>(); // constraint -> its one existential
  for (const e of existentials) {
    const uses = constraints.filter((c) => c.expr.dependsOn(e));
    const only = uses[0];
    if (uses.length === 1 && only!.kind === 'eq' && existentials.every((x) => x === e || !only!.expr.dependsOn(x))) {
      strides.set(only!, e);
    }
  }
  const plain = constraints.filter((c) => !existentials.some((e) => c.expr.dependsOn(e)));
  const wrapped = constraints.filter((c) => !strides.has(c) && !plain.includes(c));

  const parts = printConjunction(plain, order);
  for (const [c, e] of strides) parts.push(printStride(c, e, order));
  if (wrapped.length > 0) {
    const names = existentials.filter((e) => wrapped.some((c) => c.expr.dependsOn(e)));
    parts.push(`exists (${names.join(', ')}: ${printConjunction(wrapped, order).join(' and ')})`);
  }
  return parts.join(' and ');
}

/** Constraints grouped by their last variable, lower and upper bounds paired. */
function printConjunction(cs: readonly Constraint[], order: readonly string[]): string[] {
  const lastOf = (c: Constraint) => Math.max(...c.expr.variables.map((n) => order.indexOf(n)));
  const groups = new Map<number, Constraint[]>();
  for (const c of cs) {
    const at = lastOf(c);
    groups.set(at, [...(groups.get(at) ?? []), c]);
  }
  const out: string[] = [];
  for (const at of [...groups.keys()].sort((a, b) => a - b)) {
    const group = groups.get(at)!;
    const v = order[at]!;
    for (const c of group) if (c.kind === 'eq') out.push(printEquality(c, order));
    const used = new Set<Constraint>();
    for (const c of group) {
      if (c.kind === 'eq' || used.has(c)) continue;
      used.add(c);
      const partner = group.find((d) => d.kind === 'ge' && !used.has(d) && d.expr.coeff(v) === -c.expr.coeff(v));
      if (partner) used.add(partner);
      out.push(printInequality(c, partner, v, order));
    }
  }
  return out;
}

/** One inequality, or a two-sided condition when `partner` bounds `v` from the other side. */
function printInequality(c: Constraint, partner: Constraint | undefined, v: string, order: readonly string[]): string {
  const [lower, upper] = c.expr.coeff(v) > 0 ? [c, partner] : [partner, c];
  const term = Linear.variable(v, Math.abs(c.expr.coeff(v))).toString();
  const low = lower && side(lower, v, order);
  const high = upper && side(upper, v, order);
  if (low && high) return `${low.text} ${low.strict ? '<' : '<='} ${term} ${high.strict ? '<' : '<='} ${high.text}`;
  if (low) return `${term} ${low.strict ? '>' : '>='} ${low.text}`;
  return `${term} ${high!.strict ? '<' : '<='} ${high!.text}`;
}

/**
 * The other side of `±a·v + R >= 0`: -R for a lower bound, R for an upper one; a
 * constant of -1 in R reads better as a strict comparison (`i < n`, not `i <= n - 1`).
 */
function side(c: Constraint, v: string, order: readonly string[]): { text: string; strict: boolean } {
  const lower = c.expr.coeff(v) > 0;
  const rest = c.expr.without([v]);
  const strict = rest.constant === -1;
  const other = lower ? rest.negate().sub(strict ? 1 : 0) : rest.add(strict ? 1 : 0);
  return { text: other.toString(order), strict };
}

/** `x = R` with x the first variable of unit coefficient, else `2i + 3j = 7`. */
function printEquality(c: Constraint, order: readonly string[]): string {
  const vars = c.expr.variables.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const unit = vars.find((n) => Math.abs(c.expr.coeff(n)) === 1);
  const lead = unit ?? vars[0]!;
  const expr = c.expr.coeff(lead) > 0 ? c.expr : c.expr.negate();
  const left = unit ? Linear.variable(unit) : expr.sub(expr.constant);
  return `${left.toString(order)} = ${expr.sub(left).negate().toString(order)}`;
}

/** `a·e + W = 0` with e only here says W ≡ 0 (mod |a|): printed `V mod |a| = r`. */
function printStride(c: Constraint, e: string, order: readonly string[]): string {
  const m = Math.abs(c.expr.coeff(e));
  const w = c.expr.without([e]);
  let v = w.sub(w.constant); // variable part; V + k ≡ 0, so V ≡ -k
  let r = ((-w.constant % m) + m) % m;
  const first = v.variables.sort((a, b) => order.indexOf(a) - order.indexOf(b))[0];
  if (first !== undefined && v.coeff(first) < 0) {
    v = v.negate();
    r = (m - r) % m;
  }
  const simple = v.variables.length === 1 && v.coeff(v.variables[0]!) === 1;
  const text = simple ? v.toString() : `(${v.toString(order)})`;
  return `${text} mod ${m} = ${r}`;
}
