/**
 * `trace` statements in the C-family languages: one `printf` a line (OpenCL, CUDA and C all
 * have it), each value converted to what its conversion prints.
 */
import { isFloat, isNarrowFloat, type DType, type Expr } from '@loom/core';
import type { CExpressionPrinter } from './expressions.ts';
import { PRECEDENCE, paren } from './precedence.ts';

/** How `printf` prints the integers `int` does not hold: its conversion and the type the value is cast to. */
const TRACE_INTEGERS: Partial<Record<DType, readonly [string, string]>> = {
  uint32: ['%u', 'unsigned int'],
  int64: ['%ld', 'long'],
  uint64: ['%lu', 'unsigned long'],
};

/**
 * A `trace` statement's line as a `printf` call: integers in decimal (64-bit ones as `long`,
 * which is 64 bits in OpenCL C, and in C and CUDA on the 64-bit Unix platforms Loom runs on),
 * floats as `%g` (a float16 as a float).
 */
export function printTraceLine(
  printer: CExpressionPrinter,
  pieces: readonly string[],
  values: readonly { readonly value: Expr; readonly dtype: DType }[],
): string {
  printer.prints = true;
  const escape = (text: string) => JSON.stringify(text.replace(/%/g, '%%')).slice(1, -1);
  const printed = values.map(({ value, dtype }) => {
    const text = printer.expr(value, dtype);
    if (isFloat(dtype))
      return { spec: '%g', arg: isNarrowFloat(dtype) ? `(float) ${paren(text, PRECEDENCE.unary)}` : text.text };
    const [spec, type] = TRACE_INTEGERS[dtype] ?? ['%d', 'int'];
    return { spec, arg: `(${type}) ${paren(text, PRECEDENCE.unary)}` };
  });
  const format = pieces.map((p, k) => escape(p) + (k < printed.length ? printed[k].spec : '')).join('');
  return `printf("${format}\\n"${printed.map((p) => `, ${p.arg}`).join('')})`;
}
