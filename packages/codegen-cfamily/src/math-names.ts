/**
 * C's names of Loom's math functions, read from core's one table (`MATH_FUNCTIONS`, each
 * entry's `c`): the names a C-family dialect starts from. A dialect adds what its language has
 * beyond C99 (OpenCL C's and CUDA's `rsqrt`) and spells a precision its own way (CUDA's
 * `sinf`), so that a function added to core's table reaches every C-family target at once.
 */
import { MATH_FUNCTIONS, nameTable, type MathFunction } from '@loom/core';

/**
 * Loom's name → C99's `<math.h>` name of the function on doubles (`abs` → `fabs`), for every
 * function core's table gives a C name; the others (`min`, `isnan`, `fmin`) the C printer
 * spells by rules of its own. No prototype: a call of `constructor` finds nothing here.
 */
export const C_MATH_FUNCTIONS: Readonly<Record<string, string>> = nameTable(
  Object.fromEntries(
    (Object.entries(MATH_FUNCTIONS) as [string, MathFunction][]).flatMap(([name, f]) =>
      f.c === undefined ? [] : [[name, f.c]],
    ),
  ),
);
