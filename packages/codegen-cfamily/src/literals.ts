/**
 * Literals and float-to-integer conversions as every C-family dialect writes them; a dialect
 * states only its spellings (how NaN and the infinities are written where a header may be
 * missing, the 64-bit suffixes, how a half is written) and its types (`cType`).
 */
import { InternalError, isNarrowFloat, roundToBfloat16, roundToFloat16, type DType } from '@loom/core';

/** What a dialect spells its own way in a literal. */
export interface LiteralSpelling {
  /** NaN, as a float or (`double`) a double. */
  readonly nan: (double: boolean) => string;
  /** +infinity, as a float or a double. */
  readonly infinity: (double: boolean) => string;
  /** The suffixes of int64 and uint64 literals: `ll`/`ull` (C, CUDA), `l`/`ul` (OpenCL C, whose long is 64 bits). */
  readonly int64Suffix: string;
  readonly uint64Suffix: string;
  /** A float16 literal from the float literal of its (rounded) value; default: the float literal (computed in float). */
  readonly float16?: (floatLiteral: string) => string;
}

/**
 * A literal of dtype `t`, exact: a float is first rounded to its dtype here, once (a float16
 * through float would round twice), then written with the fewest digits that give that value
 * back (`2.0f`, `0.1`: C compilers convert a decimal literal to the nearest value of its type);
 * −0 keeps its sign (`0.0f` would flip `1 / (−0 * a)`). Integers carry C's suffixes (`2u`,
 * `2ll`), the most negative ones spelled as differences (their magnitude is no literal). A
 * bfloat16 is computed in float, and spelled as the float of its value.
 */
export function cFamilyLiteral(value: number, t: DType, spelling: LiteralSpelling): string {
  if (t === 'bfloat16') return cFamilyLiteral(roundToBfloat16(value), 'float32', spelling);
  if (t === 'float32' || t === 'float64' || t === 'float16') {
    const v = t === 'float16' ? roundToFloat16(value) : t === 'float32' ? Math.fround(value) : value;
    const double = t === 'float64';
    if (Number.isNaN(v)) return spelling.nan(double);
    if (!Number.isFinite(v)) return v < 0 ? `-${spelling.infinity(double)}` : spelling.infinity(double);
    let text = Object.is(v, -0) ? '-0' : String(v);
    if (!/[.e]/.test(text)) text += '.0';
    if (double) return text;
    return t === 'float16' && spelling.float16 ? spelling.float16(`${text}f`) : `${text}f`;
  }
  if (t === 'bool') return value ? '1' : '0';
  // every digit of the double: String() gives the shortest that reads back (2^60 as ...847000)
  return Number.isFinite(value) ? integerLiteral(BigInt(Math.trunc(value)), t, spelling) : String(value);
}

/** An integer of dtype `t` with C's suffix; the most negative int32 and int64 as differences (their magnitude is no literal). */
function integerLiteral(value: bigint, t: DType, spelling: LiteralSpelling): string {
  switch (t) {
    case 'uint32':
      return `${value}u`;
    case 'int64': {
      const s = spelling.int64Suffix;
      return value === -(2n ** 63n) ? `(-9223372036854775807${s} - 1${s})` : `${value}${s}`;
    }
    case 'uint64':
      return `${value}${spelling.uint64Suffix}`;
    case 'int32':
      return value === -(2n ** 31n) ? '(-2147483647 - 1)' : `${value}`;
    default:
      return `${value}`;
  }
}

/** Each integer dtype's range, exactly (uint64's maximum is no double), as powers of two: [-2^(b-1), 2^(b-1)) or [0, 2^b). */
const INTEGER_BITS: Partial<Record<DType, { bits: number; signed: boolean }>> = {
  int8: { bits: 8, signed: true },
  uint8: { bits: 8, signed: false },
  int16: { bits: 16, signed: true },
  uint16: { bits: 16, signed: false },
  int32: { bits: 32, signed: true },
  uint32: { bits: 32, signed: false },
  int64: { bits: 64, signed: true },
  uint64: { bits: 64, signed: false },
};

/**
 * A float of dtype `from` converted to integer dtype `to` as Loom defines it, written out where
 * the dialect's casts leave a value outside the range undefined (C's, CUDA's): truncated toward
 * zero, saturated at the type's range, NaN → 0. The range is tested first: `above` and `below`
 * are the first values outside it, and everything strictly between truncates into it. bool is
 * not an integer here (the printer tests `!= 0`).
 *
 * `qualifiers` open the definition (`static inline`, `inline __device__`); `types` and
 * `spelling` are the dialect's.
 */
export function saturatingFloatToInteger(
  from: DType,
  to: DType,
  dialect: { readonly qualifiers: string; readonly type: (t: DType) => string; readonly spelling: LiteralSpelling },
): { name: string; definition: string } {
  const integer = INTEGER_BITS[to];
  if (!integer) throw new InternalError(`no integer range for ${to}`);
  // the first values outside the range (`above`, `below`: powers of two, exact in every float), and its ends
  const above = 2n ** BigInt(integer.signed ? integer.bits - 1 : integer.bits);
  const below = integer.signed ? -above : 0n;
  const name = `loom_convert_${from}_to_${to}`;
  const [ct, ft] = [dialect.type(to), dialect.type(isNarrowFloat(from) ? 'float32' : from)];
  const bound = (v: bigint) => cFamilyLiteral(Number(v), from === 'float64' ? 'float64' : 'float32', dialect.spelling);
  const end = (v: bigint) => integerLiteral(v, to, dialect.spelling);
  const definition = [
    `${dialect.qualifiers} ${ct} ${name}(${ft} x)`,
    '{',
    '  // NaN -> 0, saturated at the range: a cast of a value outside it is undefined',
    `  return isnan(x) ? (${ct}) 0 : x >= ${bound(above)} ? ${end(above - 1n)} : x <= ${bound(below)} ? ${end(below)} : (${ct}) x;`,
    '}',
  ].join('\n');
  return { name, definition };
}
