/**
 * `generateHeader` (loopy's `generate_header`): the declarations a C header holds for the
 * device kernels of a kernel's code, so that host code compiled apart can call them.
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { generateCode } from './generate.ts';
import type { Target } from './target.ts';

/**
 * The declaration of each device kernel of `knl`'s code for `target`, in launch order (one
 * unless the kernel has global barriers). Only a C-family target declares its functions; on
 * another (WGSL, JavaScript) it is a LoomError.
 * ```ts
 * generateHeader(knl, openclTarget());
 * // ['__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float *__restrict__ T);']
 * ```
 */
export function generateHeader(knl: LoopKernel, target: Target): string[] {
  const { kernels } = generateCode(knl, target);
  return kernels.map((k) => {
    if (k.declaration === undefined)
      throw new LoomError(
        `generateHeader: target '${target.name}' declares no functions (a header is C's: use an OpenCL, CUDA or C target)`,
      );
    return k.declaration;
  });
}
