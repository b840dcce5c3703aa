/**
 * A device-wide memory fence (`... gfence`) needs a target that orders memory between
 * work-groups (`TargetFacts.globalFences`: OpenCL, CUDA, C and the CPU device). Elsewhere (WGSL,
 * whose barriers and fences reach one work-group only) the kernel is refused here, before any code
 * is written, with the target's reason: a kernel that hands data between work-groups by fence and
 * atomic fetch would otherwise read what another work-group has not yet made visible. Without a
 * target the check waits for the one the code is made for.
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { Target } from '../codegen/target.ts';
import { targetFacts } from '../codegen/target-facts.ts';

export function checkGlobalFences(knl: LoopKernel, target: Target | undefined): LoopKernel {
  if (!target) return knl;
  const support = targetFacts(target).globalFences;
  if (support === true) return knl;
  const fence = knl.instructions.find((insn) => insn.kind === 'fence');
  if (fence)
    throw new LoomError(
      `instruction '${fence.id}' is a device-wide memory fence (... gfence), which the ${target.name} target cannot make: ${support.refused}`,
      fence.span,
    );
  return knl;
}
