/**
 * C99's names of Loom's math functions, from core's one table (`MATH_FUNCTIONS`' `c` names):
 * `<math.h>` names the double function plainly (`sin`) and the float one with an `f` (`sinf`),
 * so float32 (and float16, computed in float) calls `sinf`, float64 `sin`. No `<tgmath.h>`:
 * the generated code says which precision each call computes in. C lacks OpenCL's `rsqrt`;
 * the prelude defines it (`loom_rsqrtf`, `loom_rsqrt`).
 */
import { MATH_FUNCTIONS, nameTable, type DType, type MathFunction } from '@loom/core';

/** The double-precision names, from the table, and the one C lacks. */
const DOUBLE_NAMES: Readonly<Record<string, string>> = nameTable({
  ...Object.fromEntries(
    (Object.entries(MATH_FUNCTIONS) as [string, MathFunction][])
      .filter(([, f]) => f.c !== undefined)
      .map(([name, f]) => [name, f.c as string]),
  ),
  rsqrt: 'loom_rsqrt',
});

/** C's name of math function `fn` (Loom's name) on floats of dtype `t`, or undefined where C has none. */
export function cMathFunction(fn: string, t: DType): string | undefined {
  const name = DOUBLE_NAMES[fn];
  return name === undefined || t === 'float64' ? name : `${name}f`;
}

/** Every math function name this target prints, both precisions (reserved as identifiers). */
export const C_MATH_NAMES: readonly string[] = Object.values(DOUBLE_NAMES).flatMap((n) => [n, `${n}f`]);
