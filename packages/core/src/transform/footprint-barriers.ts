/**
 * The global barriers around a footprint stored in global memory (addPrefetch and
 * precompute with `temporaryAddressSpace: 'global'`). Every work-group writes the
 * temporary and any may read it, so, as loopy does, the readers wait at a global barrier
 * (which ends the device kernel) named after the store.
 *
 * That barrier runs inside the sequential loops the store shares with every reader, as a
 * barrier written there in loopy's `for` nesting would: store, barrier and reads once per
 * iteration, the loop becoming a host loop around the launches. Outside such a loop it
 * would have to come both after the store's iterations and before the reads' (no order of
 * the loops exists). Inside one, the next iteration's store overwrites what this
 * iteration's readers read: a second global barrier opens each iteration before the store
 * (loopy's barrier check asks for one there, across the iterations, as Loom's does).
 */
import { isSequentialTag, type Instruction, type LoopKernel } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';

export interface FootprintBarriers {
  /** The store, waiting for the barrier that opens each iteration where there is one. */
  readonly store: Instruction;
  /** The barriers, in order: the one before the store (inside a shared loop), the one after it. */
  readonly barriers: readonly Instruction[];
  /** What the readers wait for. */
  readonly waitFor: string;
}

/**
 * The barriers for `store` and its `readers` (ids not in `takenIds`), named after `base`:
 * `a_barrier` after the store, and `a_barrier_before` where the store shares a loop with them.
 */
export function footprintBarriers(
  knl: LoopKernel,
  base: string,
  store: Instruction,
  readers: readonly Instruction[],
  takenIds: ReadonlySet<string>,
): FootprintBarriers {
  const inames = store.withinInames.filter(
    (n) => isSequentialTag(knl.inameTags.get(n)) && readers.every((r) => r.withinInames.includes(n)),
  );
  const taken = new Set(takenIds);
  const barrier = (name: string, dependsOn: readonly string[]): Instruction => {
    const id = uniqueName(name, taken);
    taken.add(id);
    return {
      ...store,
      kind: 'barrier',
      id,
      assignees: [],
      expression: undefined,
      barrierScope: 'global',
      withinInames: inames,
      dependsOn,
    };
  };
  const before = inames.length ? barrier(`${base}_barrier_before`, store.dependsOn) : undefined;
  const after = barrier(`${base}_barrier`, [store.id]);
  return {
    store: before ? { ...store, dependsOn: [...store.dependsOn, before.id] } : store,
    barriers: before ? [before, after] : [after],
    waitFor: after.id,
  };
}
