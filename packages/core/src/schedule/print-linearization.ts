/**
 * The LINEARIZATION section of the kernel view, as loopy prints it:
 *
 *   0: CALL KERNEL rotate_v2
 *   1: tmp = arr[i_inner + i_outer*16] {id=maketmp}
 *   2: RETURN FROM KERNEL rotate_v2
 *   3: ... gbarrier
 *   ...
 */
import { printInstruction } from '../kernel/print.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { ScheduleItem } from './linearize.ts';

export interface Subkernel {
  readonly name: string;
  readonly schedule: readonly ScheduleItem[];
}

export function printLinearization(knl: LoopKernel, subkernels: readonly Subkernel[]): string[] {
  const lines: string[] = [];
  const emit = (text: string, depth = 0) => lines.push(`${lines.length}: ${'    '.repeat(depth)}${text}`);
  const walk = (items: readonly ScheduleItem[], depth: number) => {
    for (const it of items) {
      if (it.kind === 'insn') emit(printInstruction(knl.instruction(it.id)), depth);
      else if (it.kind === 'barrier') emit(`... ${it.scope === 'global' ? 'gbarrier' : 'lbarrier'}${it.comment ? ` /* ${it.comment} */` : ''}`, depth);
      else {
        emit(`for ${it.iname}`, depth);
        walk(it.body, depth + 1);
        emit(`end ${it.iname}`, depth);
      }
    }
  };
  subkernels.forEach((sub, k) => {
    if (k > 0) emit('... gbarrier');
    emit(`CALL KERNEL ${sub.name}`);
    walk(sub.schedule, 1);
    emit(`RETURN FROM KERNEL ${sub.name}`);
  });
  return lines;
}
