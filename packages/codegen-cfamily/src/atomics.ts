/**
 * `{atomic}` updates: `out[k] = out[k] + e` becomes an atomic add, `min`/`max` atomic
 * minimum and maximum. Which update is meant is the same in every C-family language; how
 * it is done (built-in atomics, a compare-and-swap loop) is the dialect's `atomic`.
 */
import { expr as E, LoomError, type DType, type Expr } from '@loom/core';
import type { CExpressionPrinter } from './expressions.ts';

/** An atomic update `target = target op operand`. */
export interface AtomicUpdate {
  /** What combines the old value with the operand. */
  readonly op: 'add' | 'min' | 'max';
  /** The value combined with the target's. */
  readonly operand: Expr;
}

/** Recognizes `t = t + e` (or `e + t`), `t = min(t, e)`, `t = max(t, e)`. */
export function atomicUpdateOf(target: Expr, value: Expr, insnId: string): AtomicUpdate {
  if (value.kind === 'binary' && value.op === '+') {
    if (E.exprEquals(value.left, target)) return { op: 'add', operand: value.right };
    if (E.exprEquals(value.right, target)) return { op: 'add', operand: value.left };
  }
  if (value.kind === 'call' && (value.fn === 'min' || value.fn === 'max') && value.args.length === 2) {
    if (E.exprEquals(value.args[0], target)) return { op: value.fn, operand: value.args[1] };
    if (E.exprEquals(value.args[1], target)) return { op: value.fn, operand: value.args[0] };
  }
  throw new LoomError(
    `instruction '${insnId}' is marked atomic, but only updates of the form x = x + e, x = min(x, e), x = max(x, e) can be done atomically`,
  );
}

/** The statement for an atomic update, registering helper functions on the printer. */
export function printAtomic(
  target: Expr,
  value: Expr,
  dtype: DType,
  insnId: string,
  printer: CExpressionPrinter,
): string {
  const update = atomicUpdateOf(target, value, insnId);
  const address = `&${printer.print(target)}`;
  const operand = printer.print(update.operand, dtype);
  return printer.dialect.atomic(update, dtype, address, operand, printer, insnId);
}
