/**
 * Which loops instructions run in, changed directly (loopy's add_inames_to_insn,
 * remove_inames_from_insn, add_inames_for_unused_hw_axes).
 */
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import { freeVariables } from '../expr/index.ts';
import { readExpressions } from '../kernel/accesses.ts';
import { tagToString, type LoopKernel } from '../kernel/model.ts';
import { instructionsWithin, type Within } from './match.ts';

/** `addInamesToInsn(knl, 'i', 'id:fetch')`: the instructions picked also run inside these loops. */
export function addInamesToInsn(knl: LoopKernel, inames: string | readonly string[], within: Within): LoopKernel {
  const list = nameList(inames);
  for (const n of list)
    if (!knl.inames.includes(n))
      throw new LoomError(`addInamesToInsn: unknown iname '${n}' (inames: ${knl.inames.join(', ')})`);
  const chosen = instructionsWithin(knl, within, 'addInamesToInsn', true);
  const instructions = knl.instructions.map((insn) =>
    chosen.has(insn.id)
      ? { ...insn, withinInames: [...insn.withinInames, ...list.filter((n) => !insn.withinInames.includes(n))] }
      : insn,
  );
  return knl.with({ instructions });
}

/**
 * `removeInamesFromInsn(knl, 'i_inner', 'id:a')`: the instructions picked no longer run
 * inside these loops. Each must run in at least one of them, and use none of them: a
 * value that names a loop it is not inside has no meaning.
 */
export function removeInamesFromInsn(knl: LoopKernel, inames: string | readonly string[], within: Within): LoopKernel {
  const list = nameList(inames);
  const chosen = instructionsWithin(knl, within, 'removeInamesFromInsn', true);
  const instructions = knl.instructions.map((insn) => {
    if (!chosen.has(insn.id)) return insn;
    const kept = insn.withinInames.filter((n) => !list.includes(n));
    if (kept.length === insn.withinInames.length) {
      throw new LoomError(
        `removeInamesFromInsn: instruction '${insn.id}' runs in none of '${list.join("', '")}' (it runs in ${insn.withinInames.join(', ') || 'no loop'})`,
      );
    }
    const read = new Set(readExpressions(insn, knl.substitutions).flatMap((e) => [...freeVariables(e)]));
    const used = list.filter((n) => read.has(n));
    if (used.length)
      throw new LoomError(
        `removeInamesFromInsn: instruction '${insn.id}' uses '${used.join("', '")}'; it cannot leave that loop`,
        insn.span,
      );
    return { ...insn, withinInames: kept };
  });
  return knl.with({ instructions });
}

/**
 * Every instruction (that `within` picks) also runs in the hardware-parallel inames it
 * lacks, so that it runs once per work-item rather than once per work-group or launch:
 * an instruction outside `l.0` would otherwise be run by every work-item along it. Each
 * axis used must be used by one iname only, so that it is clear which one to add.
 */
export function addInamesForUnusedHwAxes(knl: LoopKernel, within?: Within): LoopKernel {
  const byAxis = new Map<string, string[]>();
  for (const [iname, tag] of knl.inameTags) {
    if (tag.kind !== 'local' && tag.kind !== 'group') continue;
    const key = tagToString(tag);
    byAxis.set(key, [...(byAxis.get(key) ?? []), iname]);
  }
  for (const kind of ['l', 'g']) {
    const axes = [...byAxis.keys()].filter((k) => k.startsWith(kind)).map((k) => Number(k.slice(2)));
    for (let a = 0; a < Math.max(-1, ...axes); a++) {
      if (!axes.includes(a))
        throw new LoomError(
          `addInamesForUnusedHwAxes: axis ${kind}.${a} is unused while ${kind}.${Math.max(...axes)} is used`,
        );
    }
  }
  const chosen = instructionsWithin(knl, within, 'addInamesForUnusedHwAxes: option within', within !== undefined);
  const instructions = knl.instructions.map((insn) => {
    if (!chosen.has(insn.id)) return insn;
    const present = new Set(
      insn.withinInames
        .map((n) => knl.inameTags.get(n))
        .filter((t) => t !== undefined)
        .map((t) => tagToString(t)),
    );
    const added: string[] = [];
    for (const [axis, inames] of byAxis) {
      if (present.has(axis)) continue;
      if (inames.length > 1) {
        throw new LoomError(
          `addInamesForUnusedHwAxes: instruction '${insn.id}' lacks axis ${axis}, which several inames run on (${inames.join(', ')}); add one with addInamesToInsn`,
        );
      }
      added.push(inames[0]);
    }
    return added.length ? { ...insn, withinInames: [...insn.withinInames, ...added] } : insn;
  });
  return knl.with({ instructions });
}
