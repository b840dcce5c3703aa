/**
 * A private or local temporary lives in one device kernel: what a kernel before a global barrier
 * writes into it, the kernel after the barrier cannot read (subkernels.ts refuses that, unless the
 * value is saved and reloaded). An instruction that depends on nothing may be scheduled into the
 * first kernel, though, even where everything that reads what it writes comes after a barrier: a
 * reduction's start (`acc = 0`, which realizing a reduction makes, as loopy does, without
 * dependencies) is the common case, and a kernel that transposes an operand into a global
 * temporary before its product was refused for it.
 *
 * This pass keeps such writers with their readers: for each global barrier B, a writer W of a
 * private or local temporary whose every reader (other than W) depends on B, directly or not,
 * gets B as a dependency, where that is free to give: W runs in the loops B runs in (the host's
 * loops around the barrier), and B does not depend on W. A value that must cross the barrier
 * (its writer comes before it) is left as it is, and the missing definition is still an error
 * that says to save and reload it.
 */
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { namesRead, namesWritten } from '../kernel/accesses.ts';

export function keepWritersWithReaders(knl: LoopKernel): LoopKernel {
  const barriers = knl.instructions.filter((i) => i.kind === 'barrier' && i.barrierScope === 'global');
  if (barriers.length === 0) return knl;
  const byId = new Map(knl.instructions.map((i) => [i.id, i]));
  // every instruction's dependencies, transitively (memoized depth-first)
  const ancestors = new Map<string, ReadonlySet<string>>();
  const ancestorsOf = (id: string, visiting = new Set<string>()): ReadonlySet<string> => {
    const known = ancestors.get(id);
    if (known) return known;
    const all = new Set<string>();
    if (visiting.has(id)) return all; // a cycle is the scheduler's to report
    visiting.add(id);
    for (const d of byId.get(id)?.dependsOn ?? []) {
      all.add(d);
      for (const a of ancestorsOf(d, visiting)) all.add(a);
    }
    visiting.delete(id);
    ancestors.set(id, all);
    return all;
  };
  const inKernel = new Set(
    [...knl.temporaries.values()]
      .filter((t) => t.addressSpace === 'private' || t.addressSpace === 'local')
      .map((t) => t.name),
  );
  // each temporary's writers and readers, every instruction's names read once
  const writersOf = new Map<string, Instruction[]>();
  const readersOf = new Map<string, Instruction[]>();
  const note = (map: Map<string, Instruction[]>, name: string, insn: Instruction) => {
    if (!inKernel.has(name)) return;
    const list = map.get(name);
    if (list) list.push(insn);
    else map.set(name, [insn]);
  };
  for (const insn of knl.instructions) {
    for (const name of new Set(namesWritten(insn))) note(writersOf, name, insn);
    for (const name of namesRead(insn, knl.substitutions)) note(readersOf, name, insn);
  }
  const added = new Map<string, string[]>();
  for (const name of inKernel) {
    const readers = readersOf.get(name) ?? [];
    for (const w of writersOf.get(name) ?? []) {
      const others = readers.filter((r) => r.id !== w.id);
      if (others.length === 0) continue;
      for (const b of barriers) {
        if (!others.every((r) => ancestorsOf(r.id).has(b.id))) continue;
        if (!freeToFollow(w, b, ancestorsOf)) continue;
        added.set(w.id, [...(added.get(w.id) ?? []), b.id]);
      }
    }
  }
  if (added.size === 0) return knl;
  return knl.with({
    instructions: knl.instructions.map((i) =>
      added.has(i.id) ? { ...i, dependsOn: [...new Set([...i.dependsOn, ...added.get(i.id)!])] } : i,
    ),
  });
}

/** Whether `w` may wait for barrier `b`: it runs in b's loops, does not already, and b does not wait for it. */
function freeToFollow(w: Instruction, b: Instruction, ancestorsOf: (id: string) => ReadonlySet<string>): boolean {
  if (ancestorsOf(w.id).has(b.id)) return false;
  if (ancestorsOf(b.id).has(w.id)) return false;
  return b.withinInames.every((iname) => w.withinInames.includes(iname));
}
