/**
 * `{atomic}` instructions: `out[k] = out[k] + e` becomes an atomic add, `min`/`max` atomic
 * minimum and maximum, and a value that does not read its target (`atomic=init`, loopy's
 * AtomicInit) an atomic store. Which operation is meant is the same in every C-family
 * language; how it is done (built-in atomics, a compare-and-swap loop) is the dialect's
 * `atomic` and `atomicStore`. An update of any other form is the dialect's compare-and-swap loop
 * (`atomicCompareSwap`), where it has one; an atomic fetch (`atomicAdd(counter[0], 1)`), its `atomicFetch`.
 */
import {
  atomicFunction,
  expr as E,
  InternalError,
  LoomError,
  type AtomicFunctionName,
  type DType,
  type Expr,
} from '@loom/core';
import type { CExpressionPrinter } from './expressions.ts';

/** An atomic update `target = target op operand`. */
export interface AtomicUpdate {
  /** What combines the old value with the operand. */
  readonly op: 'add' | 'min' | 'max';
  /** The value combined with the target's. */
  readonly operand: Expr;
}

/** `t = t + e` (or `e + t`), `t = min(t, e)`, `t = max(t, e)` as their update; undefined for any other form. */
function matchAtomicUpdate(target: Expr, value: Expr): AtomicUpdate | undefined {
  if (value.kind === 'binary' && value.op === '+') {
    if (E.exprEquals(value.left, target)) return { op: 'add', operand: value.right };
    if (E.exprEquals(value.right, target)) return { op: 'add', operand: value.left };
  }
  if (value.kind === 'call' && (value.fn === 'min' || value.fn === 'max') && value.args.length === 2) {
    if (E.exprEquals(value.args[0], target)) return { op: value.fn, operand: value.args[1] };
    if (E.exprEquals(value.args[1], target)) return { op: value.fn, operand: value.args[0] };
  }
  return undefined;
}

/** Recognizes `t = t + e` (or `e + t`), `t = min(t, e)`, `t = max(t, e)`; any other form is a LoomError. */
export function atomicUpdateOf(target: Expr, value: Expr, insnId: string): AtomicUpdate {
  const update = matchAtomicUpdate(target, value);
  if (update) return update;
  throw new LoomError(
    `instruction '${insnId}' is marked atomic, but only updates of the form x = x + e, x = min(x, e), x = max(x, e) can be done atomically`,
  );
}

/** The statement for an atomic instruction (an update or a store), registering helper functions on the printer. */
export function printAtomic(
  target: Expr,
  value: Expr,
  dtype: DType,
  insnId: string,
  printer: CExpressionPrinter,
): string {
  const name = target.kind === 'subscript' ? target.array : target.kind === 'var' ? target.name : undefined;
  if (name === undefined) throw new InternalError(`instruction '${insnId}' assigns to no variable`);
  const address = `&${printer.place(target)}`;
  const space = printer.addressSpaceOf(name);
  const readsTarget = E.someExpr(
    value,
    (x) => (x.kind === 'var' && x.name === name) || (x.kind === 'subscript' && x.array === name),
  );
  if (!readsTarget) {
    const v = printer.print(value, dtype);
    // private memory is the work-item's own: no other sees a store half done
    if (space === 'private') return `${printer.place(target)} = ${v};`;
    return printer.dialect.atomicStore(dtype, address, v, printer, insnId, space);
  }
  const compareSwap = printer.dialect.atomicCompareSwap;
  const update = compareSwap ? matchAtomicUpdate(target, value) : atomicUpdateOf(target, value, insnId);
  if (update) {
    const operand = printer.print(update.operand, dtype);
    return printer.dialect.atomic(update, dtype, address, operand, printer, insnId, space);
  }
  // any other form: the value computed from the element's old value, in a compare-and-swap loop
  const old = 'loom_old';
  printer.localTypes.set(old, dtype);
  const next = printer.print(
    E.mapExpr(value, (x) => (E.exprEquals(x, target) ? E.variable(old) : x)),
    dtype,
  );
  return compareSwap!.call(printer.dialect, dtype, address, old, next, printer, insnId, space);
}

/**
 * An atomic fetch, `atomicAdd(counter[0], 1)` (the whole value of an assignment: core's
 * check/atomic-fetches.ts), as the dialect spells it: its element's address and its operands
 * in the element's dtype `t`.
 */
export function printAtomicFetch(e: Extract<Expr, { kind: 'call' }>, t: DType, printer: CExpressionPrinter): string {
  const [element, ...operands] = e.args;
  const spell = printer.dialect.atomicFetch;
  if (element?.kind !== 'subscript' || !spell)
    throw new InternalError(`the atomic fetch ${E.printExpr(e)} reached the ${printer.dialect.language} printer`);
  const { op } = atomicFunction(e.fn as AtomicFunctionName);
  const address = `&${printer.place(element)}`;
  const printed = operands.map((o) => printer.print(o, t));
  return spell.call(printer.dialect, op, t, address, printed, printer, printer.addressSpaceOf(element.array));
}
