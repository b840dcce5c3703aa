/**
 * CUDA's names of Loom's math functions. CUDA C++ has float overloads of some C names, but not
 * of all, and loopy prints C's single-precision names: float32 calls the `f`-suffixed function
 * (`sinf`, `expf`, `fmaf`), float64 the plain one (`sin`). Every one below is in CUDA's math
 * API for both precisions (`rsqrtf`/`rsqrt` included), so NVRTC needs no header for them.
 */
import { nameTable, type DType } from '@loom/core';

// no prototype: a call of `constructor` finds nothing here, like any unknown function
const DOUBLE_NAMES: Readonly<Record<string, string>> = nameTable({
  sin: 'sin',
  cos: 'cos',
  tan: 'tan',
  asin: 'asin',
  acos: 'acos',
  atan: 'atan',
  atan2: 'atan2',
  sinh: 'sinh',
  cosh: 'cosh',
  tanh: 'tanh',
  asinh: 'asinh',
  acosh: 'acosh',
  atanh: 'atanh',
  exp: 'exp',
  exp2: 'exp2',
  expm1: 'expm1',
  log: 'log',
  log2: 'log2',
  log10: 'log10',
  log1p: 'log1p',
  sqrt: 'sqrt',
  rsqrt: 'rsqrt',
  cbrt: 'cbrt',
  hypot: 'hypot',
  abs: 'fabs',
  fabs: 'fabs',
  floor: 'floor',
  ceil: 'ceil',
  round: 'round',
  trunc: 'trunc',
  copysign: 'copysign',
  pow: 'pow',
  fmod: 'fmod',
  erf: 'erf',
  erfc: 'erfc',
  fma: 'fma',
});

/** CUDA's name of math function `fn` (Loom's name) on dtype `t`: float32 (and float16, computed in float) take the `f` suffix. */
export function cudaMathFunction(fn: string, t: DType): string | undefined {
  const name = DOUBLE_NAMES[fn];
  return name === undefined || t === 'float64' ? name : `${name}f`;
}

/** Every CUDA math function name this target prints, both precisions (reserved as identifiers). */
export const CUDA_MATH_NAMES: readonly string[] = Object.values(DOUBLE_NAMES).flatMap((n) => [n, `${n}f`]);
