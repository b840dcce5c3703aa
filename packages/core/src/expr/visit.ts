/**
 * Generic traversal of the expression IR. Passes that care about only a few kinds of node
 * handle those and hand the rest to `mapChildren` / `children`, so adding a node kind means
 * updating this file and the passes that really look at it.
 */
import {
  binary,
  bitnot,
  call,
  cast,
  compare,
  ifThenElse,
  logical,
  neg,
  not,
  reduce,
  subscript,
  type Expr,
} from './nodes.ts';

/** The direct sub-expressions of `e`, in source order. */
export function children(e: Expr): Expr[] {
  switch (e.kind) {
    case 'int':
    case 'float':
    case 'imag':
    case 'bool':
    case 'var':
      return [];
    case 'subscript':
      return [...e.indices];
    case 'neg':
    case 'bitnot':
    case 'not':
    case 'cast':
      return [e.operand];
    case 'binary':
    case 'compare':
    case 'logical':
      return [e.left, e.right];
    case 'if':
      return [e.condition, e.then, e.otherwise];
    case 'call':
      return [...e.args];
    case 'reduce':
      return [...e.operands];
  }
}

/**
 * `e` rebuilt with each child replaced by `f(child)`. Returns `e` itself when every child
 * comes back unchanged (by identity), so unchanged subtrees stay shared and callers can
 * detect "nothing happened" cheaply.
 */
export function mapChildren(e: Expr, f: (child: Expr, index: number) => Expr): Expr {
  const old = children(e);
  if (old.length === 0) return e;
  const mapped = old.map(f);
  if (mapped.every((c, i) => c === old[i])) return e;
  switch (e.kind) {
    case 'subscript':
      return subscript(e.array, mapped, e.linear, e.tag, e.field);
    case 'neg':
      return neg(mapped[0]);
    case 'bitnot':
      return bitnot(mapped[0]);
    case 'not':
      return not(mapped[0]);
    case 'cast':
      return cast(e.dtype, mapped[0]);
    case 'binary':
      return binary(e.op, mapped[0], mapped[1]);
    case 'compare':
      return compare(e.op, mapped[0], mapped[1]);
    case 'logical':
      return logical(e.op, mapped[0], mapped[1]);
    case 'if':
      return ifThenElse(mapped[0], mapped[1], mapped[2]);
    case 'call':
      return call(e.fn, mapped, e.tag, e.dtype);
    case 'reduce':
      return reduce(e.op, e.inames, mapped, e.simultaneous);
    default:
      return e; // leaves have no children (handled above)
  }
}

/**
 * Calls `visitor` on every node, parents before children. A visitor that returns `false`
 * skips the children of that node.
 */
export function walk(e: Expr, visitor: (e: Expr) => void | boolean): void {
  if (visitor(e) === false) return;
  for (const c of children(e)) walk(c, visitor);
}

/**
 * `walk`, telling the visitor the inames of the reductions around each node. A
 * reduction binds its inames in its body: in `x + sum(k, a[k])` the `k` of `a[k]` is
 * the reduction's own, while a `k` beside the sum would be a name from outside.
 * `bound` is what the caller's context already binds (an instruction's loops, say).
 */
export function walkScoped(
  e: Expr,
  visitor: (e: Expr, bound: readonly string[]) => void | boolean,
  bound: readonly string[] = [],
): void {
  if (visitor(e, bound) === false) return;
  const inner = e.kind === 'reduce' ? [...bound, ...e.inames] : bound;
  for (const c of children(e)) walkScoped(c, visitor, inner);
}

/**
 * `walkScoped`, also telling the visitor the conditions each node is evaluated under:
 * in `if(c, t, e)` the branch `t` runs only where `c` holds and `e` only where it does
 * not (`not(c)`), so an access `a[i]` in `if(i < 80, a[i], 0)` happens for `i < 80` alone.
 * `guards` is what the caller's context already knows (an instruction's predicates).
 */
export function walkGuarded(
  e: Expr,
  visitor: (e: Expr, bound: readonly string[], guards: readonly Expr[]) => void | boolean,
  bound: readonly string[] = [],
  guards: readonly Expr[] = [],
): void {
  if (visitor(e, bound, guards) === false) return;
  if (e.kind === 'if') {
    walkGuarded(e.condition, visitor, bound, guards);
    walkGuarded(e.then, visitor, bound, [...guards, e.condition]);
    walkGuarded(e.otherwise, visitor, bound, [...guards, not(e.condition)]);
    return;
  }
  const inner = e.kind === 'reduce' ? [...bound, ...e.inames] : bound;
  for (const c of children(e)) walkGuarded(c, visitor, inner, guards);
}

/** Bottom-up rewrite: `f` sees each node after its children have been rewritten. */
export function mapExpr(e: Expr, f: (e: Expr) => Expr): Expr {
  return f(mapChildren(e, (c) => mapExpr(c, f)));
}

/** Whether some node of `e` (itself included) satisfies `pred`. */
export function someExpr(e: Expr, pred: (e: Expr) => boolean): boolean {
  return pred(e) || children(e).some((c) => someExpr(c, pred));
}
