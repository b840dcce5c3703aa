/**
 * loopy's linear subscripts, `a[[i*n + j]]`: one index into an array's elements, in
 * row-major order, whatever its shape. `makeKernel` turns each into the multi-index it
 * stands for, so that every later pass (shapes, bounds, layouts) sees an ordinary access:
 * for a declared shape (s0, s1, s2) the index k becomes
 *
 *     a[k // (s1*s2), (k // s2) % s1, k % s2]
 *
 * which is in bounds exactly when k is (0 <= k < s0*s1*s2). An array without a declared
 * shape is taken as one-dimensional: `a[[k]]` is `a[k]`.
 */
import { LoomError } from '../errors.ts';
import { binary, subscript, type Expr } from '../expr/nodes.ts';
import { mapExpr, printExpr } from '../expr/index.ts';
import type { Instruction } from './model.ts';

/** Shapes of the arrays declared with one, by name. */
export type DeclaredShapes = ReadonlyMap<string, readonly Expr[]>;

/** `e` with its linear subscripts made multi-indices. */
export function delinearize(e: Expr, shapes: DeclaredShapes): Expr {
  return mapExpr(e, (x) => {
    if (x.kind !== 'subscript' || !x.linear) return x;
    const shape = shapes.get(x.array);
    if (!shape || shape.length <= 1) return subscript(x.array, x.indices, false, x.tag, x.field);
    const [k] = x.indices;
    const stride = (axis: number) => shape.slice(axis + 1).reduce((p, s) => binary('*', p, s));
    const indices = shape.map((s, axis) => {
      if (axis === shape.length - 1) return binary('%', k, s);
      const quotient = binary('//', k, stride(axis));
      return axis === 0 ? quotient : binary('%', quotient, s);
    });
    return subscript(x.array, indices, false, x.tag, x.field);
  });
}

/** Every linear subscript of the instructions made a multi-index (assignees included). */
export function delinearizeInstructions(insns: readonly Instruction[], shapes: DeclaredShapes): Instruction[] {
  return insns.map((insn) => {
    const assignees = insn.assignees.map((a) => delinearize(a, shapes));
    for (const assignee of assignees) {
      if (assignee.kind !== 'var' && assignee.kind !== 'subscript')
        throw new LoomError(`instruction '${insn.id}': cannot assign to ${printExpr(assignee)}`, insn.span);
    }
    return {
      ...insn,
      assignees,
      expression: insn.expression && delinearize(insn.expression, shapes),
      predicates: insn.predicates.map((p) => delinearize(p, shapes)),
    };
  });
}
