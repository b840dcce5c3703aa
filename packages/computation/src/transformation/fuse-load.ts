/**
 * A transformation on what a kernel reads: each read `a[e]` becomes the value the body
 * stores to its connector, computed at index `e`. With
 *
 *   storeSame(o1, loadIdx(in2, 99 - idx0) * param)      attached as a's o1, { in2: 'b', param: 'k' }
 *
 * `out[i] = a[i] + 1` becomes `out[i] = b[99 - i]*k + 1`. Reads inside substitution rules
 * and in conditions are rewritten alike (core's mapKernelExpressions visits them all).
 */
import { expr, mapKernelExpressions, type Expr, type LoopKernel } from '@loom/core';
import { instantiate, type Resolved } from './resolve.ts';
import type { Transformation } from './transformation.ts';

export function fuseLoads(
  knl: LoopKernel,
  argName: string,
  tr: Transformation,
  resolved: Resolved,
  what: string,
): LoopKernel {
  const store = tr.body.stores.find((s) => s.param === resolved.connector.param)!;
  const dtype = resolved.connector.dtype;
  const valueAt = (index: readonly Expr[]): Expr => {
    const value = instantiate(store.value, index, resolved);
    // the kernel reads an element of the connector's dtype, whatever the body computes in
    const plainRead =
      (value.kind === 'subscript' || value.kind === 'var') &&
      resolved.params.some((p) => p.arg === nameOf(value) && p.dtype === dtype);
    return dtype === undefined || plainRead ? value : expr.cast(dtype, value);
  };
  const isRead = (x: Expr) =>
    (x.kind === 'subscript' && x.array === argName) || (x.kind === 'var' && x.name === argName && resolved.rank === 0);
  const rewrite = (e: Expr) =>
    expr.mapExpr(e, (x) => (isRead(x) ? valueAt(x.kind === 'subscript' ? x.indices : []) : x));
  return mapKernelExpressions(knl, rewrite, { what });
}

function nameOf(e: Expr): string {
  return e.kind === 'subscript' ? e.array : e.kind === 'var' ? e.name : '';
}
