/**
 * `... gbarrier` splits a kernel into device kernels called one after the other
 * (`name`, `name_0`, `name_1`, ...). Private and local temporaries do not survive
 * from one device kernel to the next: reading one that was written before the
 * split is a `MissingDefinitionError` until `saveAndReloadTemporaries` adds the
 * saves and reloads.
 */
import { LoomError, MissingDefinitionError } from '../errors.ts';
import { nameWritten, namesRead } from '../kernel/accesses.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { ScheduleItem } from '../schedule/linearize.ts';

import type { Subkernel } from '../schedule/print-linearization.ts';
export type { Subkernel };

export function splitAtGlobalBarriers(knl: LoopKernel, schedule: readonly ScheduleItem[]): Subkernel[] {
  const isGlobalBarrier = (it: ScheduleItem) => it.kind === 'insn' && knl.instruction(it.id).kind === 'barrier' && knl.instruction(it.id).barrierScope === 'global';
  const nested = (items: readonly ScheduleItem[], loop?: string): void => {
    for (const it of items) {
      if (it.kind === 'loop') nested(it.body, it.iname);
      else if (loop && isGlobalBarrier(it)) {
        throw new LoomError(`the global barrier '${(it as { id: string }).id}' sits inside the sequential loop '${loop}': a kernel can only be split between loops`);
      }
    }
  };
  nested(schedule);
  const parts: ScheduleItem[][] = [[]];
  for (const it of schedule) {
    if (isGlobalBarrier(it)) parts.push([]);
    else parts[parts.length - 1].push(it);
  }
  const subkernels = parts.map((p, k) => ({ name: k === 0 ? knl.name : `${knl.name}_${k - 1}`, schedule: p }));
  checkDefinitions(knl, subkernels);
  return subkernels.filter((s) => s.schedule.length > 0);
}

function checkDefinitions(knl: LoopKernel, subkernels: readonly Subkernel[]): void {
  if (subkernels.length < 2) return;
  const defined = new Set<string>();
  for (const sub of subkernels) {
    const here = new Set<string>();
    const visit = (items: readonly ScheduleItem[]) => {
      for (const it of items) {
        if (it.kind === 'loop') visit(it.body);
        if (it.kind !== 'insn') continue;
        const insn = knl.instruction(it.id);
        for (const name of namesRead(insn, knl.substitutions)) {
          const t = knl.temporaries.get(name);
          if (!t || t.addressSpace === 'global' || here.has(name)) continue;
          if (defined.has(name)) {
            throw new MissingDefinitionError(
              `temporary variable '${name}' gets used in subkernel '${sub.name}' without a definition (maybe you forgot to call saveAndReloadTemporaries?)`,
            );
          }
        }
        const w = nameWritten(insn);
        if (w !== undefined) here.add(w);
      }
    };
    visit(sub.schedule);
    for (const n of here) defined.add(n);
  }
}
