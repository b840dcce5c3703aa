/**
 * Calls of user functions as instructions of their own: `f(x[i])` on its own line, kept for what
 * the function does (prints, writes through state of its own), not for a value (loopy's
 * `CallInstruction` with no assignees). The text cannot tell such a line from a call of a kernel
 * of the program (`print_foo()`), so the front end makes both `call` instructions; once the
 * functions the kernel sees are known (the program's, the kernel's own and the global ones),
 * a call of a user function becomes a `user-call` instruction, which every pass keeps (it writes
 * nothing, so nothing ever finds it dead) and every target prints as a call statement.
 */
import { LoomError } from '../errors.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { userFunctionOf } from './resolve.ts';

/**
 * `knl` with each `call` instruction of a user function made a `user-call`; the same kernel when
 * there is none. A call that sweeps sub-arrays or keeps results is a call of a kernel: on a user
 * function it is an error saying so.
 */
export function withCallStatements(knl: LoopKernel): LoopKernel {
  let changed = false;
  const instructions = knl.instructions.map((insn) => {
    if (insn.kind !== 'call' || !insn.call || !userFunctionOf(knl, insn.call.callee)) return insn;
    changed = true;
    return callStatement(knl, insn);
  });
  return changed ? knl.with({ instructions }) : knl;
}

function callStatement(knl: LoopKernel, insn: Instruction): Instruction {
  const { callee, assigneeSweeps, argSweeps } = insn.call!;
  if (assigneeSweeps.length > 0 || argSweeps.some((s) => s !== undefined)) {
    throw new LoomError(
      `kernel '${knl.name}' calls the user function '${callee}' with sub-array references or results in loopy's call syntax, which only calls of kernels take: pass values (\`${callee}(x[i])\`), and assign a result as an expression (\`y[i] = ${callee}(x[i])\`)`,
      insn.span,
    );
  }
  const { call: _kernelCall, ...rest } = insn;
  return { ...rest, kind: 'user-call' };
}
