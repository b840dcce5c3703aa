/**
 * A `cInstruction`'s code and a kernel's preambles are C, printed as given: only a target that compiles C can run it
 * (`TargetFacts.cInstructions`: OpenCL, CUDA, C). Elsewhere (WGSL, the CPU device's
 * JavaScript) the kernel is refused here, before any code is written, naming the instruction
 * and the targets that can. Without a target the check waits for the one the code is made for.
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { Target } from '../codegen/target.ts';
import { targetFacts } from '../codegen/target-facts.ts';

export function checkCInstructions(knl: LoopKernel, target: Target | undefined): LoopKernel {
  if (!target || targetFacts(target).cInstructions) return knl;
  const code = knl.instructions.find((insn) => insn.kind === 'c');
  if (code)
    throw new LoomError(
      `instruction '${code.id}' is C code (cInstruction), which the ${target.name} target cannot run: only targets that compile C run it (OpenCL, CUDA, C)`,
      code.span,
    );
  if (knl.preambles.length)
    throw new LoomError(
      `kernel '${knl.name}' has preambles (makeKernel's preambles: ${knl.preambles.map(([k]) => `'${k}'`).join(', ')}), which are C code: the ${target.name} target compiles no C; only OpenCL, CUDA and C take them`,
    );
  return knl;
}
