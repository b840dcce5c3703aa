/**
 * C's atomic updates, with GCC's and Clang's `__atomic` builtins: the work-groups of a launch
 * run in parallel (OpenMP), so two of them may update one element at once. An integer add is
 * `__atomic_fetch_add` (two's complement wrapping, as Loom's integers); a float add and every
 * min/max is a compare-and-swap loop on the value (`__atomic_compare_exchange` compares the
 * bytes, so a NaN in memory is not a value that never matches), with NaN propagating as
 * Loom's min/max do everywhere. Relaxed ordering is enough: an update only has to be
 * indivisible, and the launch's end (OpenMP's join) orders everything before the host reads.
 */
import { LoomError, type DType } from '@loom/core';
import type { AtomicUpdate, CExpressionPrinter } from '@loom/codegen-cfamily';
import { cType } from './c-types.ts';

/** The dtypes the C target updates atomically (its `atomicDTypes`). */
export const C_ATOMIC_DTYPES: readonly DType[] = ['int32', 'uint32', 'int64', 'uint64', 'float32', 'float64'];

/** The statement of an atomic update of `dtype` at `address` (`CDialect.atomic`). */
export function cAtomic(
  { op }: AtomicUpdate,
  dtype: DType,
  address: string,
  v: string,
  printer: CExpressionPrinter,
  insnId: string,
): string {
  if (!C_ATOMIC_DTYPES.includes(dtype)) {
    throw new LoomError(
      `instruction '${insnId}': atomic updates of ${dtype} are not supported on C (${C_ATOMIC_DTYPES.join(', ')} are)`,
    );
  }
  if (op === 'add' && !dtype.startsWith('float')) return `__atomic_fetch_add(${address}, ${v}, __ATOMIC_RELAXED);`;
  return `${compareAndSwap(op, dtype, printer)}(${address}, ${v});`;
}

/** The compare-and-swap helper of update `op` on `dtype`, recorded on the printer. */
function compareAndSwap(op: AtomicUpdate['op'], dtype: DType, printer: CExpressionPrinter): string {
  const name = `loom_atomic_${op}_${dtype}`;
  const t = cType(dtype);
  const float = dtype.startsWith('float');
  // floats: NaN-propagating min/max (the printer's helpers), as everywhere; integers compare plainly
  const combine =
    op === 'add'
      ? 'seen + operand'
      : float
        ? `${printer.helperFunction(op === 'min' ? 'minimum' : 'maximum', dtype)}(seen, operand)`
        : `operand ${op === 'min' ? '<' : '>'} seen ? operand : seen`;
  printer.helpers.set(
    name,
    [
      `static inline void ${name}(${t} *target, ${t} operand)`,
      '{',
      `  // compare-and-swap: ${op === 'add' ? '__atomic_fetch_add takes integers only' : `C has no atomic ${op}`}; a failed exchange reloads \`seen\``,
      `  ${t} seen, next;`,
      '  __atomic_load(target, &seen, __ATOMIC_RELAXED);',
      '  do',
      `    next = ${combine};`,
      '  while (!__atomic_compare_exchange(target, &seen, &next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));',
      '}',
    ].join('\n'),
  );
  return name;
}
