/**
 * The kernel as the synchronization map counts it (loopy's `get_one_linearized_kernel`):
 * preprocessed, linearized, split into device kernels at global barriers, with its local
 * barriers inserted. What it leaves out of code generation's own path (generate.ts) are
 * the validity checks made after linearizing (races, local memory read before it is
 * written...): those stop code generation, while a count describes the kernel as written,
 * as loopy's does (the tutorial counts the barriers of a kernel that reads local memory
 * nobody wrote).
 */
import { preprocess } from '../preprocess/pipeline.ts';
import { splitAtGlobalBarriers, type HostScheduleItem, type Subkernel } from '../codegen/subkernels.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { insertBarriers } from '../schedule/barriers.ts';
import { linearize } from '../schedule/linearize.ts';

export function linearizedForCounting(knl: LoopKernel): {
  kernel: LoopKernel;
  subkernels: Subkernel[];
  host: readonly HostScheduleItem[];
} {
  const kernel = preprocess(knl);
  const split = splitAtGlobalBarriers(kernel, linearize(kernel));
  const subkernels = split.subkernels.map((sub) => ({ ...sub, schedule: insertBarriers(kernel, sub.schedule) }));
  return { kernel, subkernels, host: split.host };
}
