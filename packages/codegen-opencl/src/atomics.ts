/**
 * OpenCL's atomics, in OpenCL 1.2's built-ins (what every device here has, PoCL included):
 *  - updates: integers use `atomic_add`/`atomic_min`/`atomic_max`; floats (which OpenCL 1.2
 *    has no atomic add for) a compare-and-swap loop on the value's bits;
 *  - stores (`atomic=init`): `atomic_xchg`, which OpenCL 1.2 has for int, uint and float, and
 *    for double `atom_xchg` on its bits (cl_khr_int64_base_atomics);
 *  - loads: a variable accessed atomically (`forAtomic`) is declared `volatile`, as loopy's
 *    "cl1" atomics declare it, so each read of it is a load from memory (the dialect's
 *    `atomicQualifier`): an aligned 32- or 64-bit load is never torn.
 *  - fetches (`old = atomicAdd(counter[0], 1)`): the same built-ins, which return the old value,
 *    and compare-and-swap loops that return the value they replaced (`openclAtomicFetch`).
 * Each works in global and local memory alike; the helpers are made per address space.
 */
import { InternalError, LoomError, type DType } from '@loom/core';
import type { AtomicFetchOp, AtomicUpdate, CAddressSpace, CExpressionPrinter } from '@loom/codegen-cfamily';
import { clType } from './c-types.ts';

/** The dtypes OpenCL accesses atomically (its `atomicDTypes`). */
export const OPENCL_ATOMIC_DTYPES: readonly DType[] = ['int32', 'uint32', 'float32', 'float64'];

/** The statement of an atomic update of `dtype` at `address` (`CDialect.atomic`). */
export function openclAtomic(
  { op }: AtomicUpdate,
  dtype: DType,
  address: string,
  v: string,
  printer: CExpressionPrinter,
  insnId: string,
  space: CAddressSpace,
): string {
  if (dtype === 'int32' || dtype === 'uint32') return `atomic_${op}(${address}, ${v});`;
  if (dtype === 'float32' || dtype === 'float64') return `${floatHelper(op, dtype, printer, space)}(${address}, ${v});`;
  throw unsupported('updates', dtype, insnId);
}

/**
 * An atomic update of any other form (`CDialect.atomicCompareSwap`): `old` loaded, `next` computed
 * from it, and stored by `atomic_cmpxchg` where the element still holds `old` (a float's bits, as a
 * uint or, for float64, a long), else again from what the exchange found.
 */
export function openclAtomicCompareSwap(
  dtype: DType,
  address: string,
  old: string,
  next: string,
  printer: CExpressionPrinter,
  insnId: string,
  space: CAddressSpace,
): string {
  const qualifier = space === 'local' ? '__local' : '__global';
  const t = clType(dtype);
  if (dtype === 'int32' || dtype === 'uint32')
    return casLoop([
      `${t} ${old}, loom_seen = *(${address});`,
      `do { ${old} = loom_seen; loom_seen = atomic_cmpxchg(${address}, ${old}, ${next}); }`,
      `while (loom_seen != ${old});`,
    ]);
  if (dtype === 'float32' || dtype === 'float64') {
    const [bits, cas, asBits, asValue] =
      dtype === 'float32'
        ? ['unsigned int', 'atomic_cmpxchg', 'as_uint', 'as_float']
        : ['unsigned long', 'atom_cmpxchg', 'as_ulong', 'as_double'];
    if (dtype === 'float64') printer.extensions.add('cl_khr_int64_base_atomics');
    return casLoop([
      `volatile ${qualifier} ${bits} *loom_bits = (volatile ${qualifier} ${bits} *) ${address};`,
      `${bits} loom_prev, loom_seen = *loom_bits;`,
      'do',
      '{',
      '  loom_prev = loom_seen;',
      `  ${t} const ${old} = ${asValue}(loom_prev);`,
      `  loom_seen = ${cas}(loom_bits, loom_prev, ${asBits}(${next}));`,
      '}',
      'while (loom_seen != loom_prev);',
    ]);
  }
  throw unsupported('updates', dtype, insnId);
}

/** Lines as one block statement: `{`, the lines indented, `}` (one string, lines joined by newlines). */
const casLoop = (lines: readonly string[]): string => ['{', ...lines.map((l) => `  ${l}`), '}'].join('\n');

/** The statement storing `v` atomically at `address` (`CDialect.atomicStore`). */
export function openclAtomicStore(
  dtype: DType,
  address: string,
  v: string,
  printer: CExpressionPrinter,
  insnId: string,
  space: CAddressSpace,
): string {
  if (dtype === 'int32' || dtype === 'uint32' || dtype === 'float32') return `atomic_xchg(${address}, ${v});`;
  if (dtype === 'float64') {
    // OpenCL has no double exchange: the bits exchanged as a long (the extension's atom_xchg)
    printer.extensions.add('cl_khr_int64_base_atomics');
    return `atom_xchg((volatile ${printer.dialect.addressSpace(space)}long *) ${address}, as_long(${v}));`;
  }
  throw unsupported('stores', dtype, insnId);
}

function unsupported(what: string, dtype: DType, insnId: string): LoomError {
  return new LoomError(
    `instruction '${insnId}': atomic ${what} of ${dtype} are not supported on OpenCL (${OPENCL_ATOMIC_DTYPES.join(', ')} are)`,
  );
}

/**
 * The compare-and-swap helper that applies `op` to a float at an address of `space`: a statement
 * (`void`) for an update, or, for a fetch (`returnsOld`), an expression of the value it replaced.
 */
function floatHelper(
  op: AtomicUpdate['op'] | 'sub',
  dtype: 'float32' | 'float64',
  printer: CExpressionPrinter,
  space: CAddressSpace,
  returnsOld = false,
): string {
  // a pointer's address space is part of its type in OpenCL 1.2: one helper per space
  const local = space === 'local';
  const name = `loom_atomic_${returnsOld ? 'fetch_' : ''}${op}_${dtype}${local ? '_local' : ''}`;
  const qualifier = local ? '__local' : '__global';
  const t = clType(dtype);
  const bits = dtype === 'float32' ? 'unsigned int' : 'unsigned long';
  const cas = dtype === 'float32' ? 'atomic_cmpxchg' : 'atom_cmpxchg';
  // min and max as everywhere else: NaN propagates (torch.minimum/maximum), where C's fmin/fmax would drop it
  const combine =
    op === 'add' || op === 'sub'
      ? `prev.value ${op === 'add' ? '+' : '-'} operand`
      : `${printer.helperFunction(op === 'min' ? 'minimum' : 'maximum', dtype)}(prev.value, operand)`;
  printer.helpers.set(
    name,
    [
      `inline ${returnsOld ? t : 'void'} ${name}(volatile ${qualifier} ${t} *target, ${t} operand)`,
      '{',
      `  union { ${bits} bits; ${t} value; } prev, next;`,
      '  do',
      '  {',
      '    prev.value = *target;',
      `    next.value = ${combine};`,
      '  }',
      `  while (${cas}((volatile ${qualifier} ${bits} *) target, prev.bits, next.bits) != prev.bits);`,
      ...(returnsOld ? ['  return prev.value;'] : []),
      '}',
    ].join('\n'),
  );
  if (dtype === 'float64') printer.extensions.add('cl_khr_int64_base_atomics');
  return name;
}

/**
 * An atomic fetch as an expression of the element's old value (`CDialect.atomicFetch`): OpenCL
 * 1.2's built-ins return it for int32 and uint32 (`atomic_inc` for an add of 1), and float32's
 * exchange; a float's add, sub, min and max is a compare-and-swap loop that returns what it
 * replaced, and float64's exchange the bits exchanged as a long (cl_khr_int64_base_atomics).
 * Compare-exchange takes integers only (core refuses floats).
 */
export function openclAtomicFetch(
  op: AtomicFetchOp,
  dtype: DType,
  address: string,
  operands: readonly string[],
  printer: CExpressionPrinter,
  space: CAddressSpace,
): string {
  const [v] = operands;
  if (dtype === 'int32' || dtype === 'uint32') {
    if (op === 'compare-exchange') return `atomic_cmpxchg(${address}, ${operands[0]}, ${operands[1]})`;
    if (op === 'add' && /^1u?$/.test(v)) return `atomic_inc(${address})`;
    const builtin = { add: 'add', sub: 'sub', min: 'min', max: 'max', exchange: 'xchg' }[op];
    return `atomic_${builtin}(${address}, ${v})`;
  }
  if ((dtype === 'float32' || dtype === 'float64') && op !== 'compare-exchange') {
    if (op !== 'exchange') return `${floatHelper(op, dtype, printer, space, true)}(${address}, ${v})`;
    if (dtype === 'float32') return `atomic_xchg(${address}, ${v})`;
    printer.extensions.add('cl_khr_int64_base_atomics');
    return `as_double(atom_xchg((volatile ${printer.dialect.addressSpace(space)}long *) ${address}, as_long(${v})))`;
  }
  throw new InternalError(`an atomic ${op} fetch of ${dtype} reached the OpenCL printer`);
}
