/**
 * The arithmetic operators, spelled for the type they compute in (C semantics, as
 * the OpenCL target computes them):
 *
 *   int32, uint32   + - * wrap modulo 2^32 (Math.imul for *), / truncates, // floors,
 *                   % has the sign of the divisor (Python, as loopy), ** wraps;
 *                   & | ^ ~ on the bits; << >> by counts outside [0, 32) shift
 *                   everything out (bit-helpers.ts).
 *                   Integer division or remainder by zero gives 0 (undefined in C).
 *   int64, uint64   the same on bigints, wrapping modulo 2^64.
 *   float64         JavaScript's own operators; // is floor(a/b); % is Python's.
 *   float32         as float64, with every result rounded to float32 (Math.fround):
 *                   for + - * / the double result rounded once is the correctly
 *                   rounded float32 result, so a GPU's float32 agrees to the last bit.
 *   float16         likewise, every result rounded to float16 (loom.toHalf): computed
 *                   in more precision and rounded, as a device's native half agrees.
 *   bfloat16        likewise, every result rounded to bfloat16 (loom.toBf16): devices
 *                   compute it in float32 and round, which agrees for + - * / as well.
 *
 * Narrower integers never compute here: C promotes them to int (`computeType`).
 */
import { InternalError, type DType, type expr } from '@loom/core';
import {
  MAX_UNREDUCED,
  Prec,
  atom,
  convert,
  infix,
  isBigIntType,
  isFloatType,
  operand,
  reduce,
  type JsValue,
} from './values.ts';

type BinaryOp = expr.BinaryOp;

/** `left op right` computed in type `c`. The operands may have any representation. */
export function binaryOp(op: BinaryOp, left: JsValue, right: JsValue, c: DType): JsValue {
  if (isFloatType(c)) return floatOp(op, convert(left, c), convert(right, c), c);
  if (isBigIntType(c)) return bigintOp(op, left, right, c);
  return int32Op(op, left, right, c);
}

/** `~v` computed in integer type `c`: congruent operands give congruent results, so they may be unreduced. */
export function complement(v: JsValue, c: DType): JsValue {
  if (isBigIntType(c))
    return { code: `~${operand(modular(v, c), Prec.Unary)}`, prec: Prec.Unary, repr: c, unreduced: 1 };
  const x = { code: `~${operand(modular(v, c), Prec.Unary)}`, prec: Prec.Unary, repr: c };
  // `~` gives an int32; a uint32 takes the same bits unsigned
  return c === 'uint32' ? { code: `${x.code} >>> 0`, prec: Prec.Shift, repr: c } : x;
}

/** `-v` computed in type `c`. */
export function negate(v: JsValue, c: DType): JsValue {
  const x = isFloatType(c) ? convert(v, c) : modular(v, c);
  // `- -x` must not become the decrement `--x`
  const inner = x.code.startsWith('-') ? `(${x.code})` : operand(x, Prec.Unary);
  const code = `-${inner}`;
  // negation is exact in floats; for integers the result is congruent, so unreduced
  return isFloatType(c)
    ? { code, prec: Prec.Unary, repr: c }
    : { code, prec: Prec.Unary, repr: c, unreduced: x.unreduced ?? 1 };
}

function floatOp(op: BinaryOp, a: JsValue, b: JsValue, c: DType): JsValue {
  const rounded = (v: JsValue): JsValue => roundedTo(c, v);
  switch (op) {
    case '+':
    case '-':
      return rounded({ code: infix(a, op, b, Prec.Additive), prec: Prec.Additive, repr: c });
    case '*':
    case '/':
      return rounded({ code: infix(a, op, b, Prec.Multiplicative), prec: Prec.Multiplicative, repr: c });
    case '//': {
      const quotient = rounded({ code: infix(a, '/', b, Prec.Multiplicative), prec: Prec.Multiplicative, repr: c });
      return atom(`Math.floor(${quotient.code})`, c);
    }
    case '%':
      return rounded(atom(`loom.floorMod(${a.code}, ${b.code})`, c));
    case '**':
      return rounded(atom(`loom.pow(${a.code}, ${b.code})`, c));
    default:
      throw new InternalError(
        `the bitwise operator ${op} on ${c} reached the JavaScript printer (type inference refuses it)`,
      );
  }
}

/**
 * `v` (a double) rounded to float dtype `c`: once, and correctly, for + - * / of float32,
 * float16 or bfloat16 operands, whose exact results a double holds or rounds innocuously
 * (53 >= 2p + 2).
 */
export function roundedTo(c: DType, v: JsValue): JsValue {
  if (c === 'float32') return atom(`Math.fround(${v.code})`, c);
  if (c === 'float16') return atom(`loom.toHalf(${v.code})`, c);
  if (c === 'bfloat16') return atom(`loom.toBf16(${v.code})`, c);
  return v;
}

/** int32 or uint32. */
function int32Op(op: BinaryOp, left: JsValue, right: JsValue, c: DType): JsValue {
  const unsigned = c === 'uint32';
  switch (op) {
    case '+':
    case '-': {
      let a = modular(left, c);
      let b = modular(right, c);
      if (a.unreduced! + b.unreduced! > MAX_UNREDUCED) {
        a = { ...reduce(a), unreduced: 1 };
        b = { ...reduce(b), unreduced: 1 };
      }
      return {
        code: infix(a, op, b, Prec.Additive),
        prec: Prec.Additive,
        repr: c,
        unreduced: a.unreduced! + b.unreduced!,
      };
    }
    case '*': {
      // Math.imul wraps its arguments itself, so they may be unreduced
      const product = atom(`Math.imul(${modular(left, c).code}, ${modular(right, c).code})`, c);
      return unsigned ? { ...product, unreduced: 1 } : product;
    }
    case '/':
    case '//': {
      const a = convert(left, c);
      const b = convert(right, c);
      const quotient = { code: infix(a, '/', b, Prec.Multiplicative), prec: Prec.Multiplicative, repr: c };
      // unsigned: both are non-negative, so truncating and flooring agree; x / 0 → 0 either way
      if (unsigned) return { code: `${operand(quotient, Prec.Unary)} >>> 0`, prec: Prec.Shift, repr: c };
      const rounded = op === '/' ? operand(quotient, Prec.Unary) : `Math.floor(${quotient.code})`;
      return { code: `${rounded} | 0`, prec: Prec.BitOr, repr: c };
    }
    case '%':
      return atom(`loom.${unsigned ? 'modU32' : 'mod'}(${convert(left, c).code}, ${convert(right, c).code})`, c);
    case '**': {
      const power = atom(`loom.ipow(${convert(left, c).code}, ${convert(right, c).code})`, c);
      return unsigned ? { ...power, unreduced: 1 } : power;
    }
    case '&':
    case '|':
    case '^': {
      // JavaScript's bit operators take their operands modulo 2^32 and give an int32
      const prec = BIT_PRECEDENCE[op];
      const bits = { code: infix(modular(left, c), op, modular(right, c), prec), prec, repr: c };
      return unsigned ? { code: `${operand(bits, Prec.Shift + 1)} >>> 0`, prec: Prec.Shift, repr: c } : bits;
    }
    case '<<':
    case '>>': {
      const helper = op === '<<' ? (unsigned ? 'shlU32' : 'shl32') : unsigned ? 'shrU32' : 'shr32';
      return atom(`loom.${helper}(${convert(left, c).code}, ${convert(right, c).code})`, c);
    }
  }
}

const BIT_PRECEDENCE = { '&': Prec.BitAnd, '^': Prec.BitXor, '|': Prec.BitOr } as const;

/** int64 or uint64, as bigints. */
function bigintOp(op: BinaryOp, left: JsValue, right: JsValue, c: DType): JsValue {
  const unsigned = c === 'uint64';
  switch (op) {
    case '+':
    case '-':
      return {
        code: infix(modular(left, c), op, modular(right, c), Prec.Additive),
        prec: Prec.Additive,
        repr: c,
        unreduced: 1,
      };
    case '*':
      return {
        code: infix(modular(left, c), op, modular(right, c), Prec.Multiplicative),
        prec: Prec.Multiplicative,
        repr: c,
        unreduced: 1,
      };
    case '&':
    case '|':
    case '^':
      // bitwise operations commute with wrapping modulo 2^64: the operands may be unreduced
      return {
        code: infix(modular(left, c), op, modular(right, c), BIT_PRECEDENCE[op]),
        prec: BIT_PRECEDENCE[op],
        repr: c,
        unreduced: 1,
      };
    case '<<':
    case '>>': {
      const helper = op === '<<' ? (unsigned ? 'shlU64' : 'shl64') : unsigned ? 'shrU64' : 'shr64';
      return atom(`loom.${helper}(${convert(left, c).code}, ${convert(right, c).code})`, c);
    }
    default: {
      const helper = { '/': 'div64', '//': 'floorDiv64', '%': 'mod64', '**': 'ipow64' }[op];
      const unsignedHelper = { '/': 'divU64', '//': 'divU64', '%': 'modU64', '**': 'ipowU64' }[op];
      return atom(`loom.${unsigned ? unsignedHelper : helper}(${convert(left, c).code}, ${convert(right, c).code})`, c);
    }
  }
}

/**
 * `v` as an operand of a wrapping operation in `c`: any value congruent to it
 * modulo 2^32 (2^64 for bigints) will do, so values already of that kind pass
 * unreduced. Everything else (floats, literals, the other kind) is converted.
 */
function modular(v: JsValue, c: DType): JsValue {
  const sameKind =
    v.literal === undefined &&
    !v.condition &&
    (isBigIntType(c) ? isBigIntType(v.repr) : !isBigIntType(v.repr) && !isFloatType(v.repr));
  if (sameKind) return { ...v, repr: c, unreduced: v.unreduced ?? 1 };
  return { ...convert(v, c), unreduced: 1 };
}
