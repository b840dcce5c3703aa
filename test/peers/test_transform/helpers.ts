/** Small helpers shared by the ports of loopy's test_transform.py. */
import * as assert from 'uvu/assert';
import { expr, globalArg, LoomError, type BasicSet, type Expr, type LoopKernel } from '@loom/core';

export const throwsLoom = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof LoomError && message.test((e as Error).message));
export const within = (knl: LoopKernel, id: string) => [...knl.instruction(id).withinInames].sort();
export const freeVariablesOf = (e: Expr) => [...expr.freeVariables(e)];
export const f32 = (name: string, shape?: readonly (number | string)[]) => globalArg(name, { dtype: 'float32', shape });
export const range = (n: number, f: (k: number) => number) => Float32Array.from({ length: n }, (_, k) => f(k));

/** Two sets are equal when each one's constraints hold on the other. */
export function sameSet(a: BasicSet, b: BasicSet): boolean {
  return a.constraints.every((c) => b.implies(c)) && b.constraints.every((c) => a.implies(c));
}
