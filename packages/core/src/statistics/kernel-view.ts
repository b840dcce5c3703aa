/**
 * What the counters read from a preprocessed kernel: its assignments (substitution rules
 * written out), selected by `within`, and the dtype of any expression in them.
 */
import type { DType } from '../dtypes.ts';
import type { Expr } from '../expr/nodes.ts';
import { expandSubstitutions, soleAssignee } from '../kernel/accesses.ts';
import { matchIds } from '../kernel/dependencies.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { exprType, INDEX_DTYPE } from '../kernel/type-inference.ts';

export interface WithinOption {
  /**
   * Count only these instructions: ids (wildcards allowed) and `tag:NAME` (the
   * instructions tagged NAME), as a list or joined with `:`; default: all of them.
   */
  readonly within?: string | readonly string[] | undefined;
}

/** The assignments `within` selects, with substitution rules expanded. */
export function countedInstructions(knl: LoopKernel, within: string | readonly string[] | undefined): Instruction[] {
  const selected = selectedIds(knl.instructions, within);
  return knl.instructions
    .filter((insn) => insn.kind === 'assign' && selected.has(insn.id))
    .map((insn) => ({
      ...insn,
      assignees: [expandSubstitutions(soleAssignee(insn), knl.substitutions)],
      expression: expandSubstitutions(insn.expression!, knl.substitutions),
    }));
}

function selectedIds(insns: readonly Instruction[], within: string | readonly string[] | undefined): Set<string> {
  const ids = insns.map((i) => i.id);
  if (within === undefined) return new Set(ids);
  const patterns = typeof within === 'string' ? splitPatterns(within) : within;
  const out = new Set<string>();
  for (const p of patterns.map((x) => x.trim())) {
    if (p.startsWith('tag:')) for (const i of insns) if (i.tags.includes(p.slice(4))) out.add(i.id);
    for (const id of p.startsWith('tag:') ? [] : matchIds(p, ids)) out.add(id);
  }
  return out;
}

/** `a:b` → a, b; `tag:x` stays whole. */
function splitPatterns(text: string): string[] {
  const parts = text.split(':');
  const out: string[] = [];
  for (let k = 0; k < parts.length; k++) {
    if (parts[k] === 'tag' && k + 1 < parts.length) out.push(`tag:${parts[++k]}`);
    else out.push(parts[k]!);
  }
  return out;
}

/** The dtype of an expression of the kernel: inames and parameters are int32. */
export function expressionTyper(knl: LoopKernel): (e: Expr) => DType {
  const inames = new Set(knl.inames);
  const args = new Map(knl.args.map((a) => [a.name, a.dtype] as const));
  const typeOf = (name: string) =>
    inames.has(name) ? INDEX_DTYPE : args.has(name) ? args.get(name) : knl.temporaries.get(name)?.dtype;
  return (e) => exprType(e, typeOf).dtype;
}
