/**
 * float16 in CUDA: buffers hold `__half` (cuda_fp16.h), and every float16 operation is
 * computed in float and its result rounded to float16, as OpenCL does without cl_khr_fp16
 * (see @loom/codegen-opencl's half-storage.ts for why that gives exactly what half arithmetic
 * gives). CUDA's own `__half` operators need compute capability 5.3 and have no `tan`, `pow` or
 * `atan2`; a float holds every half, so nothing is lost. A float16 value argument travels as
 * a float holding the half value.
 */
import type { HalfStorageSpelling } from '@loom/codegen-cfamily';

/** CUDA's half storage: `__half2float`, `__float2half_rn`, and rounding through them. */
export const cudaHalfStorage: HalfStorageSpelling = {
  load: (array, index) => `__half2float(${array}[${index}])`,
  store: (array, index, value) => `${array}[${index}] = __float2half_rn(${value});`,
  copy: (to, toIndex, from, fromIndex) => `${to}[${toIndex}] = ${from}[${fromIndex}];`,
  round: (fromDouble) => {
    const name = fromDouble ? 'loom_to_half_f64' : 'loom_to_half';
    const definition = [
      `inline __device__ float ${name}(${fromDouble ? 'double' : 'float'} x)`,
      '{',
      '  // rounded to the nearest float16 (ties to even), read back',
      `  return __half2float(${fromDouble ? '__double2half' : '__float2half_rn'}(x));`,
      '}',
    ].join('\n');
    return { name, definition };
  },
};
