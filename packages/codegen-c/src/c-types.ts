/**
 * C99 spellings of dtypes, literals and float-to-integer conversions: C's own type names
 * (`unsigned int`, `signed char`), `int64_t`/`uint64_t` from `<stdint.h>` (`long` is 32 bits
 * on some ABIs), float16 as its bits (`uint16_t`, half-storage.ts).
 */
import { InternalError, isNarrowFloat, roundToBfloat16, roundToFloat16, type DType } from '@loom/core';

/** The C type of dtype `t`. */
export function cType(t: DType): string {
  switch (t) {
    case 'bool':
      return 'unsigned char'; // one byte, as the buffers hold it
    case 'int8':
      return 'signed char'; // plain char's sign is the ABI's choice
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
      return 'int64_t';
    case 'uint64':
      return 'uint64_t';
    case 'float16':
      return 'uint16_t'; // the half's bits: C99 has no half type (half-storage.ts)
    case 'bfloat16':
      return 'uint16_t'; // its bits, likewise (bfloat16-storage.ts)
    case 'float32':
      return 'float';
    case 'float64':
      return 'double';
    case 'complex64':
    case 'complex128':
      throw new InternalError(
        `a ${t} value reached the C printer: complex values are lowered to their parts before code generation`,
      );
  }
}

/**
 * A literal of dtype `t`, exact: floats with the fewest digits that read back (`2.0f`, `0.1`;
 * a C compiler converts a decimal literal to the nearest value of its type), −0 with its sign,
 * NaN and the infinities by `<math.h>`'s `NAN` and `INFINITY` (floats, widened exactly for a
 * double). Integers carry C's suffixes (`2u`, `2ll`, `2ull`: `long long` is 64 bits wherever
 * `int64_t` is, and converts to it exactly). float16 is computed in float, so its literals are
 * floats (the printer asks for those).
 */
export function cLiteral(value: number, t: DType): string {
  // a bfloat16 is computed in float, and spelled as the float of its value
  if (t === 'bfloat16') return cLiteral(roundToBfloat16(value), 'float32');
  if (t === 'float32' || t === 'float64' || t === 'float16') {
    const v = t === 'float16' ? roundToFloat16(value) : t === 'float32' ? Math.fround(value) : value;
    const double = t === 'float64';
    if (Number.isNaN(v)) return double ? '(double) NAN' : 'NAN';
    if (!Number.isFinite(v)) {
      const inf = double ? '(double) INFINITY' : 'INFINITY';
      return v < 0 ? `-${inf}` : inf;
    }
    let text = Object.is(v, -0) ? '-0' : String(v);
    if (!/[.e]/.test(text)) text += '.0';
    return double ? text : `${text}f`;
  }
  if (t === 'bool') return value ? '1' : '0';
  // every digit of the double: String() gives the shortest that reads back (2^60 as ...847000)
  const text = Number.isFinite(value) ? BigInt(Math.trunc(value)).toString() : String(value);
  switch (t) {
    case 'uint32':
      return `${text}u`;
    case 'int64':
      // -2^63 is not a literal: 2^63 does not fit, so it is spelled as a difference
      return value === -(2 ** 63) ? '(-9223372036854775807ll - 1ll)' : `${text}ll`;
    case 'uint64':
      return `${text}ull`;
    case 'int32':
      return value === -2147483648 ? '(-2147483647 - 1)' : text;
    default:
      return text;
  }
}

/** Each integer dtype's range as C literals, and the first float values outside it (powers of two, exact in every float). */
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
 * zero, saturated at the type's range, NaN → 0. C leaves the cast of a value outside the range
 * undefined (x86's `cvttss2si` gives INT_MIN for all of them), so the range is tested first:
 * `above` and `below` are the first values outside it, and everything strictly between
 * truncates into it. bool is not an integer here (the printer tests `!= 0`).
 */
export function cFloatToInteger(from: DType, to: DType): { name: string; definition: string } {
  const range = INTEGER_RANGE[to];
  if (!range) throw new InternalError(`no integer range for ${to}`);
  const name = `loom_convert_${from}_to_${to}`;
  const [ct, ft] = [cType(to), cType(isNarrowFloat(from) ? 'float32' : from)];
  const bound = (v: number) => cLiteral(v, from === 'float64' ? 'float64' : 'float32');
  const definition = [
    `static inline ${ct} ${name}(${ft} x)`,
    '{',
    '  // NaN -> 0, saturated at the range: C leaves the cast of a value outside it undefined',
    `  return isnan(x) ? (${ct}) 0 : x >= ${bound(range.above)} ? ${range.max} : x <= ${bound(range.below)} ? ${range.min} : (${ct}) x;`,
    '}',
  ].join('\n');
  return { name, definition };
}
