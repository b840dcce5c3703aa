/**
 * The functions the expression language knows, in one table: C's math library as OpenCL and
 * loopy have it, with one meaning on every target (the README's table of functions). Type
 * inference, the parser, the elementwise layer and the printers derive what they need from it,
 * so a function is added here once and every layer that does not know how to handle it fails
 * to compile or says so.
 *
 * `min`/`max` propagate NaN (PyTorch's minimum/maximum), while `fmin`/`fmax` ignore it (C's,
 * and PyTorch's fmin/fmax); `isnan`, `isinf` and `isfinite` are truth values; `real`, `imag`,
 * `conj` (and `abs`) work on complex values. `mul_hi` and `rotate` (OpenCL's) work on the bits of
 * 32- and 64-bit integers: what counter-based random numbers (Philox, Threefry) are made of.
 */

/** One known function: its arity, its result's dtype, and the names other languages call it by. */
export interface MathFunction {
  /** How many arguments it takes; `'variadic'`: one or more. */
  readonly arity: number | 'variadic';
  /**
   * Its result's dtype: `'float'` a float, integer arguments computed in float64 (sin, pow, fmod);
   * `'argument'` the arguments' (promoted) dtype, so integers stay integers (abs, min, floor);
   * `'truth'` a truth value (isnan).
   */
  readonly result: 'float' | 'argument' | 'truth';
  /** The identity on integers (floor, ceil, round, trunc). */
  readonly rounding?: true;
  /** Of a complex value, a real one: its part's dtype (real, imag, abs). */
  readonly realOfComplex?: true;
  /** Defined on complex values only (real, imag, conj): lowered to the parts before any printer sees it. */
  readonly complexOnly?: true;
  /**
   * Defined on 32- and 64-bit integers only, on their bits (mul_hi, rotate): a call on floats or
   * narrower integers is a LoomError when the kernel is typed. Each target spells it with its
   * built-in where it has one (OpenCL's `mul_hi`, CUDA's `__umul64hi`) and a helper elsewhere.
   */
  readonly integerBits?: true;
  /** The name C-family printers call for its float version (C99's `<math.h>`, which OpenCL C and CUDA share); undefined where they print it by rules of their own. */
  readonly c?: string;
  /** Whether JavaScript's `Math.<name>` is this function on doubles (the CPU device and constant folding call it). */
  readonly js?: true;
}

const float = (arity: number, c?: string, js?: true): MathFunction => ({
  arity,
  result: 'float',
  ...(c ? { c } : {}),
  ...(js ? { js } : {}),
});
const rounding = (name: string): MathFunction => ({
  arity: 1,
  result: 'argument',
  rounding: true,
  c: name,
  ...(name === 'round' ? {} : { js: true }),
});

/** The known functions (see the file's comment). */
export const MATH_FUNCTIONS = Object.freeze({
  sin: float(1, 'sin', true),
  cos: float(1, 'cos', true),
  tan: float(1, 'tan', true),
  asin: float(1, 'asin', true),
  acos: float(1, 'acos', true),
  atan: float(1, 'atan', true),
  atan2: float(2, 'atan2', true),
  sinh: float(1, 'sinh', true),
  cosh: float(1, 'cosh', true),
  tanh: float(1, 'tanh', true),
  asinh: float(1, 'asinh', true),
  acosh: float(1, 'acosh', true),
  atanh: float(1, 'atanh', true),
  exp: float(1, 'exp', true),
  exp2: float(1, 'exp2'),
  expm1: float(1, 'expm1', true),
  log: float(1, 'log', true),
  log2: float(1, 'log2', true),
  log10: float(1, 'log10', true),
  log1p: float(1, 'log1p', true),
  sqrt: float(1, 'sqrt', true),
  // not C99's: OpenCL C and CUDA have it
  rsqrt: float(1),
  cbrt: float(1, 'cbrt', true),
  hypot: float(2, 'hypot'),
  abs: { arity: 1, result: 'argument', realOfComplex: true, c: 'fabs', js: true },
  fabs: float(1, 'fabs'),
  floor: rounding('floor'),
  ceil: rounding('ceil'),
  // JavaScript's Math.round takes halves towards +infinity, C's away from zero
  round: rounding('round'),
  trunc: rounding('trunc'),
  min: { arity: 'variadic', result: 'argument', js: true },
  max: { arity: 'variadic', result: 'argument', js: true },
  fmin: float(2),
  fmax: float(2),
  clamp: { arity: 3, result: 'argument' },
  copysign: float(2, 'copysign'),
  // C's pow(1, NaN) is 1, JavaScript's NaN
  pow: float(2, 'pow'),
  fmod: float(2, 'fmod'),
  erf: float(1, 'erf'),
  erfc: float(1, 'erfc'),
  fma: float(3, 'fma'),
  isnan: { arity: 1, result: 'truth' },
  isinf: { arity: 1, result: 'truth' },
  isfinite: { arity: 1, result: 'truth' },
  real: { arity: 1, result: 'argument', realOfComplex: true, complexOnly: true },
  imag: { arity: 1, result: 'argument', realOfComplex: true, complexOnly: true },
  conj: { arity: 1, result: 'argument', complexOnly: true },
  // OpenCL C's: the high half of the full product, and a left rotation by the count modulo the width
  mul_hi: { arity: 2, result: 'argument', integerBits: true },
  rotate: { arity: 2, result: 'argument', integerBits: true },
} satisfies Record<string, MathFunction>);

/** The name of a known function. */
export type MathFunctionName = keyof typeof MATH_FUNCTIONS;

/** Whether `name` is a known function (not a property of every object: `constructor` is none). */
export const isMathFunction = (name: string): name is MathFunctionName => Object.hasOwn(MATH_FUNCTIONS, name);

/** The known functions whose entry satisfies `test`. */
export function mathFunctionsWhere(test: (f: MathFunction, name: MathFunctionName) => boolean): Set<MathFunctionName> {
  return new Set(
    (Object.entries(MATH_FUNCTIONS) as [MathFunctionName, MathFunction][])
      .filter(([name, f]) => test(f, name))
      .map(([name]) => name),
  );
}
