/**
 * What a payload's JavaScript means where it differs from the kernel language's C and
 * PyTorch meaning (README: "a function means what JavaScript means"), as IR built from
 * the kernel language's own operations, so that every device computes it alike:
 *
 * - truthiness: NaN and ±0 are false (C takes NaN as true);
 * - `x && y`, `x || y` give an operand (`2 && 3` is 3), not a bool;
 * - `Math.round(x)` is the nearest integer, halves up, computed without `x + 0.5`
 *   (which rounds 0.49999999999999994 up), with the sign of x kept for zeros;
 * - `Math.hypot` scales by the largest argument, so it neither overflows nor underflows;
 * - `x ** y` is NaN for a NaN exponent and for (±1) ** ±Infinity (C's pow gives 1).
 */
import { expr, type Expr } from '@loom/core';

const { binary, call, compare, float, ifThenElse, int, logical } = expr;

export interface JsContext {
  /** A temporary holding `e`, so that it is computed once. */
  readonly bind: (e: Expr) => Expr;
  /** A name holding a constant of the payload's float dtype: one the kernel language cannot spell (NaN, ±Infinity, -0), or beyond float32 (2^600). */
  readonly constant: (value: number) => Expr;
  /** Whether `e` is a float (integers have no NaN and no -0). */
  readonly isFloat: (e: Expr) => boolean;
  /** The width of float `e`'s dtype (float16 computes as float32). */
  readonly floatBits: (e: Expr) => 32 | 64;
}

/** `e` as a JavaScript condition: non-zero and, for floats, not NaN. */
export function jsTruthy(e: Expr, c: JsContext): Expr {
  const nonZero = compare('!=', e, int(0));
  if (!c.isFloat(e)) return nonZero;
  const x = c.bind(e);
  return logical('and', compare('!=', x, int(0)), compare('==', x, x));
}

/** `x && y` (`op` 'and') or `x || y`: the operand that decides, as JavaScript returns it. */
export function jsLogical(op: 'and' | 'or', left: Expr, right: Expr, c: JsContext): Expr {
  const x = c.bind(left);
  const decided = jsTruthy(x, c);
  return op === 'and' ? ifThenElse(decided, right, x) : ifThenElse(decided, x, right);
}

/** `Math.round(x)` of a float: floor(x), plus 1 when x is at least halfway to the next integer. */
export function jsRound(e: Expr, c: JsContext): Expr {
  const x = c.bind(e);
  const down = c.bind(call('floor', [x]));
  // x - floor(x) is exact, so the halfway test is too
  const rounded = c.bind(ifThenElse(compare('>=', binary('-', x, down), float(0.5)), binary('+', down, int(1)), down));
  // a zero result has x's sign: Math.round(-0.2) is -0 (not x * 0, which compilers fold to +0)
  const zero = ifThenElse(compare('<', x, int(0)), c.constant(-0), ifThenElse(compare('==', x, int(0)), x, int(0)));
  return ifThenElse(compare('==', rounded, int(0)), zero, rounded);
}

/**
 * Where `Math.hypot` rescales, per float width: magnitudes beyond `big` are multiplied by
 * `down` and magnitudes below `small` by `up` (powers of two, so exact), which keeps the
 * squares of the largest one normal. No division and no subnormal constant: GPUs that
 * divide through a reciprocal and flush subnormals (NVIDIA under Vulkan) would turn
 * `x / 3e38` into 0.
 */
const HYPOT_SCALES = {
  32: { big: 2 ** 60, down: 2 ** -70, small: 2 ** -60, up: 2 ** 70 },
  64: { big: 2 ** 500, down: 2 ** -600, small: 2 ** -500, up: 2 ** 600 },
} as const;

/**
 * `Math.hypot(...xs)`: Infinity if any is infinite (even beside a NaN), else NaN if any
 * is NaN, else sqrt(Σx²) computed on magnitudes scaled by a power of two into a range
 * where the squares neither overflow nor underflow.
 */
export function jsHypot(args: readonly Expr[], c: JsContext): Expr {
  const magnitudes = args.map((a) => c.bind(call('abs', [a])));
  if (magnitudes.length === 1) return magnitudes[0];
  const infinity = c.constant(Infinity);
  const anyInfinite = magnitudes.map((m): Expr => compare('==', m, infinity)).reduce((p, q) => logical('or', p, q));
  const largest = c.bind(call('max', magnitudes)); // NaN if any is NaN
  const { big, down, small, up } = HYPOT_SCALES[c.floatBits(largest)];
  // constants of the dtype itself: a literal would be float32, where 2^600 is Inf
  const [bigC, downC, smallC, upC] = [big, down, small, up].map((v) => c.constant(v));
  const scale = c.bind(
    ifThenElse(compare('>', largest, bigC), downC, ifThenElse(compare('<', largest, smallC), upC, float(1))),
  );
  const scaled = magnitudes.map((m) => c.bind(binary('*', m, scale)));
  const sum = scaled.map((s) => binary('*', s, s)).reduce((p, q) => binary('+', p, q));
  const hypot = binary('/', call('sqrt', [sum]), scale); // a power of two: exact
  return ifThenElse(anyInfinite, infinity, hypot);
}

/** `x ** y` of floats: C's pow, except that a NaN exponent, and ±1 to an infinite power, give NaN. */
export function jsPow(base: Expr, exponent: Expr, c: JsContext): Expr {
  const [x, y] = [c.bind(base), c.bind(exponent)];
  const nan = c.constant(NaN);
  const oneToInfinity = logical(
    'and',
    compare('==', call('abs', [x]), int(1)),
    compare('==', call('abs', [y]), c.constant(Infinity)),
  );
  return ifThenElse(logical('or', compare('!=', y, y), oneToInfinity), nan, binary('**', x, y));
}
