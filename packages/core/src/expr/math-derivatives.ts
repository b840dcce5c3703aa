/**
 * The derivative of every known function (math-functions.ts), for `diffKernel`'s chain rule:
 * one entry per function, so a function added to that table without one here fails to compile.
 *
 * An entry is one of:
 *  - `partials`: the partial derivative by each argument, as expressions in the arguments;
 *  - `linear`: the function is linear (`real`, `conj`): its derivative is the function of the
 *    arguments' derivatives;
 *  - `constant`: its value does not change under small changes of its arguments, where it is
 *    differentiable at all (rounding, truth values): the derivative is 0.
 *
 * Where a function has a kink (`abs` at 0, `min` where its arguments tie) the derivative is
 * one of the one-sided ones, as automatic differentiation tools take it: of tied arguments of
 * `min` and `max`, the first one's.
 */
import type { MathFunctionName } from './math-functions.ts';
import { add, binary, call, compare, type Expr, float, ifThenElse, logical, mul, neg, sub } from './nodes.ts';

/** How `diffKernel` differentiates a call of one known function (see the file's comment). */
export type MathDerivative =
  | {
      /** Differentiated through its partial derivatives. */
      readonly kind: 'partials';
      /** The partial derivative by each argument, as expressions in the arguments. */
      readonly partials: (args: readonly Expr[]) => readonly Expr[];
    }
  | {
      /** Linear: the derivative is the function of the arguments' derivatives. */
      readonly kind: 'linear';
    }
  | {
      /** Piecewise constant: the derivative is 0. */
      readonly kind: 'constant';
    };

const div = (a: Expr, b: Expr) => binary('/', a, b);
const sq = (a: Expr) => mul(a, a);
const f = (name: string, ...args: Expr[]) => call(name, args);
const one = float(1);
const ifElse = (c: Expr, a: Expr, b: Expr) => ifThenElse(c, a, b);
/** `d f(x) = g(x) dx`. */
const unary = (g: (x: Expr) => Expr): MathDerivative => ({ kind: 'partials', partials: ([x]) => [g(x)] });
const partials = (p: (args: readonly Expr[]) => readonly Expr[]): MathDerivative => ({ kind: 'partials', partials: p });
const CONSTANT: MathDerivative = { kind: 'constant' };
const LINEAR: MathDerivative = { kind: 'linear' };
/** The sign of `x` as a float (1 at +0, -1 at -0): the derivative of |x|. */
const sign = (x: Expr) => f('copysign', one, x);
const indicator = (c: Expr) => ifElse(c, one, float(0));
const all = (conditions: readonly Expr[]) => conditions.reduce((acc, c) => logical('and', acc, c));
/**
 * The partials of `min` (`'<'`) or `max` (`'>'`) of any number of arguments: 1 by the first
 * argument that the result is, 0 by the others.
 */
const selection =
  (strictly: '<' | '>') =>
  (args: readonly Expr[]): readonly Expr[] =>
    args.map((a, k) =>
      args.length === 1
        ? one
        : indicator(
            all(
              args.flatMap((b, j) =>
                j === k ? [] : [compare(j < k ? strictly : strictly === '<' ? '<=' : '>=', a, b)],
              ),
            ),
          ),
    );

const LN2 = float(Math.LN2);
const LN10 = float(Math.LN10);
const TWO_OVER_SQRT_PI = float(2 / Math.sqrt(Math.PI));

/** Each known function's derivative (see the file's comment). */
export const MATH_DERIVATIVES: Readonly<Record<MathFunctionName, MathDerivative>> = Object.freeze({
  sin: unary((x) => f('cos', x)),
  cos: unary((x) => neg(f('sin', x))),
  tan: unary((x) => add(one, sq(f('tan', x)))),
  asin: unary((x) => div(one, f('sqrt', sub(one, sq(x))))),
  acos: unary((x) => neg(div(one, f('sqrt', sub(one, sq(x)))))),
  atan: unary((x) => div(one, add(one, sq(x)))),
  // atan2(y, x): the angle of (x, y)
  atan2: partials(([y, x]) => [div(x, add(sq(x), sq(y))), neg(div(y, add(sq(x), sq(y))))]),
  sinh: unary((x) => f('cosh', x)),
  cosh: unary((x) => f('sinh', x)),
  tanh: unary((x) => sub(one, sq(f('tanh', x)))),
  asinh: unary((x) => div(one, f('sqrt', add(sq(x), one)))),
  acosh: unary((x) => div(one, f('sqrt', sub(sq(x), one)))),
  atanh: unary((x) => div(one, sub(one, sq(x)))),
  exp: unary((x) => f('exp', x)),
  exp2: unary((x) => mul(f('exp2', x), LN2)),
  expm1: unary((x) => f('exp', x)),
  log: unary((x) => div(one, x)),
  log2: unary((x) => div(one, mul(x, LN2))),
  log10: unary((x) => div(one, mul(x, LN10))),
  log1p: unary((x) => div(one, add(one, x))),
  sqrt: unary((x) => div(float(0.5), f('sqrt', x))),
  rsqrt: unary((x) => neg(div(mul(float(0.5), f('rsqrt', x)), x))),
  cbrt: unary((x) => div(one, mul(float(3), sq(f('cbrt', x))))),
  hypot: partials(([x, y]) => [div(x, f('hypot', x, y)), div(y, f('hypot', x, y))]),
  abs: unary(sign),
  fabs: unary(sign),
  floor: CONSTANT,
  ceil: CONSTANT,
  round: CONSTANT,
  trunc: CONSTANT,
  min: partials(selection('<')),
  max: partials(selection('>')),
  fmin: partials(selection('<')),
  fmax: partials(selection('>')),
  // clamp(x, lo, hi) is min(max(x, lo), hi)
  clamp: partials(([x, lo, hi]) => {
    const inside = compare('<=', f('max', x, lo), hi);
    return [
      indicator(logical('and', inside, compare('>=', x, lo))),
      indicator(logical('and', inside, compare('<', x, lo))),
      ifElse(inside, float(0), one),
    ];
  }),
  copysign: partials(([x, y]) => [mul(sign(x), sign(y)), float(0)]),
  // x**y: the second partial only counts where y varies (diffKernel drops a zero derivative's term)
  pow: partials(([x, y]) => [mul(y, f('pow', x, sub(y, one))), mul(f('pow', x, y), f('log', x))]),
  // fmod(x, y) is x - trunc(x/y)*y
  fmod: partials(([x, y]) => [one, neg(f('trunc', div(x, y)))]),
  erf: unary((x) => mul(TWO_OVER_SQRT_PI, f('exp', neg(sq(x))))),
  erfc: unary((x) => neg(mul(TWO_OVER_SQRT_PI, f('exp', neg(sq(x)))))),
  fma: partials(([a, b]) => [b, a, one]),
  isnan: CONSTANT,
  isinf: CONSTANT,
  isfinite: CONSTANT,
  real: LINEAR,
  imag: LINEAR,
  conj: LINEAR,
  // functions of integers' bits: an integer result has no derivative
  mul_hi: CONSTANT,
  rotate: CONSTANT,
});
