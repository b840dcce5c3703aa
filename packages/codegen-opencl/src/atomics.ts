/**
 * `{atomic}` updates: `out[k] = out[k] + e` becomes an atomic add. Integers use
 * OpenCL's built-in atomics; floats (which OpenCL 1.2 has no atomic add for) use a
 * compare-and-swap loop on the value's bits.
 */
import { expr as E, LoomError, type DType, type Expr } from '@loom/core';

const { exprEquals } = E;
import { clType } from './c-types.ts';
import type { ClExpressionPrinter } from './expressions.ts';

export interface AtomicUpdate {
  readonly op: 'add' | 'min' | 'max';
  readonly operand: Expr;
}

/** Recognizes `t = t + e` (or `e + t`), `t = min(t, e)`, `t = max(t, e)`. */
export function atomicUpdateOf(target: Expr, value: Expr, insnId: string): AtomicUpdate {
  if (value.kind === 'binary' && value.op === '+') {
    if (exprEquals(value.left, target)) return { op: 'add', operand: value.right };
    if (exprEquals(value.right, target)) return { op: 'add', operand: value.left };
  }
  if (value.kind === 'call' && (value.fn === 'min' || value.fn === 'max') && value.args.length === 2) {
    if (exprEquals(value.args[0], target)) return { op: value.fn, operand: value.args[1] };
    if (exprEquals(value.args[1], target)) return { op: value.fn, operand: value.args[0] };
  }
  throw new LoomError(`instruction '${insnId}' is marked atomic, but only updates of the form x = x + e, x = min(x, e), x = max(x, e) can be done atomically`);
}

/** The statement for an atomic update, registering helper functions on the printer. */
export function printAtomic(target: Expr, value: Expr, dtype: DType, insnId: string, printer: ClExpressionPrinter): string {
  const { op, operand } = atomicUpdateOf(target, value, insnId);
  const address = `&${printer.print(target)}`;
  const v = printer.print(operand, dtype);
  if (dtype === 'int32' || dtype === 'uint32') return `atomic_${op}(${address}, ${v});`;
  if (dtype === 'float32' || dtype === 'float64') return `${floatHelper(op, dtype, printer)}(${address}, ${v});`;
  throw new LoomError(`instruction '${insnId}': atomic updates of ${dtype} are not supported on OpenCL (int32, uint32, float32, float64 are)`);
}

function floatHelper(op: AtomicUpdate['op'], dtype: 'float32' | 'float64', printer: ClExpressionPrinter): string {
  const name = `loom_atomic_${op}_${dtype}`;
  const t = clType(dtype);
  const bits = dtype === 'float32' ? 'unsigned int' : 'unsigned long';
  const cas = dtype === 'float32' ? 'atomic_cmpxchg' : 'atom_cmpxchg';
  // min and max as everywhere else: NaN propagates (torch.minimum/maximum), where C's fmin/fmax would drop it
  const combine = op === 'add' ? 'prev.value + operand' : `${printer.helperFunction(op === 'min' ? 'minimum' : 'maximum', dtype)}(prev.value, operand)`;
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
