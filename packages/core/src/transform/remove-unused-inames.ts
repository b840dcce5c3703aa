/**
 * `removeUnusedInames(knl)`: inames no instruction runs in or reduces over leave the
 * domains (loopy's remove_unused_inames), with their tags, slabs and priorities. A loop
 * that bounds a used one (`j` in `0 <= i < j`) is used too: its values decide what the
 * used loop runs over. A domain left without inames goes.
 */
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import { reductionInames } from '../kernel/accesses.ts';
import { parentInames } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { BasicSet } from '../sets/index.ts';

/** The inames the kernel's instructions use, and the ones their bounds depend on. */
export function usedInames(knl: LoopKernel): Set<string> {
  const used = new Set<string>();
  const pending: string[] = [];
  const note = (n: string) => {
    if (!used.has(n)) used.add(n), pending.push(n);
  };
  for (const insn of knl.instructions) {
    insn.withinInames.forEach(note);
    reductionInames(insn, knl.substitutions).forEach(note);
  }
  while (pending.length) parentInames(knl, pending.pop()!).forEach(note);
  return used;
}

/** `inames`: the candidates (a list or comma-separated); default every iname. Used ones stay. */
export function removeUnusedInames(knl: LoopKernel, inames?: string | readonly string[]): LoopKernel {
  const candidates = inames === undefined ? knl.inames : nameList(inames);
  for (const n of candidates)
    if (!knl.inames.includes(n))
      throw new LoomError(`removeUnusedInames: unknown iname '${n}' (inames: ${knl.inames.join(', ')})`);
  const used = usedInames(knl);
  const unused = new Set(candidates.filter((n) => !used.has(n)));
  if (unused.size === 0) return knl;
  const domains: BasicSet[] = [];
  for (const d of knl.domains) {
    const gone = [...d.dims, ...d.params].filter((n) => unused.has(n));
    const kept = gone.length ? d.project(gone) : d;
    if (kept.dims.length > 0) domains.push(kept);
  }
  const inameTags = new Map([...knl.inameTags].filter(([n]) => !unused.has(n)));
  const loopSlabs = new Map([...knl.loopSlabs].filter(([n]) => !unused.has(n)));
  const loopPriorities = knl.loopPriorities.map((p) => p.filter((n) => !unused.has(n))).filter((p) => p.length > 1);
  return knl.with({ domains, inameTags, loopSlabs, loopPriorities });
}
