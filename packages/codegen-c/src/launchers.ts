/**
 * The one entry point every kernel of the C device has, so that the runtime binds one C
 * prototype for all of them:
 *
 *     void K__launch(void *const *args, const int32_t *group_count)
 *
 * `args[k]` points at the memory of the kernel's k-th parameter: a buffer's elements, or a
 * value's bytes. The launcher runs every work-group of the grid, in parallel with OpenMP where
 * the compiler has it (`_OPENMP`) and there is more than one: the groups of one launch are
 * independent, as on a GPU, and within a group the work-items are already loops
 * (serialize-work-items.ts in core).
 */
import { isNarrowFloat, type KernelFunction } from '@loom/core';
import { cType } from './c-types.ts';

/** The suffix of the launcher's symbol: `K__launch` launches kernel `K`. */
export const LAUNCH_SUFFIX = '__launch';

/** The exported launcher of kernel `k`, spelled `entry` in the code. */
/** What a caller of the C device's code links against: the launcher of kernel `entry` (its kernel is static). */
export const launcherDeclaration = (entry: string): string =>
  `void ${entry}${LAUNCH_SUFFIX}(void *const *args, const int32_t *group_count)`;

export function printLauncher(k: KernelFunction, entry: string): string {
  const args = k.params.map((p, i) => {
    // a struct array is a pointer to its struct (the typedef the program declares)
    if (p.struct) return `(${p.struct.name} *) args[${i}]`;
    if (p.kind !== 'value') return `(${cType(p.dtype)} *) args[${i}]`;
    // a float16 or bfloat16 value travels as the float that holds it (computed in float), as the OpenCL device passes it
    return `*(const ${cType(isNarrowFloat(p.dtype) ? 'float32' : p.dtype)} *) args[${i}]`;
  });
  const call = `${entry}(${[...args, 'group'].join(', ')});`;
  return [
    launcherDeclaration(entry),
    '{',
    '  const int32_t count0 = group_count[0], count1 = group_count[1], count2 = group_count[2];',
    '#ifdef _OPENMP',
    // one group (an untransformed kernel is one work-item) runs on the calling thread: opening a
    // team for it costs more than a small kernel, and much more where the cores are busy
    '  #pragma omp parallel for collapse(3) schedule(static) if ((int64_t) count0 * count1 * count2 > 1)',
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
