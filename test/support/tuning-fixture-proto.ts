/**
 * A tuning problem named `__proto__`, for `loom tune`'s cache (a name like any other there:
 * it must be saved, and found again).
 */
import { DeviceArray, defineTuning } from '@loom/core';
import { input, N, scaleKernel, type ScaleConfig } from './tuning-fixture.ts';

export const protoTuning = defineTuning<ScaleConfig>({
  name: '__proto__',
  space: [{ group: 32 }, { group: 64 }],
  build: scaleKernel,
  arguments: async (device) => ({
    a: await DeviceArray.from(device, input, 'float32', [N]),
    out: await DeviceArray.from(device, new Float32Array(N), 'float32', [N]),
    n: N,
  }),
});
