/**
 * Guards on a work-item counter folded into the counter's loop bounds, once a group's
 * work-items run one after another (serialize-work-items.ts):
 *
 *     for (lid_0 = 0; lid_0 <= 127; ++lid_0)        for (lid_0 = 0; lid_0 <= min(127, n - 128 * gid(0) - 1); ++lid_0)
 *       if (128 * gid(0) <= n - lid_0 - 1)     →       a[128 * gid(0) + lid_0] = 0.0f;
 *         a[128 * gid(0) + lid_0] = 0.0f;
 *
 * The two run the same iterations, but a C compiler vectorizes only the second: a guarded
 * store needs masked stores, which the baseline x86-64 instruction set lacks, so the first stays
 * scalar (5x slower than the plain loop on a 16-core host). The guards are those the code
 * builder puts around a work-item's statements where a group may reach past the domain (a
 * parametric `n` not known to be a multiple of the group).
 *
 * A conjunct of the guard is folded when it is affine in the counter with a coefficient of
 * ±1 and its other terms keep their value through the loop: parameters, group ids, the
 * counters of the loops around it, and no name the loop's body writes or declares. A conjunct
 * free of the counter moves out of the loop, where the next counter's loop may fold it.
 */
import { fromLinear, toLinear } from '../expr/affine.ts';
import { type CompareOp, type Expr, call, int, logical, variable } from '../expr/nodes.ts';
import { mapExpr, walk } from '../expr/visit.ts';
import type { Linear } from '../linear.ts';
import type { Stmt } from './ast.ts';
import { soleStatement, walkStmts } from './stmt-visit.ts';

type ForStmt = Extract<Stmt, { kind: 'for' }>;

/**
 * `loop` with what its body's guard says of `loop.iname` moved into its bounds (see the module
 * comment); `variant`: names that may change while the loop runs (temporaries of the kernel),
 * whose conjuncts are never moved. Returns the loop, and the conjuncts free of its counter,
 * which must hold around it (`hoisted`, absent when there are none).
 */
export function foldCounterGuards(
  loop: ForStmt,
  variant: ReadonlySet<string>,
): { readonly loop: ForStmt; readonly hoisted?: Expr } {
  const guard = soleStatement(loop.body);
  if (guard?.kind !== 'if') return { loop };
  const written = new Set(variant);
  walkStmts(guard.then, {
    stmt: (s) => {
      if (s.kind === 'assign' && s.target.kind === 'var') written.add(s.target.name);
      if (s.kind === 'declare') written.add(s.name);
      if (s.kind === 'for') written.add(s.iname);
    },
  });

  let lower = loop.lower;
  let upper = loop.upper;
  const kept: Expr[] = [];
  const hoisted: Expr[] = [];
  for (const conjunct of conjuncts(guard.condition)) {
    const bound = invariant(conjunct, written) ? counterBound(conjunct, loop.iname) : undefined;
    if (bound === 'free') hoisted.push(conjunct);
    else if (bound?.side === 'upper') upper = tighter('min', upper, bound.value);
    else if (bound?.side === 'lower') lower = tighter('max', lower, bound.value);
    else kept.push(conjunct);
  }
  if (kept.length === conjuncts(guard.condition).length) return { loop };

  const inner: Stmt = kept.length === 0 ? guard.then : { kind: 'if', condition: andAll(kept), then: guard.then };
  const folded: ForStmt = { ...loop, lower, upper, body: inner };
  return hoisted.length === 0 ? { loop: folded } : { loop: folded, hoisted: andAll(hoisted) };
}

/** `min(a, b)` or `max(a, b)`, worked out where both are numbers. */
function tighter(fn: 'min' | 'max', a: Expr, b: Expr): Expr {
  if (a.kind === 'int' && b.kind === 'int') return int(Math[fn](a.value, b.value));
  return call(fn, [a, b]);
}

/** `a && b && c` as its operands. */
function conjuncts(e: Expr): Expr[] {
  return e.kind === 'logical' && e.op === 'and' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

function andAll(list: readonly Expr[]): Expr {
  return list.reduce((a, b) => logical('and', a, b));
}

/**
 * Whether `e` reads only names that keep their value through the loop: no array element, no
 * name in `written`, no call but a group id (`gid(N)`, fixed for the whole group).
 */
function invariant(e: Expr, written: ReadonlySet<string>): boolean {
  let ok = true;
  walk(e, (x) => {
    if (x.kind === 'subscript' || (x.kind === 'var' && written.has(x.name))) ok = false;
    if (x.kind === 'call' && !isGroupId(x)) ok = false;
  });
  return ok;
}

function isGroupId(x: Expr): boolean {
  return x.kind === 'call' && x.fn === 'gid' && x.args.length === 1 && x.args[0].kind === 'int';
}

/**
 * What the comparison `e` says of `counter`: `'free'` when it does not mention it, a bound
 * (`counter <= value` or `counter >= value`) when it is affine in it with a coefficient of ±1,
 * else `undefined`.
 */
function counterBound(
  e: Expr,
  counter: string,
): 'free' | { readonly side: 'lower' | 'upper'; readonly value: Expr } | undefined {
  if (e.kind !== 'compare') return undefined;
  // group ids become names (NUL-prefixed: no kernel name is one), so that the affine view takes them
  // as the constants they are
  const groupIds = new Map<string, Expr>();
  const named = (x: Expr): Expr =>
    mapExpr(x, (y) => {
      if (y.kind !== 'call' || !isGroupId(y) || y.args[0].kind !== 'int') return y;
      const name = `\0gid${y.args[0].value}`;
      groupIds.set(name, y);
      return variable(name);
    });
  const left = toLinear(named(e.left));
  const right = left && toLinear(named(e.right));
  if (!left || !right) return undefined;
  const form = lessOrEqualZero(left.sub(right), e.op);
  if (form === undefined) return undefined;
  const c = form.coeff(counter);
  if (c === 0) return 'free';
  if (c !== 1 && c !== -1) return undefined;
  // c·counter + rest <= 0: counter <= -rest (c = 1), counter >= rest (c = -1)
  const rest = form.without([counter]);
  const bound = c === 1 ? rest.negate() : rest;
  // `n - 128 * gid(0) - 1`: added names first, then subtracted ones, the group ids last
  const rank = (name: string) => (groupIds.has(name) ? 2 : 0) + (bound.coeff(name) > 0 ? 0 : 1);
  const value = fromLinear(
    bound,
    [...bound.variables].sort((x, y) => rank(x) - rank(y)),
  );
  const restored = mapExpr(value, (x) => (x.kind === 'var' && groupIds.has(x.name) ? groupIds.get(x.name)! : x));
  return { side: c === 1 ? 'upper' : 'lower', value: restored };
}

/** `form op 0` as `form' <= 0` on integers, or `undefined` for `==` and `!=`. */
function lessOrEqualZero(form: Linear, op: CompareOp): Linear | undefined {
  switch (op) {
    case '<=':
      return form;
    case '<':
      return form.add(1);
    case '>=':
      return form.negate();
    case '>':
      return form.negate().add(1);
    default:
      return undefined;
  }
}
