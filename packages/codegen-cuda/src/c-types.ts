/** CUDA C spellings of dtypes, literals and float-to-integer conversions. */
import { InternalError, type DType } from '@loom/core';
import { cFamilyLiteral, saturatingFloatToInteger, type LiteralSpelling } from '@loom/codegen-cfamily';

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

/** How CUDA C spells what its literals may need: NaN and the infinities as their bits (NVRTC defines no `NAN` or `INFINITY` without headers), `long long` suffixes. */
const CUDA_SPELLING: LiteralSpelling = {
  nan: (double) => (double ? '__longlong_as_double(0x7ff8000000000000ll)' : '__int_as_float(0x7fc00000)'),
  infinity: (double) => (double ? '__longlong_as_double(0x7ff0000000000000ll)' : '__int_as_float(0x7f800000)'),
  int64Suffix: 'll',
  uint64Suffix: 'ull',
};

/** A literal of dtype `t`, exact (cfamily's `cFamilyLiteral`); float16 is computed in float (`cudaHalfStorage`), so its literals are floats. */
export const cudaLiteral = (value: number, t: DType): string => cFamilyLiteral(value, t, CUDA_SPELLING);

/** A float converted to an integer dtype as Loom defines it (CUDA's casts leave a value outside the range undefined). */
export const cudaFloatToInteger = (from: DType, to: DType) =>
  saturatingFloatToInteger(from, to, { qualifiers: 'inline __device__', type: cudaType, spelling: CUDA_SPELLING });
