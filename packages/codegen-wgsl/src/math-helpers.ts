/**
 * WGSL helpers for the math functions WGSL has no built-in for, or none with the meaning
 * the other devices give (the README's table of functions):
 *
 * - `expm1`, `log1p`, `asinh`, `atanh`: without the cancellation of `exp(x) - 1`,
 *   `log(1 + x)`, `log(x + sqrt(x² + 1))` near 0 (WGSL's `exp` and `log` are accurate only
 *   to an absolute error there, and its `asinh` and `atanh` are defined through them): series
 *   for small arguments, the plain formula beyond;
 * - `hypot`: scaled by the larger magnitude, so that squaring neither overflows nor underflows;
 * - `erfc`: a Chebyshev fit with relative error below 1.2e-7 everywhere (1 - erf(x) would
 *   lose the digits of small results);
 * - `copysign`, `isinf`, `isfinite`, `fmin`, `fmax`: on the bits, as the NaN tests of
 *   `ieee-helpers.ts` are: a compiler may assume floats are finite.
 *
 * Each is written for f32; the f16 variants compute in f32, which holds every f16 exactly.
 */
import type { WgslScalar } from './types.ts';

export type MathHelperKind =
  | 'expm1'
  | 'log1p'
  | 'asinh'
  | 'atanh'
  | 'hypot'
  | 'erfc'
  | 'copysign'
  | 'isinf'
  | 'isfinite'
  | 'fmin'
  | 'fmax';

export const MATH_HELPER_KINDS: ReadonlySet<string> = new Set<MathHelperKind>([
  'expm1',
  'log1p',
  'asinh',
  'atanh',
  'hypot',
  'erfc',
  'copysign',
  'isinf',
  'isfinite',
  'fmin',
  'fmax',
]);

/** The helpers `kind` for `t` calls. */
export function mathHelperDependencies(
  kind: MathHelperKind,
  t: WgslScalar,
): readonly (readonly [string, WgslScalar])[] {
  if (t === 'f16') return [[kind, 'f32']];
  if (kind === 'asinh' || kind === 'atanh') return [['log1p', 'f32']];
  return kind === 'fmin' || kind === 'fmax' ? [['is_nan', 'f32']] : [];
}

const ARITY: Readonly<Record<MathHelperKind, number>> = {
  expm1: 1,
  log1p: 1,
  asinh: 1,
  atanh: 1,
  hypot: 2,
  erfc: 1,
  copysign: 2,
  isinf: 1,
  isfinite: 1,
  fmin: 2,
  fmax: 2,
};

/** The definition of helper `kind` for `t`, named `name`. */
export function mathHelperDefinition(kind: MathHelperKind, t: WgslScalar, name: string): string {
  const tests = kind === 'isinf' || kind === 'isfinite';
  if (t === 'f16') {
    const params = ARITY[kind] === 1 ? 'x: f16' : 'a: f16, b: f16';
    const args = ARITY[kind] === 1 ? 'f32(x)' : 'f32(a), f32(b)';
    const value = `${kind}_f32(${args})`;
    return fn(`// ${kind} of f16 values, computed in f32`, name, params, tests ? 'bool' : 'f16', [
      `return ${tests ? value : `f16(${value})`};`,
    ]);
  }
  switch (kind) {
    case 'expm1':
      return fn(
        '// exp(x) - 1, accurate near 0: its Taylor series below |x| = 0.5 (terms to x^10/10!)',
        name,
        'x: f32',
        'f32',
        [
          'if (abs(x) >= 0.5) { return exp(x) - 1.0; }',
          'var sum = 0.0;',
          'for (var k = 10.0; k >= 1.0; k = k - 1.0) { sum = x / k * (1.0 + sum); }',
          'return sum;',
        ],
      );
    case 'log1p':
      return fn(
        '// log(1 + x), accurate near 0: 2 atanh(s) with s = x / (2 + x), as a series below |x| = 0.5',
        name,
        'x: f32',
        'f32',
        [
          'if (abs(x) >= 0.5) { return log(1.0 + x); }',
          'let s = x / (2.0 + x);',
          'let s2 = s * s;',
          'var sum = 0.0;',
          'for (var k = 17.0; k >= 3.0; k = k - 2.0) { sum = s2 * (1.0 / k + sum); }',
          'return 2.0 * s * (1.0 + sum);',
        ],
      );
    case 'asinh':
      return fn(
        '// asinh(x) = log1p(|x| + x² / (1 + sqrt(1 + x²))), with the sign of x: accurate near 0',
        name,
        'x: f32',
        'f32',
        [
          'let a = abs(x);',
          'if (a > 1e18) { return sign(x) * (log(a) + 0.6931471805599453); }',
          'let r = sign(x) * log1p_f32(a + a * a / (1.0 + sqrt(1.0 + a * a)));',
          'return select(r, x, a == 0.0);',
        ],
      );
    case 'atanh':
      return fn('// atanh(x) = log1p(2x / (1 - x)) / 2: accurate near 0', name, 'x: f32', 'f32', [
        'return 0.5 * log1p_f32(2.0 * x / (1.0 - x));',
      ]);
    case 'hypot':
      return fn(
        '// sqrt(a² + b²), scaled by the larger magnitude: no overflow or underflow in the squares',
        name,
        'a: f32, b: f32',
        'f32',
        [
          'let big = max(abs(a), abs(b));',
          'let small = min(abs(a), abs(b));',
          'if (big == 0.0) { return 0.0; }',
          'let r = small / big;',
          'return big * sqrt(1.0 + r * r);',
        ],
      );
    case 'erfc':
      return fn(
        "// 1 - erf(x), relative error < 1.2e-7 (Numerical Recipes' Chebyshev fit of erfc)",
        name,
        'x: f32',
        'f32',
        [
          'let z = abs(x);',
          'let t = 1.0 / (1.0 + 0.5 * z);',
          'let p = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));',
          'let r = t * exp(-z * z + p);',
          'return select(2.0 - r, r, x >= 0.0);',
        ],
      );
    case 'copysign':
      return fn('// the magnitude of a with the sign bit of b (of zeros and NaNs too)', name, 'a: f32, b: f32', 'f32', [
        'return bitcast<f32>((bitcast<u32>(a) & 0x7fffffffu) | (bitcast<u32>(b) & 0x80000000u));',
      ]);
    case 'isinf':
      return fn('// ±Inf, told by the bits: a compiler may assume floats are finite', name, 'x: f32', 'bool', [
        'return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;',
      ]);
    case 'isfinite':
      return fn('// neither NaN nor ±Inf, told by the bits (an all-ones exponent is either)', name, 'x: f32', 'bool', [
        'return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;',
      ]);
    case 'fmin':
    case 'fmax': {
      const max = kind === 'fmax';
      return fn(
        `// C's ${kind}: a NaN argument ignored; ${max ? '+0 over -0' : '-0 under +0'}`,
        name,
        'a: f32, b: f32',
        'f32',
        [
          'if (is_nan_f32(a)) { return b; }',
          'if (is_nan_f32(b)) { return a; }',
          `if (a == b) { return bitcast<f32>(bitcast<u32>(a) ${max ? '&' : '|'} bitcast<u32>(b)); }`,
          `return ${max ? 'max' : 'min'}(a, b);`,
        ],
      );
    }
  }
}

function fn(comment: string, name: string, params: string, result: string, body: readonly string[]): string {
  return [comment, `fn ${name}(${params}) -> ${result} {`, ...body.map((l) => `  ${l}`), '}'].join('\n');
}
