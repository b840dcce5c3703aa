/** OpenCL C spellings of dtypes, literals and float-to-integer conversions. */
import { InternalError, roundToBfloat16, roundToFloat16, type DType } from '@loom/core';

/** The OpenCL C type of dtype `t`. */
export function clType(t: DType): string {
  switch (t) {
    case 'bool':
      return 'uchar'; // bool is not allowed in kernel arguments or buffers
    case 'int8':
      return 'char';
    case 'uint8':
      return 'uchar';
    case 'int16':
      return 'short';
    case 'uint16':
      return 'ushort';
    case 'int32':
      return 'int';
    case 'uint32':
      return 'uint';
    case 'int64':
      return 'long';
    case 'uint64':
      return 'ulong';
    case 'float16':
      return 'half';
    case 'bfloat16':
      return 'ushort'; // its bits: OpenCL C has no bfloat16 (bfloat16-storage.ts)
    case 'float32':
      return 'float';
    case 'float64':
      return 'double';
    case 'complex64':
    case 'complex128':
      throw new InternalError(
        `a ${t} value reached the OpenCL printer: complex values are lowered to their parts before code generation`,
      );
  }
}

/**
 * A literal of dtype `t`: `2.0f`, `2.0`, `2`, `2u`, `2l`. A float is first rounded to its dtype
 * here, once (a float16 `(half) 0.1f` would otherwise round twice, through float), then written
 * with the fewest digits that give that value back: C compilers convert a decimal literal to the
 * nearest value of its type (IEEE 754's correctly rounded conversion, as clang does), so the
 * literal is exactly the value. −0 keeps its sign (`-0.0f`: `0.0f` would flip `1 / (−0 * a)`).
 */
export function clLiteral(value: number, t: DType): string {
  // a bfloat16 is computed in float, and spelled as the float of its value
  if (t === 'bfloat16') return clLiteral(roundToBfloat16(value), 'float32');
  if (t === 'float32' || t === 'float64' || t === 'float16') {
    const v = t === 'float16' ? roundToFloat16(value) : t === 'float32' ? Math.fround(value) : value;
    if (Number.isNaN(v)) return t === 'float64' ? '(double) NAN' : 'NAN';
    if (!Number.isFinite(v)) {
      const inf = t === 'float64' ? '(double) INFINITY' : 'INFINITY';
      return v < 0 ? `-${inf}` : inf;
    }
    let text = Object.is(v, -0) ? '-0' : String(v);
    if (!/[.e]/.test(text)) text += '.0';
    if (t === 'float32') return `${text}f`;
    if (t === 'float16') return `(half) ${text}f`;
    return text;
  }
  if (t === 'bool') return value ? '1' : '0';
  // every digit of the double: String() gives the shortest that reads back (2^60 as ...847000, 24 too many)
  const text = Number.isFinite(value) ? BigInt(Math.trunc(value)).toString() : String(value);
  switch (t) {
    case 'uint32':
      return `${text}u`;
    case 'int64':
      return value === -(2 ** 63) ? '(-9223372036854775807l - 1l)' : `${text}l`;
    case 'uint64':
      return `${text}ul`;
    case 'int32':
      return value === -2147483648 ? '(-2147483647 - 1)' : text;
    default:
      return text;
  }
}

/**
 * A float of dtype `from` converted to integer type `to` as Loom defines it: truncated
 * toward zero, saturated at the type's range, NaN → 0. That is what OpenCL's
 * `convert_<type>_sat_rtz` promises, but NVIDIA's driver gives INT_MIN for a NaN
 * double (and a NaN float to long), so the NaN test is ours.
 */
export function floatToIntegerHelper(from: DType, to: DType): { name: string; definition: string } {
  const name = `loom_convert_${from}_to_${to}`;
  const definition = [
    `inline ${clType(to)} ${name}(${clType(from)} x)`,
    '{',
    "  // NaN -> 0 ourselves: not every driver's saturating conversion does",
    `  return isnan(x) ? 0 : convert_${clType(to)}_sat_rtz(x);`,
    '}',
  ].join('\n');
  return { name, definition };
}
