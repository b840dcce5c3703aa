/**
 * Domain parameters and other value arguments nobody typed are int32, as in loopy's
 * generated code: the first pass, so that type inference sees them typed.
 */
import type { LoopKernel } from '../kernel/model.ts';
import { INDEX_DTYPE } from '../kernel/type-inference.ts';

export function withDefaultValueTypes(knl: LoopKernel): LoopKernel {
  if (!knl.args.some((a) => a.kind === 'value' && a.dtype === undefined)) return knl;
  return knl.with({
    args: knl.args.map((a) => (a.kind === 'value' && a.dtype === undefined ? { ...a, dtype: INDEX_DTYPE } : a)),
  });
}
