/**
 * OpenCL's atomic updates: integers use OpenCL's built-in atomics; floats (which OpenCL 1.2
 * has no atomic add for) use a compare-and-swap loop on the value's bits.
 */
import { LoomError, type DType } from '@loom/core';
import type { AtomicUpdate, CExpressionPrinter } from '@loom/codegen-cfamily';
import { clType } from './c-types.ts';

/** The statement of an atomic update of `dtype` at `address` (`CDialect.atomic`). */
export function openclAtomic(
  { op }: AtomicUpdate,
  dtype: DType,
  address: string,
  v: string,
  printer: CExpressionPrinter,
  insnId: string,
): string {
  if (dtype === 'int32' || dtype === 'uint32') return `atomic_${op}(${address}, ${v});`;
  if (dtype === 'float32' || dtype === 'float64') return `${floatHelper(op, dtype, printer)}(${address}, ${v});`;
  throw new LoomError(
    `instruction '${insnId}': atomic updates of ${dtype} are not supported on OpenCL (int32, uint32, float32, float64 are)`,
  );
}

function floatHelper(op: AtomicUpdate['op'], dtype: 'float32' | 'float64', printer: CExpressionPrinter): string {
  const name = `loom_atomic_${op}_${dtype}`;
  const t = clType(dtype);
  const bits = dtype === 'float32' ? 'unsigned int' : 'unsigned long';
  const cas = dtype === 'float32' ? 'atomic_cmpxchg' : 'atom_cmpxchg';
  // min and max as everywhere else: NaN propagates (torch.minimum/maximum), where C's fmin/fmax would drop it
  const combine =
    op === 'add'
      ? 'prev.value + operand'
      : `${printer.helperFunction(op === 'min' ? 'minimum' : 'maximum', dtype)}(prev.value, operand)`;
  printer.helpers.set(
    name,
    [
      `inline void ${name}(volatile __global ${t} *target, ${t} operand)`,
      '{',
      `  union { ${bits} bits; ${t} value; } prev, next;`,
      '  do',
      '  {',
      '    prev.value = *target;',
      `    next.value = ${combine};`,
      '  }',
      `  while (${cas}((volatile __global ${bits} *) target, prev.bits, next.bits) != prev.bits);`,
      '}',
    ].join('\n'),
  );
  if (dtype === 'float64') printer.extensions.add('cl_khr_int64_base_atomics');
  return name;
}
