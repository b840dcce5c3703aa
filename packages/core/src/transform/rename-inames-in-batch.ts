/**
 * `renameInamesInBatch(knl, { ifused: ['j0', 'j1'], ifused_0: ['k'] })`: several renamings at
 * once (loopy's rename_inames_in_batch), each as `renameInames` does it: the loops of one
 * entry become one loop of the new name, which their domains must allow. The map
 * `getKennedyUnweightedFusionCandidates` returns is such a batch.
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { renameInames } from './rename-inames.ts';

/** New iname → the inames that become it; a map or a record. */
export type InameBatches = ReadonlyMap<string, readonly string[]> | Readonly<Record<string, readonly string[]>>;

/**
 * The kernel with each entry's inames renamed to (merged into) its key (loopy's
 * `rename_inames_in_batch`). An entry whose key is among its inames merges the others into
 * that one; an iname may appear in one entry only.
 * ```ts
 * const knl = makeKernel('{ [j0, j1]: 0 <= j0, j1 < 10 }', 'a[j0] = 1\nb[j1] = 2 * a[j1]', { seqDependencies: true });
 * renameInamesInBatch(knl, getKennedyUnweightedFusionCandidates(knl, 'j0, j1')).inames; // ['ifused']
 * renameInamesInBatch(knl, { j: ['j0', 'j1'] }).inames; // ['j']
 * ```
 */
export function renameInamesInBatch(knl: LoopKernel, batches: InameBatches): LoopKernel {
  const entries: [string, readonly string[]][] =
    batches instanceof Map ? [...batches] : Object.entries(batches as Record<string, readonly string[]>);
  const seen = new Map<string, string>();
  for (const [to, olds] of entries) {
    if (!Array.isArray(olds) || olds.length === 0)
      throw new LoomError(`renameInamesInBatch: the entry '${to}' lists no inames to rename`);
    for (const old of olds) {
      if (seen.has(old))
        throw new LoomError(`renameInamesInBatch: '${old}' is renamed both to '${seen.get(old)}' and to '${to}'`);
      if (!knl.inames.includes(old))
        throw new LoomError(`renameInamesInBatch: unknown iname '${old}' (inames: ${knl.inames.join(', ')})`);
      seen.set(old, to);
    }
  }
  // one renaming after another must not rename what an earlier one made
  for (const [to] of entries)
    if (seen.has(to) && seen.get(to) !== to)
      throw new LoomError(`renameInamesInBatch: '${to}' is both a new name and renamed to '${seen.get(to)}'`);
  let result = knl;
  for (const [to, olds] of entries) {
    const others = olds.filter((o) => o !== to);
    if (others.length === 0) continue;
    result = renameInames(result, others, to, { existingOk: others.length < olds.length });
  }
  return result;
}
