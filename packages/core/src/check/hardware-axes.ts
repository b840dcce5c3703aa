/**
 * One hardware axis, one iname (loopy's check_for_double_use_of_hw_axes). An
 * instruction inside two inames tagged `l.0` would see both replaced by the same
 * `lid(0)`: `out[i,j]` becomes `out[32*lid(0) + lid(0)]`, the diagonal only.
 */
import { tagToString, type LoopKernel } from '../kernel/model.ts';
import { fail, quoted } from './check-error.ts';

export function checkHardwareAxesUsedOnce(knl: LoopKernel): void {
  for (const insn of knl.instructions) {
    const byAxis = new Map<string, string[]>();
    for (const iname of insn.withinInames) {
      const tag = knl.inameTags.get(iname);
      if (tag?.kind !== 'local' && tag?.kind !== 'group') continue;
      const key = tagToString(tag);
      byAxis.set(key, [...(byAxis.get(key) ?? []), iname]);
    }
    for (const [axis, inames] of byAxis) {
      if (inames.length < 2) continue;
      fail(knl, insn, {
        check: 'double_use_of_hw_axes',
        inames,
        problem: `has multiple inames tagged '${axis}' (${quoted(inames)}): the hardware has one index per axis, so they would all be the same value`,
        fix: `Tag them with different axes (e.g. ${inames.map((n, k) => `${n}: '${axis.slice(0, 2)}${k}'`).join(', ')}), or make all but one sequential.`,
      });
    }
  }
}
