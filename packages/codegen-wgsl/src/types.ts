/**
 * Loom's dtypes in WGSL, and WGSL literals.
 *
 * WGSL computes in five scalar types: bool, i32, u32, f32 and f16 (with `enable f16;`).
 * A value of a Loom dtype is computed in one of them, as OpenCL C computes it:
 *
 *   bool                          bool (a comparison's result; 0/1 when used as a number)
 *   int8, int16, int32            i32 (C promotes the narrow ones to int)
 *   uint8, uint16                 i32 (likewise)
 *   uint32                        u32
 *   float16                       f16 (only where the device has 'shader-f16')
 *   bfloat16                      f32 holding a bfloat16 value: WGSL has no bfloat16. Every
 *                                 bfloat16 operation is computed in f32 and its result rounded
 *                                 to bfloat16 (the `to_bfloat16` helper, expressions.ts); arrays
 *                                 hold the 16-bit words, two to a u32 (`packedBits`).
 *   float32                       f32
 *   float64                       f32 for intermediate values only: numpy promotes int32 with
 *                                 float32 (and a float literal with an int) to float64, which WGSL
 *                                 lacks; such values are computed in f32. float64 *data*
 *                                 (arguments, temporaries) is refused, see `unsupportedDType`.
 *   int64, uint64                 none: refused, as data and as intermediate values.
 */
import { InternalError, LoomError, roundToFloat16, type DType } from '@loom/core';

export type WgslScalar = 'bool' | 'i32' | 'u32' | 'f32' | 'f16';

/** Why WGSL cannot hold `dtype` as data, or undefined when it can. */
export function unsupportedDType(dtype: DType, shaderF16: boolean): string | undefined {
  switch (dtype) {
    case 'float64':
      return 'WGSL has no 64-bit floats; use float32, or run on the OpenCL or CPU device, which support float64';
    case 'complex128':
      return 'WGSL has no 64-bit floats, the parts of a complex128; use complex64, or run on the OpenCL or CPU device';
    case 'int64':
    case 'uint64':
      return 'WGSL has no 64-bit integers; use int32/uint32, or run on the OpenCL or CPU device, which support 64-bit integers';
    case 'float16':
      return shaderF16 ? undefined : "this WebGPU adapter lacks the 'shader-f16' feature; use float32";
    default:
      return undefined;
  }
}

/** The WGSL type a value of `dtype` is computed and held in (see the table above). */
export function computeType(dtype: DType): WgslScalar {
  switch (dtype) {
    case 'bool':
      return 'bool';
    case 'int8':
    case 'int16':
    case 'int32':
    case 'uint8':
    case 'uint16':
      return 'i32';
    case 'uint32':
      return 'u32';
    case 'float16':
      return 'f16';
    case 'bfloat16':
    case 'float32':
    case 'float64':
      return 'f32';
    case 'int64':
    case 'uint64':
      throw new LoomError(`WGSL has no 64-bit integers (${dtype}); use int32/uint32, or the OpenCL or CPU device`);
    case 'complex64':
    case 'complex128':
      throw new InternalError(
        `a ${dtype} value reached the WGSL printer: complex values are lowered to their parts before code generation`,
      );
  }
}

/** The type arithmetic on values of `dtype` happens in: as `computeType`, but bools add as integers (C). */
export function arithmeticType(dtype: DType): WgslScalar {
  const t = computeType(dtype);
  return t === 'bool' ? 'i32' : t;
}

export const isFloatScalar = (t: WgslScalar) => t === 'f32' || t === 'f16';

/**
 * Dtypes stored narrower than the 32-bit word WGSL's storage buffers hold: packed, 4 or 2 to a word
 * (bfloat16 as its bits, the upper half of an f32's: WGSL has no 16-bit type to hold it otherwise).
 */
export function packedBits(dtype: DType): 8 | 16 | undefined {
  switch (dtype) {
    case 'bool':
    case 'int8':
    case 'uint8':
      return 8;
    case 'int16':
    case 'uint16':
    case 'bfloat16':
      return 16;
    default:
      return undefined;
  }
}

/** `0`, `1` of a type, for comparisons with zero. */
export function zero(t: WgslScalar): string {
  return literal(0, t);
}

/**
 * A literal of type `t`, spelled so that its type is never in doubt: `2i`, `2u`, `2.0h`,
 * `true`, and f32's `2.0` (an unsuffixed float literal, which WGSL makes f32 wherever an
 * f32 is expected, as it always is here). The value is first converted as C converts it
 * (a float to an integer type truncates, integers wrap), and a float is written with the
 * fewest digits that give back exactly the f32 (or f16) value, so the shader compiler has
 * no rounding left to do. NaN and the infinities have no literal (see `isNonFiniteIn`).
 */
export function literal(value: number, t: WgslScalar): string {
  switch (t) {
    case 'bool':
      return value !== 0 ? 'true' : 'false';
    case 'i32': {
      const v = wrapInt(value) | 0;
      // -2147483648i would be the negation of the out-of-range 2147483648i
      return v === -2147483648 ? 'i32(-2147483648)' : `${v}i`;
    }
    case 'u32':
      return `${wrapInt(value) >>> 0}u`;
    case 'f32':
      return floatLiteral(Math.fround(value), 'f32');
    case 'f16':
      return floatLiteral(value, 'f16');
  }
}

function wrapInt(value: number): number {
  if (!Number.isFinite(value)) return 0;
  const t = Math.trunc(value);
  return Number(BigInt.asIntN(32, BigInt(t)));
}

function floatLiteral(value: number, t: 'f32' | 'f16'): string {
  const v = t === 'f16' ? roundToFloat16(value) : value;
  // WGSL rejects a constant NaN or infinity; the printer makes them at run time (`nan_f32()`)
  if (!Number.isFinite(v)) throw new InternalError(`${value} has no ${t} literal`);
  return `${exactLiteral(v)}${t === 'f16' ? 'h' : ''}`;
}

/**
 * `value` (an f32 or f16 value) written so that it is exactly that value, never a decimal
 * the compiler must round: WGSL converts an inexact literal to either neighbour of its value,
 * the implementation's choice (Dawn on lavapipe read `65500.0h`, the shortest decimal nearest
 * to 65504, as 65472). A short exact decimal where there is one (`0.5`, `65504.0`), else a
 * hexadecimal float (`0x1.99999ap-4` for f32's 0.1, `0x1p-149` for its smallest subnormal),
 * which WGSL reads exactly.
 */
function exactLiteral(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const decimal = exactDecimal(Math.abs(value));
  const text = decimal.length <= MAX_DECIMAL_LENGTH ? decimal : hexFloat(Math.abs(value));
  return value < 0 ? `-${text}` : text;
}

/** Longer exact decimals (0.1's f32 value has 27 digits) are written in hexadecimal. */
const MAX_DECIMAL_LENGTH = 20;

/** The exact decimal expansion of a positive finite double, with a `.` or an exponent. */
function exactDecimal(value: number): string {
  const { mantissa, exponent } = binaryParts(value);
  // value = mantissa * 2^exponent = mantissa * 5^-exponent / 10^-exponent
  let digits = (exponent >= 0 ? mantissa << BigInt(exponent) : mantissa * 5n ** BigInt(-exponent)).toString();
  let scale = Math.max(0, -exponent); // value = digits / 10^scale
  while (scale > 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale--;
  }
  if (scale === 0) return `${digits}.0`;
  if (digits.length > scale) return `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  const zeros = scale - digits.length;
  // 0.000123 rather than 1.23e-4 while short
  return zeros < 4
    ? `0.${'0'.repeat(zeros)}${digits}`
    : `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e-${scale - digits.length + 1}`;
}

/** `0x1.8p+1`: the hexadecimal float of a positive finite double that is normal as a double (every f32 and f16 value is). */
function hexFloat(value: number): string {
  const { mantissa, exponent } = binaryParts(value);
  const bits = mantissa.toString(2).length; // 53 for a normal double
  const fraction = (mantissa - (1n << BigInt(bits - 1))) << BigInt((4 - ((bits - 1) % 4)) % 4);
  const hex = fraction
    .toString(16)
    .padStart(Math.ceil((bits - 1) / 4), '0')
    .replace(/0+$/, '');
  return `0x1${hex ? `.${hex}` : ''}p${exponent + bits - 1}`;
}

/** A positive finite double as mantissa * 2^exponent, the mantissa an integer. */
function binaryParts(value: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  return biased === 0
    ? { mantissa: fraction, exponent: -1074 }
    : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** Whether `value` as a literal of float type `t` is a NaN or an infinity (no literal spells them). */
export function isNonFiniteIn(value: number, t: WgslScalar): boolean {
  if (t === 'f32') return !Number.isFinite(Math.fround(value));
  if (t === 'f16') return !Number.isFinite(roundToFloat16(value));
  return false;
}
