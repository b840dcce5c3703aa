/**
 * Calls of the functions the expression language knows (`KNOWN_FUNCTIONS`), with
 * C's semantics: `round` rounds halves away from zero, `min`/`max` on floats are
 * `torch.minimum`/`torch.maximum` (a NaN argument wins), `fmin`/`fmax` C's (a NaN argument
 * loses), `fmod` has the sign of the dividend, `fma` rounds once, `abs`, `min`, `max`,
 * `clamp` on integers stay integers. For float32 every result is rounded to float32 (float16,
 * bfloat16 to theirs), except where the exact result already is one (fabs, fmod, floor,
 * copysign, ...).
 */
import { expr, LoomError, mathFunctionsWhere, type DType } from '@loom/core';
import { roundedTo } from './arithmetic.ts';
import { atom, computeType, convert, isBigIntType, isFloatType, literal, Prec, infix, type JsValue } from './values.ts';

/** Functions that are `Math.<name>` of one argument, with a float result (the table of known functions). */
const MATH_UNARY: ReadonlySet<string> = mathFunctionsWhere(
  (f) => f.js === true && f.arity === 1 && f.result === 'float',
);

/** `fn(...args)` whose (numpy) result type is `resultType`. */
export function callFunction(fn: string, args: readonly JsValue[], resultType: DType): JsValue {
  const arity = arityOf(fn);
  if (arity === undefined) throw new LoomError(`the JavaScript target does not know the function '${fn}'`);
  if (arity > 0 ? args.length !== arity : args.length === 0) {
    throw new LoomError(
      `'${fn}' takes ${arity > 0 ? arity : 'at least one'} argument${arity === 1 ? '' : 's'}, got ${args.length}`,
    );
  }
  switch (fn) {
    case 'min':
    case 'max':
      return minMax(fn, args, computeType(resultType));
    case 'clamp': {
      // max(x, lo), then min with hi: the NaN-propagating pair on floats
      const c = computeType(resultType);
      return minMax('min', [minMax('max', [args[0], args[1]], c), args[2]], c);
    }
    case 'isnan':
    case 'isinf':
    case 'isfinite':
      return floatTest(fn, args[0]);
    case 'abs':
      return abs(args[0], computeType(resultType));
    case 'floor':
    case 'ceil':
    case 'trunc':
    case 'round':
      return rounding(fn, args[0], computeType(resultType));
    case 'mul_hi':
    case 'rotate':
      return integerBits(fn, args, computeType(resultType));
    default:
      return floatFunction(fn, args, isFloatType(resultType) ? resultType : 'float64');
  }
}

/** Known functions that never reach a printer: complex values are lowered to their parts before code generation. */
const LOWERED_BEFORE_CODEGEN: ReadonlySet<string> = mathFunctionsWhere((f) => f.complexOnly === true);

/** The arity of a function the JavaScript target prints (0: any number from one), or undefined for one it does not know. */
function arityOf(fn: string): number | undefined {
  if (!Object.hasOwn(expr.KNOWN_FUNCTIONS, fn) || LOWERED_BEFORE_CODEGEN.has(fn)) return undefined;
  return expr.KNOWN_FUNCTIONS[fn] ?? 0;
}

/** `isnan(x)`, `isinf(x)`, `isfinite(x)`: truth values; an integer is never NaN nor infinite. */
function floatTest(fn: string, x: JsValue): JsValue {
  if (!isFloatType(x.repr)) return { ...literal(fn === 'isfinite' ? 1 : 0, 'bool') };
  const test =
    fn === 'isnan'
      ? `Number.isNaN(${x.code})`
      : fn === 'isfinite'
        ? `Number.isFinite(${x.code})`
        : `Math.abs(${x.code}) === Infinity`;
  const prec = fn === 'isinf' ? Prec.Equality : Prec.Atom;
  return { code: test, prec, repr: 'bool', condition: true };
}

function minMax(fn: 'min' | 'max', args: readonly JsValue[], c: DType): JsValue {
  if (args.length === 1) return convert(args[0], c);
  const list = args.map((a) => convert(a, c).code).join(', ');
  if (isFloatType(c)) return atom(`loom.${fn === 'min' ? 'minimum' : 'maximum'}(${list})`, c);
  if (isBigIntType(c)) return atom(`loom.${fn}64(${list})`, c);
  return atom(`Math.${fn}(${list})`, c); // integers: exact, and never NaN
}

function abs(arg: JsValue, c: DType): JsValue {
  const x = convert(arg, c);
  switch (c) {
    case 'float16':
    case 'bfloat16':
    case 'float32':
    case 'float64':
      return atom(`Math.abs(${x.code})`, c);
    case 'int32':
      return { code: `Math.abs(${x.code}) | 0`, prec: Prec.BitOr, repr: c }; // abs(INT_MIN) wraps, as in C
    case 'int64':
      return atom(`loom.abs64(${x.code})`, c);
    default:
      return x; // unsigned
  }
}

/** mul_hi and rotate on 32- or 64-bit integers (type inference refused any other dtype). */
function integerBits(fn: 'mul_hi' | 'rotate', args: readonly JsValue[], c: DType): JsValue {
  const [a, b] = args.map((x) => convert(x, c).code);
  const signed = c === 'int32' || c === 'int64';
  const wide = isBigIntType(c);
  if (fn === 'rotate') return atom(`loom.rotate${wide ? 64 : 32}(${a}, ${b}${signed ? ', true' : ''})`, c);
  return atom(`loom.mulHi${signed ? '' : 'U'}${wide ? 64 : 32}(${a}, ${b})`, c);
}

/** floor, ceil, trunc, round: exact on floats (no float32 rounding needed), no-ops on integers. */
function rounding(fn: string, arg: JsValue, c: DType): JsValue {
  const x = convert(arg, c);
  if (!isFloatType(c)) return x;
  return atom(fn === 'round' ? `loom.round(${x.code})` : `Math.${fn}(${x.code})`, c);
}

/** The fma helper of each float dtype narrower than float64. */
const FMA: Partial<Record<DType, string>> = { float32: 'fma32', float16: 'fma16', bfloat16: 'fmaBf16' };

function floatFunction(fn: string, args: readonly JsValue[], t: DType): JsValue {
  const xs = args.map((a) => convert(a, t));
  const [x, y] = xs;
  const rounded = (code: string) => roundedTo(t, atom(code, t));
  if (MATH_UNARY.has(fn)) return rounded(`Math.${fn}(${x.code})`);
  switch (fn) {
    case 'fabs':
      return atom(`Math.abs(${x.code})`, t);
    case 'rsqrt':
      return rounded(`1 / Math.sqrt(${x.code})`);
    case 'atan2':
      return rounded(`Math.atan2(${x.code}, ${y.code})`);
    case 'pow':
      return rounded(`loom.pow(${x.code}, ${y.code})`);
    case 'exp2':
      return rounded(`Math.pow(2, ${x.code})`);
    case 'hypot':
      return rounded(`Math.hypot(${x.code}, ${y.code})`);
    // exact results: no rounding needed
    case 'fmin':
    case 'fmax':
    case 'copysign':
      return atom(`loom.${fn}(${x.code}, ${y.code})`, t);
    case 'erfc':
      return rounded(`loom.erfc(${x.code})`);
    // one rounding, to the dtype itself; bfloat16's is float32's fma rounded, as devices compute it
    case 'fma':
      return atom(`loom.${FMA[t] ?? 'fma'}(${xs.map((v) => v.code).join(', ')})`, t);
    // JavaScript's % on floats is exactly C's fmod, and its result is representable
    case 'fmod':
      return { code: infix(x, '%', y, Prec.Multiplicative), prec: Prec.Multiplicative, repr: t };
    case 'erf':
      return rounded(`loom.erf(${x.code})`);
    default:
      throw new LoomError(`the JavaScript target does not know the function '${fn}'`);
  }
}
