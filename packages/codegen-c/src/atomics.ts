/**
 * C's atomics, with GCC's and Clang's `__atomic` builtins: the work-groups of a launch run in
 * parallel (OpenMP), so two of them may access one element at once. Stores (`atomic=init`) and
 * loads (reads of a `forAtomic` variable) are `__atomic_store_n`/`__atomic_load_n` on integers,
 * and helpers around the generic `__atomic_store`/`__atomic_load` on floats (the `_n` forms
 * take integers only). An integer add is
 * `__atomic_fetch_add` (two's complement wrapping, as Loom's integers); a float add and every
 * min/max is a compare-and-swap loop on the value (`__atomic_compare_exchange` compares the
 * bytes, so a NaN in memory is not a value that never matches), with NaN propagating as
 * Loom's min/max do everywhere. Relaxed ordering is enough: an update only has to be
 * indivisible, and the launch's end (OpenMP's join) orders everything before the host reads.
 */
import { LoomError, type DType } from '@loom/core';
import type { AtomicFetchOp, AtomicUpdate, CExpressionPrinter } from '@loom/codegen-cfamily';
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
  checkAtomicDType('updates', dtype, insnId);
  if (op === 'add' && !dtype.startsWith('float')) return `__atomic_fetch_add(${address}, ${v}, __ATOMIC_RELAXED);`;
  return `${compareAndSwap(op, dtype, printer)}(${address}, ${v});`;
}

/**
 * An atomic update of any other form (`CDialect.atomicCompareSwap`): `old` loaded, `next` computed
 * from it, and exchanged where the element still holds `old` (`__atomic_compare_exchange` reloads
 * `old` where it does not), relaxed as every update here.
 */
export function cAtomicCompareSwap(
  dtype: DType,
  address: string,
  old: string,
  next: string,
  _printer: CExpressionPrinter,
  insnId: string,
): string {
  checkAtomicDType('updates', dtype, insnId);
  const t = cType(dtype);
  return [
    '{',
    `  ${t} ${old}, loom_next;`,
    `  __atomic_load(${address}, &${old}, __ATOMIC_RELAXED);`,
    '  do',
    `    loom_next = ${next};`,
    `  while (!__atomic_compare_exchange(${address}, &${old}, &loom_next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));`,
    '}',
  ].join('\n');
}

/**
 * The compare-and-swap helper of `op` on `dtype`, recorded on the printer: a statement for an
 * update, or (`returnsOld`, a fetch) an expression of the value it replaced.
 */
function compareAndSwap(
  op: AtomicUpdate['op'] | 'sub',
  dtype: DType,
  printer: CExpressionPrinter,
  returnsOld = false,
): string {
  const name = `loom_atomic_${returnsOld ? 'fetch_' : ''}${op}_${dtype}`;
  const t = cType(dtype);
  const float = dtype.startsWith('float');
  // floats: NaN-propagating min/max (the printer's helpers), as everywhere; integers compare plainly
  const combine =
    op === 'add' || op === 'sub'
      ? `seen ${op === 'add' ? '+' : '-'} operand`
      : float
        ? `${printer.helperFunction(op === 'min' ? 'minimum' : 'maximum', dtype)}(seen, operand)`
        : `operand ${op === 'min' ? '<' : '>'} seen ? operand : seen`;
  const why = op === 'add' || op === 'sub' ? `__atomic_fetch_${op} takes integers only` : `C has no atomic ${op}`;
  printer.helpers.set(
    name,
    [
      `static inline ${returnsOld ? t : 'void'} ${name}(${t} *target, ${t} operand)`,
      '{',
      `  // compare-and-swap: ${why}; a failed exchange reloads \`seen\``,
      `  ${t} seen, next;`,
      '  __atomic_load(target, &seen, __ATOMIC_RELAXED);',
      '  do',
      `    next = ${combine};`,
      '  while (!__atomic_compare_exchange(target, &seen, &next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));',
      ...(returnsOld ? ['  return seen;'] : []),
      '}',
    ].join('\n'),
  );
  return name;
}

/**
 * An atomic fetch as an expression of the element's old value (`CDialect.atomicFetch`): integers
 * add, subtract and exchange with the `__atomic` builtins that return it; everything else is a
 * helper around a compare-and-swap (which leaves the value it found in its `expected`). Relaxed,
 * as the GPUs' atomics are: ordering a fetch against other memory is a fence's work (`... gfence`).
 */
export function cAtomicFetch(
  op: AtomicFetchOp,
  dtype: DType,
  address: string,
  operands: readonly string[],
  printer: CExpressionPrinter,
): string {
  checkAtomicDType('fetches', dtype, undefined);
  const [v] = operands;
  const integer = !dtype.startsWith('float');
  if (integer && (op === 'add' || op === 'sub')) return `__atomic_fetch_${op}(${address}, ${v}, __ATOMIC_RELAXED)`;
  if (integer && op === 'exchange') return `__atomic_exchange_n(${address}, ${v}, __ATOMIC_RELAXED)`;
  if (op === 'add' || op === 'sub' || op === 'min' || op === 'max')
    return `${compareAndSwap(op, dtype, printer, true)}(${address}, ${v})`;
  const t = cType(dtype);
  const name = `loom_atomic_${op === 'exchange' ? 'exchange' : 'compare_exchange'}_${dtype}`;
  const lines =
    op === 'exchange'
      ? [
          `static inline ${t} ${name}(${t} *target, ${t} value)`,
          '{',
          '  // __atomic_exchange_n takes integers only: the generic form exchanges a float through memory',
          `  ${t} old;`,
          '  __atomic_exchange(target, &value, &old, __ATOMIC_RELAXED);',
          '  return old;',
          '}',
        ]
      : [
          `static inline ${t} ${name}(${t} *target, ${t} expected, ${t} desired)`,
          '{',
          '  // a failed exchange leaves the value it found in `expected`; a successful one found `expected`',
          '  __atomic_compare_exchange_n(target, &expected, desired, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);',
          '  return expected;',
          '}',
        ];
  printer.helpers.set(name, lines.join('\n'));
  return `${name}(${address}, ${operands.join(', ')})`;
}

/** The statement storing `v` atomically at `address` (`CDialect.atomicStore`). */
export function cAtomicStore(
  dtype: DType,
  address: string,
  v: string,
  printer: CExpressionPrinter,
  insnId: string,
): string {
  checkAtomicDType('stores', dtype, insnId);
  if (!dtype.startsWith('float')) return `__atomic_store_n(${address}, ${v}, __ATOMIC_RELAXED);`;
  const name = `loom_atomic_store_${dtype}`;
  const t = cType(dtype);
  printer.helpers.set(
    name,
    [
      `static inline void ${name}(${t} *target, ${t} value)`,
      '{',
      '  // __atomic_store_n takes integers only: the generic form stores a float from memory',
      '  __atomic_store(target, &value, __ATOMIC_RELAXED);',
      '}',
    ].join('\n'),
  );
  return `${name}(${address}, ${v});`;
}

/** An atomic load of the `dtype` at `address`, as an expression (`CDialect.atomicLoad`). */
export function cAtomicLoad(dtype: DType, address: string, printer: CExpressionPrinter): string {
  checkAtomicDType('loads', dtype, undefined);
  if (!dtype.startsWith('float')) return `__atomic_load_n(${address}, __ATOMIC_RELAXED)`;
  const name = `loom_atomic_load_${dtype}`;
  const t = cType(dtype);
  printer.helpers.set(
    name,
    [
      `static inline ${t} ${name}(${t} const *target)`,
      '{',
      '  // __atomic_load_n takes integers only: the generic form loads a float into memory',
      `  ${t} value;`,
      '  __atomic_load(target, &value, __ATOMIC_RELAXED);',
      '  return value;',
      '}',
    ].join('\n'),
  );
  return `${name}(${address})`;
}

function checkAtomicDType(what: string, dtype: DType, insnId: string | undefined): void {
  if (C_ATOMIC_DTYPES.includes(dtype)) return;
  const where = insnId === undefined ? 'a variable accessed atomically' : `instruction '${insnId}'`;
  throw new LoomError(
    `${where}: atomic ${what} of ${dtype} are not supported on C (${C_ATOMIC_DTYPES.join(', ')} are)`,
  );
}
