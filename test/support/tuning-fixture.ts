/**
 * A small tuning problem for the autotuner's tests and `loom tune`'s: `out[i] = 2*a[i]`
 * split into work-groups of some sizes, and two configurations that must not win (a kernel
 * that doubles wrongly, and one that writes nothing).
 */
import { DeviceArray, defineTuning, makeKernel, splitIname, type LoopKernel } from '@loom/core';

export const N = 4096;
export type ScaleConfig = { readonly group: number; readonly flaw?: 'wrong' | 'silent' };

export const input = Float32Array.from({ length: N }, (_, k) => (k % 97) - 48);

export function scaleKernel(config: ScaleConfig): LoopKernel {
  // 'silent' leaves `out` as it was: it must not pass on what an earlier configuration left in `out`
  const body =
    config.flaw === 'wrong'
      ? 'out[i] = 3*a[i]'
      : config.flaw === 'silent'
        ? 'out[i] = 2*a[i] if i < 0 else out[i]'
        : 'out[i] = 2*a[i]';
  const plain = makeKernel('{ [i]: 0<=i<n }', body, undefined, { name: 'scale', assumptions: `n = ${N}` });
  return splitIname(plain, 'i', config.group, { outerTag: 'g.0', innerTag: 'l.0' });
}

export const scaleTuning = defineTuning<ScaleConfig>({
  name: 'scale by 2',
  space: [{ group: 32 }, { group: 32, flaw: 'wrong' }, { group: 64, flaw: 'silent' }, { group: 128 }],
  work: { amount: N, unit: 'element' },
  build: scaleKernel,
  arguments: async (device) => ({
    a: await DeviceArray.from(device, input, 'float32', [N]),
    out: await DeviceArray.from(device, new Float32Array(N), 'float32', [N]),
    n: N,
  }),
  check: async (args) => {
    const out = (await (args.out as DeviceArray).toHost()) as Float32Array;
    const k = out.findIndex((v, i) => v !== 2 * input[i]!);
    return k < 0 ? undefined : `out[${k}] is ${out[k]}, expected ${2 * input[k]!}`;
  },
});
