/**
 * What a failed validity check reports. Every message says where (the kernel and the
 * instruction), what (the inames involved and the problem) and how to fix it, so a
 * kernel that would compute wrong numbers is stopped with a sentence the user can act on.
 */
import { LoomError, LoomWarning, reportWarning, type SourceSpan } from '../errors.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';

/**
 * A kernel that fails one of loopy's checks before code generation (a write race, a hardware axis
 * used twice, a local array read where it is not written...): a `LoomError` naming the check.
 */
export class KernelCheckError extends LoomError {
  constructor(
    /** Which check failed, e.g. `double_use_of_hw_axes` (loopy's check names). */
    readonly check: string,
    /** The kernel's name. */
    readonly kernel: string,
    /** The id of the instruction that fails the check. */
    readonly instruction: string,
    /** The inames the finding is about. */
    readonly inames: readonly string[],
    message: string,
    span?: SourceSpan,
  ) {
    super(message, span);
  }
}

export interface Finding {
  readonly check: string;
  readonly inames: readonly string[];
  /** What is wrong, as a sentence fragment after "instruction 'x' ...". */
  readonly problem: string;
  /** What the user can do about it. */
  readonly fix: string;
  /** Where to point; defaults to the instruction's source line. */
  readonly span?: SourceSpan;
}

export function describe(knl: LoopKernel, insn: Instruction, finding: Finding): string {
  return `in kernel '${knl.name}': instruction '${insn.id}' ${finding.problem}. ${finding.fix}`;
}

export function fail(knl: LoopKernel, insn: Instruction, finding: Finding): never {
  throw new KernelCheckError(
    finding.check,
    knl.name,
    insn.id,
    finding.inames,
    describe(knl, insn, finding),
    finding.span ?? insn.span,
  );
}

/**
 * Loopy reports some findings as warnings (a write race may be intended): they can be
 * silenced per instruction through the kernel's `silencedWarnings`, e.g. `write_race(insn)`.
 */
export function warn(knl: LoopKernel, insn: Instruction, finding: Finding, category: string, key: string): void {
  if (knl.silencedWarnings.includes(key)) return;
  reportWarning(
    new LoomWarning(
      `${describe(knl, insn, finding)} (add '${key}' to the kernel's silencedWarnings to disable)`,
      category,
    ),
  );
}

/** `'i', 'j'` */
export const quoted = (names: readonly string[]): string => names.map((n) => `'${n}'`).join(', ');
