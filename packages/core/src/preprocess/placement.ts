/**
 * Where temporaries live (loopy's find_temporary_address_space). A temporary left at
 * `auto` goes to global memory when every instruction writing it runs across group ids
 * and is indexed by all of them (each work-group writes its own part of one array, which
 * a later device kernel, past a global barrier, may read); to local memory when it is
 * written in parallel across local ids and indexed by them (every work-item of a group
 * writes its own part); otherwise to private memory. Writing it across only some of the
 * local ids that run the writer would be a race — loopy's WriteRaceConditionWarning.
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
    const placed =
      t.addressSpace === 'auto' ? { ...t, addressSpace: writtenPerGroup(knl, t) ? 'global' : choose(knl, t) } : t;
    checkKnownSize(knl, placed);
    temporaries.set(name, placed);
  }
  return knl.with({ temporaries });
}

/**
 * A private or local temporary's size is a constant or an expression of the kernel's value
 * arguments, which a launch knows (code generation asks the target whether it declares such an
 * array: C does, as a variable-length array; OpenCL C does not). A size in anything else (a
 * temporary, an iname) is known to no launch; only a global temporary, which the host
 * allocates for each call, may have one.
 */
function checkKnownSize(knl: LoopKernel, t: TemporaryVariable): void {
  if (t.addressSpace === 'global') return;
  const values = new Set(knl.args.filter((a) => a.kind === 'value').map((a) => a.name));
  const unknown = [...new Set(t.shape.flatMap((s) => [...freeVariables(s)]))].filter((n) => !values.has(n));
  if (unknown.length === 0) return;
  throw new LoomError(
    `temporary '${t.name}' has shape (${t.shape.map(printExpr).join(', ')}), which depends on ${unknown.map((n) => `'${n}'`).join(', ')}, not value arguments a launch knows, but ${t.addressSpace} memory is sized at launch at the latest: ` +
      `place it in global memory, which run allocates for each call (setTemporaryAddressSpace(knl, '${t.name}', 'global')), or give it a constant size (fixParameters, or split the loop that indexes it)`,
  );
}

/**
 * Whether every writer of `t` runs across group inames and indexes `t` by all of them.
 * Writers that disagree (one per group, another not) leave no address space that serves
 * both: a LoomError, as loopy's "not all instructions agree".
 */
function writtenPerGroup(knl: LoopKernel, t: TemporaryVariable): boolean {
  const writers: { insn: Instruction; perGroup: boolean }[] = [];
  for (const insn of knl.instructions) {
    if (insn.kind !== 'assign') continue;
    const a = soleAssignee(insn);
    if (a.kind !== 'subscript' || a.array !== t.name) continue;
    const groupInames = insn.withinInames.filter((n) => knl.inameTags.get(n)?.kind === 'group');
    const indexNames = new Set(a.indices.flatMap((ix) => [...freeVariables(ix)]));
    writers.push({ insn, perGroup: groupInames.length > 0 && groupInames.every((n) => indexNames.has(n)) });
  }
  if (!writers.some((w) => w.perGroup)) return false;
  const other = writers.find((w) => !w.perGroup);
  if (other) {
    throw new LoomError(
      `not all instructions agree on the address space of temporary '${t.name}': '${writers.find((w) => w.perGroup)!.insn.id}' writes it at indices of every group iname it runs in (global memory), '${other.insn.id}' does not: ` +
        `place '${t.name}' yourself (setTemporaryAddressSpace)`,
      other.insn.span,
    );
  }
  return true;
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
function checkNotSplitAcrossGroups(
  knl: LoopKernel,
  t: TemporaryVariable,
  insn: Instruction,
  indices: readonly Expr[],
): void {
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
