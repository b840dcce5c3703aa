/**
 * Where temporaries live. A temporary left at `auto` goes to local memory when it is
 * written in parallel across local ids and indexed by them (every work-item of a
 * group writes its own part), otherwise to private memory. Writing it across only
 * some of the local ids that run the writer would be a race — loopy's
 * WriteRaceConditionWarning.
 */
import { LoomError, LoomWarning, reportWarning } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { freeVariables, printExpr } from '../expr/index.ts';
import { soleAssignee } from '../kernel/accesses.ts';
import type { AddressSpace, Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';

export function placeTemporaries(knl: LoopKernel): LoopKernel {
  const temporaries = new Map<string, TemporaryVariable>();
  for (const [name, t] of knl.temporaries) {
    if (t.addressSpace !== 'auto' && t.addressSpace !== 'global')
      for (const insn of knl.instructions) {
        if (insn.kind !== 'assign') continue;
        const a = soleAssignee(insn);
        if (a.kind === 'subscript' && a.array === name) checkNotSplitAcrossGroups(knl, t, insn, a.indices);
      }
    const placed = t.addressSpace === 'auto' ? { ...t, addressSpace: choose(knl, t) } : t;
    checkConstantSize(placed);
    temporaries.set(name, placed);
  }
  return knl.with({ temporaries });
}

/**
 * A private or local temporary is declared with a fixed size in the device code; only a
 * global one, which the host allocates for each call, may have a size in the parameters.
 */
function checkConstantSize(t: TemporaryVariable): void {
  if (t.addressSpace === 'global' || t.shape.every((s) => s.kind === 'int')) return;
  throw new LoomError(
    `temporary '${t.name}' has shape (${t.shape.map(printExpr).join(', ')}), which depends on the parameters, but ${t.addressSpace} memory is declared with a fixed size in the device code: ` +
      `place it in global memory, which run allocates for each call (setTemporaryAddressSpace(knl, '${t.name}', 'global')), or give it a constant size (fixParameters, or split the loop that indexes it)`,
  );
}

function choose(knl: LoopKernel, t: TemporaryVariable): AddressSpace {
  let local = false;
  for (const insn of knl.instructions) {
    if (insn.kind !== 'assign') continue;
    const a = soleAssignee(insn);
    if (a.kind !== 'subscript' || a.array !== t.name) continue;
    checkNotSplitAcrossGroups(knl, t, insn, a.indices);
    const localInames = insn.withinInames.filter((n) => knl.inameTags.get(n)?.kind === 'local');
    if (localInames.length === 0) continue;
    const indexNames = new Set(a.indices.flatMap((ix) => [...freeVariables(ix)]));
    const indexed = localInames.filter((n) => indexNames.has(n));
    if (indexed.length === 0) continue;
    const missing = localInames.filter((n) => !indexNames.has(n));
    if (missing.length && !knl.silencedWarnings.includes(`write_race_local(${insn.id})`)) {
      reportWarning(
        new LoomWarning(
          `in kernel ${knl.name}: instruction '${insn.id}' looks invalid: it assigns to indices based on local IDs, but its temporary '${t.name}' cannot be made local because a write race across the iname(s) '${missing.join(', ')}' would emerge. (Do you need to add an extra iname to your prefetch?) (add 'write_race_local(${insn.id})' to silenced_warnings kernel attribute to disable)`,
          'WriteRaceConditionWarning',
        ),
      );
      return 'private';
    }
    local = true;
  }
  return local ? 'local' : 'private';
}

/**
 * Each work-group has its own private and local memory: a temporary indexed by a
 * group iname would be filled piecewise, each group seeing only its own piece.
 */
function checkNotSplitAcrossGroups(knl: LoopKernel, t: TemporaryVariable, insn: Instruction, indices: readonly Expr[]): void {
  const names = new Set(indices.flatMap((ix) => [...freeVariables(ix)]));
  const across = insn.withinInames.filter((n) => knl.inameTags.get(n)?.kind === 'group' && names.has(n));
  if (across.length) {
    throw new LoomError(
      `temporary '${t.name}' is written by '${insn.id}' at indices that depend on the group iname(s) '${across.join(', ')}': each work-group would hold only its own part of it. ` +
        `Do not map '${across.join(', ')}' to a group axis, or place '${t.name}' in global memory (setTemporaryAddressSpace).`,
      insn.span,
    );
  }
}
