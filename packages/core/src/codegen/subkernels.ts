/**
 * `... gbarrier` splits a kernel into device kernels called one after the other
 * (`name`, `name_0`, `name_1`, ...). A global barrier inside a sequential loop makes the
 * loop a host loop: the host runs it around the device kernels of its body, which take
 * the loop's value as an argument (loopy's host program). Private and local temporaries
 * do not survive from one device kernel to the next: reading one that was written
 * before the split is a `MissingDefinitionError` until `saveAndReloadTemporaries` adds
 * the saves and reloads.
 */
import { LoomError, MissingDefinitionError } from '../errors.ts';
import { nameWritten, namesRead } from '../kernel/accesses.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { ScheduleItem } from '../schedule/linearize.ts';
import { hasHostLoops, type HostScheduleItem, type SplitSchedule, type Subkernel } from '../schedule/host-schedule.ts';

export type { Subkernel, SplitSchedule, HostScheduleItem };

/**
 * `checkDefinitions: false` leaves out the MissingDefinitionError (saveAndReloadTemporaries
 * splits a kernel to find what to save, before the saves are there).
 */
export function splitAtGlobalBarriers(
  knl: LoopKernel,
  schedule: readonly ScheduleItem[],
  options: { checkDefinitions?: boolean } = {},
): SplitSchedule {
  const isGlobalBarrier = (it: ScheduleItem): it is { kind: 'insn'; id: string } =>
    it.kind === 'insn' && knl.instruction(it.id).kind === 'barrier' && knl.instruction(it.id).barrierScope === 'global';
  const holdsGlobalBarrier = (items: readonly ScheduleItem[]): boolean =>
    items.some((it) => isGlobalBarrier(it) || (it.kind === 'loop' && holdsGlobalBarrier(it.body)));

  const subkernels: Subkernel[] = [];
  const launch = (part: readonly ScheduleItem[], hostInames: readonly string[]): HostScheduleItem[] => {
    if (part.length === 0) return [];
    subkernels.push({
      name: subkernels.length === 0 ? knl.name : `${knl.name}_${subkernels.length - 1}`,
      schedule: part,
      hostInames,
    });
    return [{ kind: 'launch', subkernel: subkernels.length - 1 }];
  };
  const split = (items: readonly ScheduleItem[], hostInames: readonly string[]): HostScheduleItem[] => {
    const host: HostScheduleItem[] = [];
    let part: ScheduleItem[] = [];
    for (const it of items) {
      if (isGlobalBarrier(it)) {
        host.push(...launch(part, hostInames), { kind: 'barrier', id: it.id });
        part = [];
      } else if (it.kind === 'loop' && holdsGlobalBarrier(it.body)) {
        checkHostLoop(knl, it.iname);
        host.push(...launch(part, hostInames), {
          kind: 'loop',
          iname: it.iname,
          body: split(it.body, [...hostInames, it.iname]),
        });
        part = [];
      } else part.push(it);
    }
    host.push(...launch(part, hostInames));
    return host;
  };
  const host = split(schedule, []);
  if (options.checkDefinitions ?? true) checkDefinitions(knl, subkernels, host);
  return { subkernels, host };
}

/** A loop the host runs is a plain sequential loop: its tags cannot be honoured there. */
function checkHostLoop(knl: LoopKernel, iname: string): void {
  const tag = knl.inameTags.get(iname);
  if (tag?.kind === 'unroll') {
    throw new LoomError(
      `cannot unroll '${iname}': a global barrier sits inside it, so the host runs it as a loop around the device kernels (untag it)`,
    );
  }
  if (knl.loopSlabs.has(iname)) {
    throw new LoomError(
      `cannot cut slabs off loop '${iname}': a global barrier sits inside it, so the host runs it as a loop around the device kernels (split it without slabs)`,
    );
  }
}

/**
 * Private and local temporaries die with their device kernel: one read in a kernel that
 * did not write it first, after a kernel that did, reads nothing. A host loop's body runs
 * again after its last kernel, so it is visited twice (what the last kernel of one
 * iteration wrote, the first of the next would read).
 */
function checkDefinitions(knl: LoopKernel, subkernels: readonly Subkernel[], host: readonly HostScheduleItem[]): void {
  if (subkernels.length < 2 && !hasHostLoops(host)) return;
  // each temporary written by an earlier kernel: the last instruction that wrote it, and where
  const defined = new Map<string, { readonly writer: string; readonly kernel: string }>();
  const runKernel = (sub: Subkernel) => {
    const here = new Map<string, string>();
    const visit = (items: readonly ScheduleItem[]) => {
      for (const it of items) {
        if (it.kind === 'loop') visit(it.body);
        if (it.kind !== 'insn') continue;
        const insn = knl.instruction(it.id);
        for (const name of namesRead(insn, knl.substitutions)) {
          const t = knl.temporaries.get(name);
          if (!t || t.addressSpace === 'global' || t.initializer || here.has(name)) continue;
          const earlier = defined.get(name);
          if (earlier) {
            // a writer nothing orders before the barrier follows it already (keepWritersWithReaders):
            // this value crosses the barrier
            throw new MissingDefinitionError(
              `temporary variable '${name}' gets used in subkernel '${sub.name}' without a definition (maybe you forgot to call saveAndReloadTemporaries?); '${earlier.writer}' wrote it in subkernel '${earlier.kernel}', before the global barrier`,
            );
          }
        }
        const w = nameWritten(insn);
        if (w !== undefined) here.set(w, insn.id);
      }
    };
    visit(sub.schedule);
    for (const [n, writer] of here) defined.set(n, { writer, kernel: sub.name });
  };
  const walk = (items: readonly HostScheduleItem[]) => {
    for (const h of items) {
      if (h.kind === 'launch') runKernel(subkernels[h.subkernel]);
      else if (h.kind === 'loop') {
        walk(h.body);
        walk(h.body);
      }
    }
  };
  walk(host);
}
