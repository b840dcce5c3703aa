/**
 * The one entry point every kernel of the C device has, so that the runtime binds one C
 * prototype for all of them:
 *
 *     void K__launch(void *const *args, const int32_t *group_count)
 *
 * `args[k]` points at the memory of the kernel's k-th parameter: a buffer's elements, or a
 * value's bytes. The launcher runs every work-group of the grid, in parallel with OpenMP where
 * the compiler has it (`_OPENMP`): the groups of one launch are independent, as on a GPU, and
 * within a group the work-items are already loops (serialize-work-items.ts in core).
 */
import { InternalError, type DType, type KernelFunction } from '@loom/core';

/** The suffix of the launcher's symbol: `K__launch` launches kernel `K`. */
export const LAUNCH_SUFFIX = '__launch';

/** The name of the group ids' parameter that each kernel function takes last. */
export const GROUP_IDS = 'loom_group_ids_int32';

/** The C type of a parameter's elements, as the prelude names it (float16: the half's bits, `half`). */
export function cElementType(t: DType): string {
  switch (t) {
    case 'bool':
    case 'uint8':
      return 'uchar';
    case 'int8':
      return 'char';
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
    case 'float32':
      return 'float';
    case 'float64':
      return 'double';
    case 'complex64':
    case 'complex128':
      throw new InternalError(`a ${t} parameter reached the C target: complex values are lowered to their parts before code generation`);
  }
}

/** The exported launcher of kernel `k`, spelled `entry` in the code. */
export function printLauncher(k: KernelFunction, entry: string): string {
  const args = k.params.map((p, i) => {
    if (p.kind !== 'value') return `(${cElementType(p.dtype)} *) args[${i}]`;
    // a float16 value travels as the float that holds it (half storage), as the OpenCL device passes it
    return `*(const ${p.dtype === 'float16' ? 'float' : cElementType(p.dtype)} *) args[${i}]`;
  });
  const call = `${entry}(${[...args, 'group'].join(', ')});`;
  return [
    `void ${entry}${LAUNCH_SUFFIX}(void *const *args, const int32_t *group_count)`,
    '{',
    '  const int32_t count0 = group_count[0], count1 = group_count[1], count2 = group_count[2];',
    '#ifdef _OPENMP',
    '  #pragma omp parallel for collapse(3) schedule(static)',
    '#endif',
    '  for (int32_t g2 = 0; g2 < count2; ++g2)',
    '    for (int32_t g1 = 0; g1 < count1; ++g1)',
    '      for (int32_t g0 = 0; g0 < count0; ++g0)',
    '      {',
    '        const int32_t group[3] = { g0, g1, g2 };',
    `        ${call}`,
    '      }',
    '}',
  ].join('\n');
}
