/**
 * A transformation met with the argument it is attached to: each of its parameters gets
 * the kernel argument it becomes (its name, dtype and shape, the connector's where the
 * transformation left them open), and its expressions are written in the kernel's terms
 * (`instantiate`): the caller's index `idxK` becomes the kernel's index expression,
 * `loadSame(p)` and `loadIdx(p, ...)` become elements of `p`'s argument.
 */
import { LoomError, expr, parseExpression, printExpr, type DType, type Expr, type KernelArg } from '@loom/core';
import { INDEX_NAME, LOAD_IDX, LOAD_SAME, loadsIn } from './body.ts';
import { isArrayRole, type Role } from './params.ts';
import type { Transformation } from './transformation.ts';

/** A transformation parameter as the kernel argument it becomes. */
export interface ResolvedParam {
  /** The transformation's name for it. */
  readonly param: string;
  /** The kernel argument's name. */
  readonly arg: string;
  readonly role: Role;
  readonly dtype: DType | undefined;
  /** Arrays: their shape in the kernel's terms. */
  readonly shape: readonly Expr[] | undefined;
}

export interface Resolved {
  readonly connector: ResolvedParam;
  /** Every parameter, the connector included, in the transformation's order. */
  readonly params: readonly ResolvedParam[];
  /** Axes of the caller's index: the connector's rank. */
  readonly rank: number;
}

/** Types each parameter of `tr` for attaching it through `connector` to `arg`, its others named by `mapping`. */
export function resolve(
  tr: Transformation,
  connector: string,
  arg: KernelArg,
  mapping: ReadonlyMap<string, string>,
  what: string,
): Resolved {
  const c = tr.param(connector)!;
  const argShape = arg.shape!;
  const shape = c.shape === undefined ? argShape : c.shape.map((s) => toExpr(s, what, c.name));
  if (!sameShape(shape, argShape)) {
    throw new LoomError(
      `${what}: the transformation's connector '${connector}' has shape (${shape.map(printExpr).join(', ')}), but argument '${arg.name}' has (${argShape.map(printExpr).join(', ')})` +
        (argShape.some((s) => s.kind !== 'int') && shape.every((s) => s.kind === 'int')
          ? ": fix the kernel's parameters first (fixParameters) so that its shape is known"
          : ''),
    );
  }
  if (c.dtype !== undefined && arg.dtype !== undefined && c.dtype !== arg.dtype) {
    throw new LoomError(
      `${what}: the transformation's connector '${connector}' is ${c.dtype}, but argument '${arg.name}' is ${arg.dtype}`,
    );
  }
  const dtype = c.dtype ?? arg.dtype;
  const params = tr.params.map(
    (p): ResolvedParam => ({
      param: p.name,
      arg: p.name === connector ? arg.name : mapping.get(p.name)!,
      role: p.role,
      dtype: p.dtype ?? dtype,
      shape: !isArrayRole(p.role)
        ? undefined
        : p.shape === undefined
          ? shape
          : p.shape.map((s) => toExpr(s, what, p.name)),
    }),
  );
  const resolved = { connector: params.find((p) => p.param === connector)!, params, rank: shape.length };
  checkRanks(tr, resolved, what);
  return resolved;
}

function toExpr(entry: number | string, what: string, param: string): Expr {
  try {
    return typeof entry === 'number' ? expr.int(entry) : parseExpression(entry);
  } catch (e) {
    throw new LoomError(`${what}: the shape of parameter '${param}': ${(e as Error).message}`);
  }
}

function sameShape(a: readonly Expr[], b: readonly Expr[]): boolean {
  const key = (e: Expr) => printExpr(expr.simplify(e, { integer: true }));
  return a.length === b.length && a.every((e, k) => key(e) === key(b[k]));
}

/** The caller's index has the connector's rank; each load and store names every axis of its array. */
function checkRanks(tr: Transformation, resolved: Resolved, what: string): void {
  const byName = new Map(resolved.params.map((p) => [p.param, p]));
  for (const e of tr.expressions()) {
    for (const name of expr.freeVariables(e)) {
      const axis = INDEX_NAME.exec(name)?.[1];
      if (axis !== undefined && Number(axis) >= resolved.rank) {
        throw new LoomError(
          `${what}: '${name}' names axis ${axis} of the caller's index, but the connector '${resolved.connector.param}' has ${resolved.rank} axes (idx0 to idx${resolved.rank - 1})`,
        );
      }
    }
    for (const load of loadsIn(e)) {
      const rank = byName.get(load.param)!.shape!.length;
      const given = load.same ? resolved.rank : load.indices.length;
      if (given !== rank) {
        throw new LoomError(
          `${what}: ${load.same ? `loadSame(${load.param}) uses the caller's ${given} axes` : `loadIdx(${load.param}, ...) gives ${given} indices`}, but '${load.param}' has ${rank} axes`,
        );
      }
    }
  }
  for (const store of tr.body.stores) {
    const rank = byName.get(store.param)!.shape!.length;
    const given = store.same ? resolved.rank : store.indices.length;
    if (given !== rank)
      throw new LoomError(
        `${what}: this store gives ${given} indices, but '${store.param}' has ${rank} axes`,
        store.span,
      );
  }
}

/**
 * `e` in the kernel's terms at the kernel's index `index`: `idxK` is `index[K]`, parameters
 * are their arguments, loads are elements of them, and `loadSame(connector)` is `value`
 * (the value the kernel stores, for a transformation attached to an output).
 */
export function instantiate(e: Expr, index: readonly Expr[], resolved: Resolved, value?: Expr): Expr {
  const argOf = new Map(resolved.params.map((p) => [p.param, p.arg]));
  const indices = new Map(index.map((x, k) => [`idx${k}`, x]));
  return expr.mapExpr(e, (x) => {
    if (x.kind === 'var') return indices.get(x.name) ?? (argOf.has(x.name) ? expr.variable(argOf.get(x.name)!) : x);
    if (x.kind !== 'call' || (x.fn !== LOAD_SAME && x.fn !== LOAD_IDX)) return x;
    // the target was renamed to its argument already (children first)
    const target = (x.args[0] as Extract<Expr, { kind: 'var' }>).name;
    if (value !== undefined && target === resolved.connector.arg && x.fn === LOAD_SAME) return value;
    return element(target, x.fn === LOAD_SAME ? index : x.args.slice(1));
  });
}

/** `a[i, j]`, or `a` for a zero-dimensional array (which the kernel names as a variable). */
export function element(array: string, indices: readonly Expr[]): Expr {
  return indices.length === 0 ? expr.variable(array) : expr.subscript(array, indices);
}

/** How many times `e` uses the connector's value (`loadSame(connector)`). */
export function usesOfValue(e: Expr, connector: string): number {
  return loadsIn(e).filter((l) => l.param === connector && l.same).length;
}
