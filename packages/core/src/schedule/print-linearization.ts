/**
 * The LINEARIZATION section of the kernel view, as loopy prints it:
 *
 *   0: CALL KERNEL rotate_v2
 *   1: tmp = arr[i_inner + i_outer*16] {id=maketmp}
 *   2: RETURN FROM KERNEL rotate_v2
 *   3: ... gbarrier
 *   ...
 *
 * A host loop (a global barrier inside a sequential loop) prints around the kernels it launches.
 */
import { printInstruction } from '../kernel/print.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { ScheduleItem } from './linearize.ts';
import type { HostScheduleItem, SplitSchedule, Subkernel } from './host-schedule.ts';

export type { Subkernel };

export function printLinearization(knl: LoopKernel, split: SplitSchedule): string[] {
  const lines: string[] = [];
  const emit = (text: string, depth = 0) => lines.push(`${lines.length}: ${'    '.repeat(depth)}${text}`);
  const walk = (items: readonly ScheduleItem[], depth: number) => {
    for (const it of items) {
      if (it.kind === 'insn') emit(printInstruction(knl.instruction(it.id)), depth);
      else if (it.kind === 'barrier')
        emit(
          `... ${it.scope === 'global' ? 'gbarrier' : 'lbarrier'}${it.comment ? ` /* ${it.comment} */` : ''}`,
          depth,
        );
      else {
        emit(`for ${it.iname}`, depth);
        walk(it.body, depth + 1);
        emit(`end ${it.iname}`, depth);
      }
    }
  };
  const host = (items: readonly HostScheduleItem[], depth: number) => {
    for (const h of items) {
      if (h.kind === 'barrier') emit('... gbarrier', depth);
      else if (h.kind === 'loop') {
        emit(`for ${h.iname}`, depth);
        host(h.body, depth + 1);
        emit(`end ${h.iname}`, depth);
      } else {
        const sub = split.subkernels[h.subkernel];
        emit(`CALL KERNEL ${sub.name}`, depth);
        walk(sub.schedule, depth + 1);
        emit(`RETURN FROM KERNEL ${sub.name}`, depth);
      }
    }
  };
  host(split.host, 0);
  return lines;
}
