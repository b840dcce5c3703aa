/**
 * Transformations that act on the instructions a `within` picks (splitIname, chunkIname,
 * joinInames): when other instructions use the same iname, loopy leaves them on the old
 * iname and gives the picked ones the new loops. Here that is one step first: the picked
 * instructions get a copy of the iname (duplicateInames, which keeps every rule and
 * temporary consistent, or says why it cannot), and the transformation then consumes the
 * copy whole.
 */
import { reductionInames } from '../kernel/accesses.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { duplicateInames } from './duplicate-inames.ts';
import { uniqueName } from '../kernel/rename.ts';

/** Ids of the instructions that run in `iname` or reduce over it (through the rules they call too). */
export function instructionsUsing(knl: LoopKernel, iname: string): Set<string> {
  return new Set(
    knl.instructions
      .filter((i) => i.withinInames.includes(iname) || reductionInames(i, knl.substitutions).has(iname))
      .map((i) => i.id),
  );
}

/**
 * The kernel in which the instructions of `chosen` alone use each of `inames` (copies made
 * where others use them too), and the name each iname now has for the chosen instructions.
 */
export function isolateInames(
  knl: LoopKernel,
  inames: readonly string[],
  chosen: ReadonlySet<string>,
): { kernel: LoopKernel; names: Map<string, string> } {
  const names = new Map(inames.map((n) => [n, n] as const));
  const shared = inames.filter((n) => [...instructionsUsing(knl, n)].some((id) => !chosen.has(id)));
  if (shared.length === 0) return { kernel: knl, names };
  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
  ]);
  const copies = shared.map((n) => {
    const copy = uniqueName(`${n}_within`, taken);
    taken.add(copy);
    names.set(n, copy);
    return copy;
  });
  const kernel = duplicateInames(knl, shared, { within: [...chosen].map((id) => `id:${id}`), newInames: copies });
  return { kernel, names };
}
