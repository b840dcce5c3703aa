/**
 * C99 spellings of dtypes, literals and float-to-integer conversions: C's own type names
 * (`unsigned int`, `signed char`), `int64_t`/`uint64_t` from `<stdint.h>` (`long` is 32 bits
 * on some ABIs), float16 as its bits (`uint16_t`, half-storage.ts).
 */
import { InternalError, type DType } from '@loom/core';
import { cFamilyLiteral, saturatingFloatToInteger, type LiteralSpelling } from '@loom/codegen-cfamily';

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

/** How C99 spells what its literals may need: `<math.h>`'s NAN and INFINITY (widened exactly for a double), `long long` suffixes. */
const C_SPELLING: LiteralSpelling = {
  nan: (double) => (double ? '(double) NAN' : 'NAN'),
  infinity: (double) => (double ? '(double) INFINITY' : 'INFINITY'),
  // `long long` is 64 bits wherever `int64_t` is, and converts to it exactly
  int64Suffix: 'll',
  uint64Suffix: 'ull',
};

/** A literal of dtype `t`, exact (cfamily's `cFamilyLiteral`); float16 is computed in float, so its literals are floats. */
export const cLiteral = (value: number, t: DType): string => cFamilyLiteral(value, t, C_SPELLING);

/** A float converted to an integer dtype as Loom defines it (C leaves a cast outside the range undefined: x86 gives INT_MIN). */
export const cFloatToInteger = (from: DType, to: DType) =>
  saturatingFloatToInteger(from, to, { qualifiers: 'static inline', type: cType, spelling: C_SPELLING });
