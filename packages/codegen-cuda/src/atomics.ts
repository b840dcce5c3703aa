/**
 * CUDA's atomics. Stores (`atomic=init`) are `atomicExch` (int32, uint32, float32; float64's
 * bits as an unsigned long long), and loads (reads of a `forAtomic` variable) volatile reads,
 * which the hardware does whole for aligned 32- and 64-bit values. Updates: `atomicAdd` for int32, uint32, float32 and float64 (the last needs
 * compute capability 6.0, which every GPU NVRTC still targets has), `atomicMin`/`atomicMax` for
 * int32 and uint32, and for float min/max a compare-and-swap loop on the value's bits (CUDA has
 * no float atomicMin), with NaN propagating as Loom's min/max do everywhere. The dtypes are
 * OpenCL's: a Loom kernel's atomics work on the same dtypes on every GPU target.
 */
import { InternalError, LoomError, type DType } from '@loom/core';
import type { AtomicFetchOp, AtomicUpdate, CExpressionPrinter } from '@loom/codegen-cfamily';

/** The statement of an atomic update of `dtype` at `address` (`CDialect.atomic`). */
export function cudaAtomic(
  { op }: AtomicUpdate,
  dtype: DType,
  address: string,
  v: string,
  printer: CExpressionPrinter,
  insnId: string,
): string {
  const builtin = op === 'add' ? 'atomicAdd' : op === 'min' ? 'atomicMin' : 'atomicMax';
  if (dtype === 'int32' || dtype === 'uint32' || ((dtype === 'float32' || dtype === 'float64') && op === 'add'))
    return `${builtin}(${address}, ${v});`;
  if (dtype === 'float32' || dtype === 'float64')
    return `${floatMinMax(op as 'min' | 'max', dtype, printer)}(${address}, ${v});`;
  throw new LoomError(
    `instruction '${insnId}': atomic updates of ${dtype} are not supported on CUDA (int32, uint32, float32, float64 are)`,
  );
}

/**
 * An atomic update of any other form (`CDialect.atomicCompareSwap`): `old` loaded, `next` computed
 * from it, and stored by `atomicCAS` where the element still holds `old` (a float's bits as an
 * unsigned int, a double's as an unsigned long long), else again from what the exchange found.
 */
export function cudaAtomicCompareSwap(
  dtype: DType,
  address: string,
  old: string,
  next: string,
  _printer: CExpressionPrinter,
  insnId: string,
): string {
  const casts: Partial<Record<DType, readonly [string, string, string, string]>> = {
    int32: ['int', 'int', '', ''],
    uint32: ['unsigned int', 'unsigned int', '', ''],
    float32: ['float', 'unsigned int', '__float_as_uint', '__uint_as_float'],
    float64: ['double', 'unsigned long long', '(unsigned long long) __double_as_longlong', '__longlong_as_double'],
  };
  const cast = casts[dtype];
  if (!cast)
    throw new LoomError(
      `instruction '${insnId}': atomic updates of ${dtype} are not supported on CUDA (int32, uint32, float32, float64 are)`,
    );
  const [t, bits, toBits, fromBits] = cast;
  return [
    '{',
    `  ${bits} *loom_bits = (${bits} *) ${address};`,
    `  ${bits} loom_prev, loom_seen = *loom_bits;`,
    '  do',
    '  {',
    '    loom_prev = loom_seen;',
    `    ${t} const ${old} = ${fromBits}(loom_prev);`,
    `    loom_seen = atomicCAS(loom_bits, loom_prev, ${toBits}(${next}));`,
    '  }',
    '  while (loom_seen != loom_prev);',
    '}',
  ].join('\n');
}

/**
 * The compare-and-swap helper for an atomic float minimum or maximum, recorded on the printer: a
 * statement for an update, or (`returnsOld`, a fetch) an expression of the value it replaced.
 */
function floatMinMax(
  op: 'min' | 'max',
  dtype: 'float32' | 'float64',
  printer: CExpressionPrinter,
  returnsOld = false,
): string {
  const name = `loom_atomic_${returnsOld ? 'fetch_' : ''}${op}_${dtype}`;
  const combine = printer.helperFunction(op === 'min' ? 'minimum' : 'maximum', dtype);
  const [t, bits] = dtype === 'float32' ? ['float', 'unsigned int'] : ['double', 'unsigned long long'];
  const [toBits, fromBits] =
    dtype === 'float32'
      ? ['__float_as_uint', '__uint_as_float']
      : ['(unsigned long long) __double_as_longlong', '__longlong_as_double'];
  printer.helpers.set(
    name,
    [
      `inline __device__ ${returnsOld ? t : 'void'} ${name}(${t} *target, ${t} operand)`,
      '{',
      `  // compare-and-swap on the bits: CUDA has no float atomic${op === 'min' ? 'Min' : 'Max'}`,
      `  ${bits} *address = (${bits} *) target;`,
      `  ${bits} seen, prev = *address;`,
      '  do',
      '  {',
      '    seen = prev;',
      `    prev = atomicCAS(address, seen, ${toBits}(${combine}(${fromBits}(seen), operand)));`,
      '  }',
      '  while (prev != seen);',
      ...(returnsOld ? [`  return ${fromBits}(prev);`] : []),
      '}',
    ].join('\n'),
  );
  return name;
}

/**
 * An atomic fetch as an expression of the element's old value (`CDialect.atomicFetch`): CUDA's
 * atomics return it. int32 and uint32 have every operation built in (`atomicCAS` for
 * compare-exchange, which core allows on integers only); floats add with `atomicAdd` (a
 * subtraction adds the negated operand, which IEEE arithmetic makes the same), exchange with
 * `atomicExch` (float64's bits as an unsigned long long), and take their minimum and maximum by a
 * compare-and-swap loop.
 */
export function cudaAtomicFetch(
  op: AtomicFetchOp,
  dtype: DType,
  address: string,
  operands: readonly string[],
  printer: CExpressionPrinter,
): string {
  const [v] = operands;
  if (dtype === 'int32' || dtype === 'uint32') {
    if (op === 'compare-exchange') return `atomicCAS(${address}, ${operands[0]}, ${operands[1]})`;
    const builtin = { add: 'atomicAdd', sub: 'atomicSub', min: 'atomicMin', max: 'atomicMax', exchange: 'atomicExch' }[
      op
    ];
    return `${builtin}(${address}, ${v})`;
  }
  if ((dtype === 'float32' || dtype === 'float64') && op !== 'compare-exchange') {
    if (op === 'add') return `atomicAdd(${address}, ${v})`;
    if (op === 'sub') return `atomicAdd(${address}, -(${v}))`;
    if (op === 'min' || op === 'max') return `${floatMinMax(op, dtype, printer, true)}(${address}, ${v})`;
    if (dtype === 'float32') return `atomicExch(${address}, ${v})`;
    return `__longlong_as_double((long long) atomicExch((unsigned long long *) ${address}, (unsigned long long) __double_as_longlong(${v})))`;
  }
  throw new InternalError(`an atomic ${op} fetch of ${dtype} reached the CUDA printer`);
}

/** The statement storing `v` atomically at `address` (`CDialect.atomicStore`). */
export function cudaAtomicStore(
  dtype: DType,
  address: string,
  v: string,
  _printer: CExpressionPrinter,
  insnId: string,
): string {
  if (dtype === 'int32' || dtype === 'uint32' || dtype === 'float32') return `atomicExch(${address}, ${v});`;
  // CUDA has no double exchange: the bits exchanged as an unsigned long long
  if (dtype === 'float64')
    return `atomicExch((unsigned long long *) ${address}, (unsigned long long) __double_as_longlong(${v}));`;
  throw new LoomError(
    `instruction '${insnId}': atomic stores of ${dtype} are not supported on CUDA (int32, uint32, float32, float64 are)`,
  );
}

/** An atomic load of the `dtype` at `address` (`CDialect.atomicLoad`): a volatile read, const or not. */
export function cudaAtomicLoad(dtype: DType, address: string, printer: CExpressionPrinter): string {
  return `*(volatile ${printer.dialect.type(dtype)} const *) ${address}`;
}
