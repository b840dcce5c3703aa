/**
 * float16 in C: C99 has no half type, so a half buffer holds the IEEE binary16 bits
 * (`uint16_t`), and every float16 operation is computed in float and its result rounded to
 * float16, exactly as OpenCL does without cl_khr_fp16 and as CUDA does with `__half` storage
 * (see @loom/codegen-opencl's half-storage.ts for why that gives what half arithmetic gives).
 * The conversions between bits and float are the prelude's (`loom_half_to_float`,
 * `loom_half_bits`); a float16 value argument travels as a float holding the half value.
 */
import type { HalfStorageSpelling } from '@loom/codegen-cfamily';

/** C's half storage: the bits read and written through the prelude's conversions. */
export const cHalfStorage: HalfStorageSpelling = {
  load: (array, index) => `loom_half_to_float(${array}[${index}])`,
  store: (array, index, value) => `${array}[${index}] = loom_half_bits(${value});`,
  round: (fromDouble) => {
    const name = fromDouble ? 'loom_to_half_f64' : 'loom_to_half';
    const definition = [
      `static inline float ${name}(${fromDouble ? 'double' : 'float'} x)`,
      '{',
      '  // rounded to the nearest float16 (ties to even) once, read back as a float',
      '  return loom_half_to_float(loom_half_bits(x));',
      '}',
    ].join('\n');
    return { name, definition };
  },
};
