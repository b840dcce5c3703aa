/** CUDA C spellings of dtypes, literals and float-to-integer conversions. */
import { InternalError, isNarrowFloat, roundToBfloat16, roundToFloat16, type DType } from '@loom/core';

/** The CUDA C type of dtype `t`: C's names (CUDA has no `uint` or `ulong`), `long long` for int64, `__half` for float16, `__nv_bfloat16` for bfloat16. */
export function cudaType(t: DType): string {
  switch (t) {
    case 'bool':
      return 'unsigned char'; // one byte, as the buffers hold it
    case 'int8':
      return 'signed char';
    case 'uint8':
      return 'unsigned char';
    case 'int16':
      return 'short';
    case 'uint16':
      return 'unsigned short';
    case 'int32':
      return 'int';
    case 'uint32':
      return 'unsigned int';
    case 'int64':
      return 'long long';
    case 'uint64':
      return 'unsigned long long';
    case 'float16':
      return '__half';
    case 'bfloat16':
      return '__nv_bfloat16'; // cuda_bf16.h, computed in float (bfloat16-storage.ts)
    case 'float32':
      return 'float';
    case 'float64':
      return 'double';
    case 'complex64':
    case 'complex128':
      throw new InternalError(
        `a ${t} value reached the CUDA printer: complex values are lowered to their parts before code generation`,
      );
  }
}

/**
 * A literal of dtype `t`, exact: floats with the fewest digits that read back (`2.0f`, `0.1`),
 * integers with C's suffixes (`2u`, `2ll`, `2ull`). NaN and the infinities are their bits
 * reinterpreted (`__int_as_float(0x7f800000)`): NVRTC defines no `NAN` or `INFINITY` without
 * headers. float16 is computed in float (`cudaHalfStorage`), so its literals are floats.
 */
export function cudaLiteral(value: number, t: DType): string {
  // a bfloat16 is computed in float, and spelled as the float of its value
  if (t === 'bfloat16') return cudaLiteral(roundToBfloat16(value), 'float32');
  if (t === 'float32' || t === 'float64' || t === 'float16') {
    const v = t === 'float16' ? roundToFloat16(value) : t === 'float32' ? Math.fround(value) : value;
    const double = t === 'float64';
    if (Number.isNaN(v)) return double ? '__longlong_as_double(0x7ff8000000000000ll)' : '__int_as_float(0x7fc00000)';
    if (!Number.isFinite(v)) {
      const inf = double ? '__longlong_as_double(0x7ff0000000000000ll)' : '__int_as_float(0x7f800000)';
      return v < 0 ? `-${inf}` : inf;
    }
    let text = Object.is(v, -0) ? '-0' : String(v);
    if (!/[.e]/.test(text)) text += '.0';
    return double ? text : `${text}f`;
  }
  if (t === 'bool') return value ? '1' : '0';
  // every digit of the double: String() gives the shortest that reads back
  const text = Number.isFinite(value) ? BigInt(Math.trunc(value)).toString() : String(value);
  switch (t) {
    case 'uint32':
      return `${text}u`;
    case 'int64':
      return value === -(2 ** 63) ? '(-9223372036854775807ll - 1ll)' : `${text}ll`;
    case 'uint64':
      return `${text}ull`;
    case 'int32':
      return value === -2147483648 ? '(-2147483647 - 1)' : text;
    default:
      return text;
  }
}

/** The range of each integer dtype, as C literals, and 2^(bits) bounds a float compares against. */
const INTEGER_RANGE: Partial<Record<DType, { min: string; max: string; below: number; above: number }>> = {
  int8: { min: '-128', max: '127', below: -128, above: 128 },
  uint8: { min: '0', max: '255', below: 0, above: 256 },
  int16: { min: '-32768', max: '32767', below: -32768, above: 32768 },
  uint16: { min: '0', max: '65535', below: 0, above: 65536 },
  int32: { min: '(-2147483647 - 1)', max: '2147483647', below: -(2 ** 31), above: 2 ** 31 },
  uint32: { min: '0u', max: '4294967295u', below: 0, above: 2 ** 32 },
  int64: { min: '(-9223372036854775807ll - 1ll)', max: '9223372036854775807ll', below: -(2 ** 63), above: 2 ** 63 },
  uint64: { min: '0ull', max: '18446744073709551615ull', below: 0, above: 2 ** 64 },
};

/**
 * A float of dtype `from` converted to integer dtype `to` as Loom defines it: truncated toward
 * zero, saturated at the type's range, NaN → 0. CUDA's casts leave an out-of-range value
 * undefined, so the range is tested first: `above` (2^bits, exact in every float) and `below`
 * are the first values outside, and everything strictly between truncates into the range.
 */
export function cudaFloatToInteger(from: DType, to: DType): { name: string; definition: string } {
  const range = INTEGER_RANGE[to];
  if (!range) throw new InternalError(`no integer range for ${to}`);
  const name = `loom_convert_${from}_to_${to}`;
  const [ct, ft] = [cudaType(to), cudaType(isNarrowFloat(from) ? 'float32' : from)];
  const bound = (v: number) => cudaLiteral(v, from === 'float64' ? 'float64' : 'float32');
  const definition = [
    `inline __device__ ${ct} ${name}(${ft} x)`,
    '{',
    '  // NaN -> 0, saturated at the range: a cast of a value outside it is undefined in CUDA',
    `  return isnan(x) ? (${ct}) 0 : x >= ${bound(range.above)} ? ${range.max} : x <= ${bound(range.below)} ? ${range.min} : (${ct}) x;`,
    '}',
  ].join('\n');
  return { name, definition };
}
