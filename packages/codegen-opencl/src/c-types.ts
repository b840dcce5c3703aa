/** OpenCL C spellings of dtypes, literals and float-to-integer conversions. */
import { InternalError, type DType } from '@loom/core';
import { cFamilyLiteral, type LiteralSpelling } from '@loom/codegen-cfamily';

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

/** How OpenCL C spells what its literals may need: NAN and INFINITY, `long` suffixes (64 bits in OpenCL C), halves as casts of floats. */
const OPENCL_SPELLING: LiteralSpelling = {
  nan: (double) => (double ? '(double) NAN' : 'NAN'),
  infinity: (double) => (double ? '(double) INFINITY' : 'INFINITY'),
  int64Suffix: 'l',
  uint64Suffix: 'ul',
  float16: (floatLiteral) => `(half) ${floatLiteral}`,
};

/** A literal of dtype `t`, exact (cfamily's `cFamilyLiteral`): `2.0f`, `2.0`, `2`, `2u`, `2l`, `(half) 0.0999755859375f`. */
export const clLiteral = (value: number, t: DType): string => cFamilyLiteral(value, t, OPENCL_SPELLING);

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
