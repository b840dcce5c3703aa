/**
 * `getSynchronizationMap(knl)`: the synchronizations each work-item goes through, as
 * loopy's `get_synchronization_map` counts them on the linearized kernel: a
 * `kernel_launch` per device kernel, a `barrier_global` per `... gbarrier`, and a
 * `barrier_local` per local barrier, times the iterations of the loops around it; and (Loom's,
 * loopy has none) a `fence_global` per `... gfence`, likewise, whether or not its predicates let
 * a work-item through.
 */
import { compiledKernel } from '../program/resolve.ts';
import type { Program } from '../program/program.ts';
import { linearizedForCounting } from './linearized.ts';
import type { HostScheduleItem, SplitSchedule } from '../codegen/subkernels.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { ScheduleItem } from '../schedule/linearize.ts';
import { ToCountMap } from './count-map.ts';
import type { GuardedPwQPolynomial } from './guarded.ts';
import { InstructionCounts } from './instruction-counts.ts';
import { Sync, type SyncFields } from './keys.ts';

/** Synchronization counts by `Sync` (loopy's `get_synchronization_map`). */
export type SyncMap = ToCountMap<Sync, SyncFields>;

/** The kind of key maps of synchronizations have. */
export const SYNC_KEYS = { fields: Sync.fields, make: (f: SyncFields) => new Sync(f) };

/** Counts a kernel's barriers and launches (loopy's `get_synchronization_map`). */
export function getSynchronizationMap(program: LoopKernel | Program): SyncMap {
  const knl = compiledKernel(program);
  const split = linearizedForCounting(knl);
  return syncMapOf(split, new InstructionCounts(split.kernel, {}, 'getSynchronizationMap'));
}

/** The synchronization map of the device kernels of the preprocessed kernel `counts` counts runs of. */
export function syncMapOf(split: SplitSchedule, counts: InstructionCounts): SyncMap {
  const kernel = counts.knl;
  const entries: [Sync, GuardedPwQPolynomial][] = [];
  const add = (kind: string, loops: readonly string[]) =>
    entries.push([new Sync({ kind, kernelName: kernel.name }), counts.ofInames(loops)]);
  const visit = (items: readonly ScheduleItem[], loops: readonly string[]) => {
    for (const it of items) {
      if (it.kind === 'loop') visit(it.body, [...loops, it.iname]);
      else if (it.kind === 'barrier') add(`barrier_${it.scope}`, loops);
      else {
        const insn = kernel.instruction(it.id);
        if (insn.kind === 'barrier') add(`barrier_${insn.barrierScope ?? 'global'}`, loops);
        else if (insn.kind === 'fence') add('fence_global', loops);
      }
    }
  };
  // a host loop (a global barrier inside a sequential loop) launches its kernels once per iteration
  const host = (items: readonly HostScheduleItem[], loops: readonly string[]) => {
    for (const h of items) {
      if (h.kind === 'loop') host(h.body, [...loops, h.iname]);
      else if (h.kind === 'barrier') add('barrier_global', loops);
      else {
        add('kernel_launch', loops);
        visit(split.subkernels[h.subkernel].schedule, loops);
      }
    }
  };
  host(split.host, []);
  return new ToCountMap(SYNC_KEYS, entries, counts.zero);
}
