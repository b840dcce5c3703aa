/**
 * CUDA's names of Loom's math functions, derived from C's (`C_MATH_FUNCTIONS`, core's table):
 * CUDA C++ has float overloads of some C names, but not of all, and loopy prints C's
 * single-precision names, so float32 calls the `f`-suffixed function (`sinf`, `expf`, `fmaf`)
 * and float64 the plain one (`sin`). CUDA's math API has every C99 function of the table in
 * both precisions and spells none otherwise; beyond C99 it has `rsqrtf`/`rsqrt`. NVRTC needs no
 * header for any of them.
 */
import { C_MATH_FUNCTIONS } from '@loom/codegen-cfamily';
import { nameTable, type DType } from '@loom/core';

// C's names, and CUDA's rsqrt beyond C99's (no prototype: a call of `constructor` finds nothing here)
const DOUBLE_NAMES: Readonly<Record<string, string>> = nameTable({ ...C_MATH_FUNCTIONS, rsqrt: 'rsqrt' });

/** CUDA's name of math function `fn` (Loom's name) on dtype `t`: float32 (and float16, computed in float) take the `f` suffix. */
export function cudaMathFunction(fn: string, t: DType): string | undefined {
  const name = DOUBLE_NAMES[fn];
  return name === undefined || t === 'float64' ? name : `${name}f`;
}

/** Every CUDA math function name this target prints, both precisions (reserved as identifiers). */
export const CUDA_MATH_NAMES: readonly string[] = Object.values(DOUBLE_NAMES).flatMap((n) => [n, `${n}f`]);
