/**
 * Complex arithmetic as real arithmetic on the parts: the one representation of complex
 * values Loom has, in kernels (preprocess/lower-complex.ts) and in `pointwise()` payloads
 * (@loom/elementwise). A complex value is its real and imaginary part, two real
 * expressions; every operation below builds the parts of its result, with PyTorch's
 * formulas (c10::complex): Smith's division, which does not overflow by squaring the
 * divisor, and the principal branches of `log` and `sqrt`.
 *
 * `bind` names a value that a formula uses several times, so that it is computed once (a
 * temporary); the identity is always correct, only slower.
 */
import { LoomError } from '../errors.ts';
import { binary, call, compare, float, ifThenElse, int, logical, neg, type Expr } from './nodes.ts';

/** A complex value as its real and imaginary part expressions. */
export interface ComplexParts {
  /** The real part. */
  readonly re: Expr;
  /** The imaginary part. */
  readonly im: Expr;
}

/** Binds an expression to a name (a temporary) so that it is evaluated once, returning the name. */
export type Bind = (e: Expr) => Expr;

/** The functions of a complex argument that `complexFunction` knows. */
export const COMPLEX_FUNCTIONS: readonly string[] = ['abs', 'exp', 'log', 'sqrt', 'sin', 'cos', 'conj', 'real', 'imag'];

/** The parts of `x + y` (or `x - y`). */
export function complexAdd(x: ComplexParts, y: ComplexParts, op: '+' | '-' = '+'): ComplexParts {
  return { re: binary(op, x.re, y.re), im: binary(op, x.im, y.im) };
}

/** The parts of `x * y`, each operand part bound once. */
export function complexMultiply(x: ComplexParts, y: ComplexParts, bind: Bind): ComplexParts {
  const [a, b, c, d] = [bind(x.re), bind(x.im), bind(y.re), bind(y.im)];
  return {
    re: binary('-', binary('*', a, c), binary('*', b, d)),
    im: binary('+', binary('*', a, d), binary('*', b, c)),
  };
}

/** Smith's algorithm, as c10::complex (and numpy) divide: no overflow from squaring the divisor. */
export function complexDivide(x: ComplexParts, y: ComplexParts, bind: Bind): ComplexParts {
  const [a, b, c, d] = [bind(x.re), bind(x.im), bind(y.re), bind(y.im)];
  const [absC, absD] = [call('abs', [c]), call('abs', [d])];
  const cWider = bind(compare('>=', absC, absD));
  const bothZero = logical('and', compare('==', c, int(0)), compare('==', d, int(0)));
  const rat = bind(ifThenElse(cWider, binary('/', d, c), binary('/', c, d)));
  const scl = bind(
    binary('/', float(1), ifThenElse(cWider, binary('+', c, binary('*', d, rat)), binary('+', d, binary('*', c, rat)))),
  );
  const re = ifThenElse(
    cWider,
    ifThenElse(bothZero, binary('/', a, absC), binary('*', binary('+', a, binary('*', b, rat)), scl)),
    binary('*', binary('+', binary('*', a, rat), b), scl),
  );
  const im = ifThenElse(
    cWider,
    ifThenElse(bothZero, binary('/', b, absD), binary('*', binary('-', b, binary('*', a, rat)), scl)),
    binary('*', binary('-', binary('*', b, rat), a), scl),
  );
  return { re, im };
}

/** `x == y` for complex values (both parts equal); `!=` is its negation. */
export function complexEquals(x: ComplexParts, y: ComplexParts): Expr {
  return logical('and', compare('==', x.re, y.re), compare('==', x.im, y.im));
}

/** A complex value as a truth value: non-zero (either part; NaN counts as non-zero, as for reals). */
export function complexTruthy(z: ComplexParts): Expr {
  return logical('or', compare('!=', z.re, int(0)), compare('!=', z.im, int(0)));
}

/**
 * `fn(z)` for a complex `z`: a real value (`abs`, `real`, `imag`) or a complex one. Other
 * functions are not defined for complex values here: a LoomError.
 */
export function complexFunction(
  fn: string,
  z: ComplexParts,
  bind: Bind,
): { readonly real: Expr } | { readonly complex: ComplexParts } {
  const re = bind(z.re);
  const im = bind(z.im);
  const modulus = () => call('hypot', [re, im]);
  switch (fn) {
    case 'real':
      return { real: re };
    case 'imag':
      return { real: im };
    case 'abs':
      return { real: modulus() };
    case 'conj':
      return { complex: { re, im: neg(im) } };
    case 'exp': {
      const e = bind(call('exp', [re]));
      return { complex: { re: binary('*', e, call('cos', [im])), im: binary('*', e, call('sin', [im])) } };
    }
    case 'log':
      return { complex: { re: call('log', [modulus()]), im: call('atan2', [im, re]) } };
    case 'sqrt': {
      // the principal root: real part >= 0, imaginary part with the sign of im
      const r = bind(modulus());
      const x = call('sqrt', [binary('/', binary('+', r, re), float(2))]);
      const y = call('sqrt', [binary('/', binary('-', r, re), float(2))]);
      return { complex: { re: x, im: ifThenElse(compare('<', im, int(0)), neg(y), y) } };
    }
    case 'sin':
      return {
        complex: {
          re: binary('*', call('sin', [re]), call('cosh', [im])),
          im: binary('*', call('cos', [re]), call('sinh', [im])),
        },
      };
    case 'cos':
      return {
        complex: {
          re: binary('*', call('cos', [re]), call('cosh', [im])),
          im: neg(binary('*', call('sin', [re]), call('sinh', [im]))),
        },
      };
    default:
      throw new LoomError(`${fn} is not defined for complex values here (${COMPLEX_FUNCTIONS.join(', ')} are)`);
  }
}

/**
 * The parts of `x ** y`. An integer literal exponent `n` (|n| <= 100) is repeated squaring,
 * then 1/x^-n for a negative one, as numpy's `npy_cpow` does (exact where the products are);
 * any other exponent is `exp(y * log(x))` on the principal branch (PyTorch's, C's `cpow`),
 * with `0 ** y` being 1 for `y == 0` and 0 otherwise, where the logarithm of 0 would give NaN.
 */
export function complexPower(x: ComplexParts, y: ComplexParts, exponent: Expr, bind: Bind): ComplexParts {
  if (exponent.kind === 'int' && Math.abs(exponent.value) <= 100) {
    const n = Math.abs(exponent.value);
    let result: ComplexParts = { re: float(1), im: float(0) };
    let square: ComplexParts = { re: bind(x.re), im: bind(x.im) };
    for (let bits = n, first = true; bits > 0; bits >>= 1) {
      if (bits & 1) {
        result = first ? square : complexMultiply(result, square, bind);
        first = false;
      }
      if (bits > 1) square = complexMultiply(square, square, bind);
    }
    return exponent.value < 0 ? complexDivide({ re: float(1), im: float(0) }, result, bind) : result;
  }
  const [a, b, c, d] = [bind(x.re), bind(x.im), bind(y.re), bind(y.im)];
  const logModulus = bind(call('log', [call('hypot', [a, b])]));
  const angle = bind(call('atan2', [b, a]));
  // y * log(x), then exp of it
  const re = bind(binary('-', binary('*', c, logModulus), binary('*', d, angle)));
  const im = bind(binary('+', binary('*', c, angle), binary('*', d, logModulus)));
  const scale = bind(call('exp', [re]));
  const baseIsZero = logical('and', compare('==', a, int(0)), compare('==', b, int(0)));
  const exponentIsZero = logical('and', compare('==', c, int(0)), compare('==', d, int(0)));
  const atZero = ifThenElse(exponentIsZero, float(1), float(0));
  return {
    re: ifThenElse(baseIsZero, atZero, binary('*', scale, call('cos', [im]))),
    im: ifThenElse(baseIsZero, float(0), binary('*', scale, call('sin', [im]))),
  };
}
