/**
 * float16 on an OpenCL device without `cl_khr_fp16` (PoCL's CPU devices, for one): OpenCL C
 * has no half arithmetic there, but it can still read and write halves in memory, with
 * `vload_half` and `vstore_half_rte`. So float16 is *stored* as half and *computed* in float:
 *
 * - half buffers (array arguments, global temporaries) are read with `vload_half` and
 *   written with `vstore_half_rte`, as C's halves would be converted;
 * - every float16 operation is computed in float and its result rounded to float16
 *   (`loom_to_half`), which gives exactly what native half arithmetic gives: a float holds
 *   the exact result of `+ - *` of halves or rounds it innocuously (24 >= 2*11 + 2 bits);
 * - float16 variables and private or local arrays are floats holding half values;
 * - a float16 value argument travels as a float holding the half value.
 *
 * With `cl_khr_fp16` the target prints native `half` code instead (`openclTarget()`'s default).
 */

import type { HalfStorageSpelling } from '@loom/codegen-cfamily';

/** `x` rounded to float16, as a float (through a half's bits in private memory). */
const TO_HALF = 'loom_to_half';
/** `x` (a double) rounded to float16 once, as a float. */
const TO_HALF_F64 = 'loom_to_half_f64';

/** OpenCL's half storage: `vload_half`, `vstore_half_rte`, and rounding through them. */
export const openclHalfStorage: HalfStorageSpelling = {
  load: (array, index) => `vload_half(${index}, ${array})`,
  store: (array, index, value) => `vstore_half_rte(${value}, ${index}, ${array});`,
  round: (fromDouble) => ({ name: fromDouble ? TO_HALF_F64 : TO_HALF, definition: toHalfDefinition(fromDouble) }),
};

function toHalfDefinition(fromDouble: boolean): string {
  const [name, t] = fromDouble ? [TO_HALF_F64, 'double'] : [TO_HALF, 'float'];
  return [
    `inline float ${name}(${t} x)`,
    '{',
    '  // rounded to the nearest float16 (ties to even), read back: half arithmetic without cl_khr_fp16',
    '  ushort bits;',
    '  vstore_half_rte(x, 0, (__private half *) &bits);',
    '  return vload_half(0, (__private const half *) &bits);',
    '}',
  ].join('\n');
}
