/**
 * Atomic fetches (`old = atomicAdd(counter[0], 1)`) on the CPU device. Its work-items never
 * interleave within a statement (workgroups.ts runs one at a time, each up to its next barrier,
 * and the work-groups one after another), so a fetch is its plain steps, which no other work-item
 * can come between: read the element, store what the operation makes of it, keep the old value.
 *
 *   {
 *     const operand$ = 1;
 *     const old$ = counter[0];
 *     counter[0] = (old$ + operand$) | 0;
 *     t = old$;
 *   }
 *
 * The names with a `$` are no Loom name's (names.ts): they shadow nothing the statement reads.
 */
import {
  atomicFunction,
  InternalError,
  printExpr,
  type AtomicFunctionName,
  type DType,
  type Expr,
  type KernelFunction,
} from '@loom/core';
import { binaryOp } from './arithmetic.ts';
import type { ExpressionPrinter } from './expressions.ts';
import { callFunction } from './functions.ts';
import { jsName } from './names.ts';
import { atom, computeType, convert, Prec, storable, type JsValue } from './values.ts';

/** The dtypes the CPU device fetches atomically: those some GPU target does too (numbers and bigints in plain typed arrays). */
export const JS_ATOMIC_FETCH_DTYPES: readonly DType[] = ['int32', 'uint32', 'int64', 'uint64', 'float32', 'float64'];

/** The lines of `target = fn(element, ...operands)`, an atomic fetch. */
export function atomicFetchLines(
  target: Expr,
  fetch: Extract<Expr, { kind: 'call' }>,
  kernel: KernelFunction,
  exprs: ExpressionPrinter,
): string[] {
  const [element, ...operands] = fetch.args;
  if (element?.kind !== 'subscript') throw new InternalError(`${printExpr(fetch)} updates no array element`);
  const dtype = kernel.types.get(element.array)!;
  const place = exprs.element(element);
  // the operands first, in the element's dtype: what they read is read before the update
  const names = operands.length === 2 ? ['expected$', 'operand$'] : ['operand$'];
  const lines = operands.map((o, k) => `const ${names[k]} = ${exprs.stored(o, dtype).code};`);
  lines.push(`const old$ = ${place};`);
  const old = atom('old$', dtype);
  const operand = atom('operand$', dtype);
  const c = computeType(dtype);
  let next: JsValue;
  const { op } = atomicFunction(fetch.fn as AtomicFunctionName);
  switch (op) {
    case 'add':
    case 'sub':
      next = binaryOp(op === 'add' ? '+' : '-', old, operand, c);
      break;
    case 'min':
    case 'max':
      // NaN-propagating on floats, as every min and max of Loom's
      next = callFunction(op, [old, operand], dtype);
      break;
    case 'exchange':
      next = operand;
      break;
    case 'compare-exchange':
      // integers only (check/atomic-fetches.ts): numbers and bigints compare by value
      next = { code: 'old$ === expected$ ? operand$ : old$', prec: Prec.Conditional, repr: dtype };
      break;
  }
  lines.push(`${place} = ${storable(next, dtype).code};`);
  if (target.kind === 'var') {
    lines.push(`${jsName(target.name)} = ${convert(old, kernel.types.get(target.name) ?? dtype).code};`);
  } else if (target.kind === 'subscript') {
    lines.push(`${exprs.element(target)} = ${storable(old, kernel.types.get(target.array) ?? dtype).code};`);
  } else throw new InternalError(`cannot assign to '${printExpr(target)}'`);
  return ['{', ...lines.map((l) => `  ${l}`), '}'];
}
