/**
 * Running one SGEMM configuration on a device: matrices made once per size, the kernel
 * prepared, timed and checked. Shared by the autotuner and the matmul benchmark.
 */
import { addPrefetch, DeviceArray, fixParameters, prepareLaunch, prioritizeLoops, splitIname, type LoopKernel } from '@loom/core';
import { plainMatmul } from '../../examples/matmul.ts';
import type { BenchDevice } from './devices.ts';
import { kernelSeconds, type TimingOptions } from './timing.ts';

/** a, b (and c, written) of order n on one device, with the host copies of a and b for checking. */
export interface MatmulData {
  readonly n: number;
  readonly hostA: Float32Array;
  readonly hostB: Float32Array;
  readonly a: DeviceArray;
  readonly b: DeviceArray;
  readonly c: DeviceArray;
  release(): void;
}

export async function matmulData(d: BenchDevice, n: number): Promise<MatmulData> {
  const hostA = uniform(n * n, 1);
  const hostB = uniform(n * n, 2);
  const a = await DeviceArray.from(d.device, hostA, 'float32', [n, n]);
  const b = await DeviceArray.from(d.device, hostB, 'float32', [n, n]);
  const c = await DeviceArray.from(d.device, new Float32Array(n * n), 'float32', [n, n]);
  return { n, hostA, hostB, a, b, c, release: () => [a, b, c].forEach((x) => x.release()) };
}

/** Numbers in [-1, 1) from a small linear congruential generator: the same on every run. */
function uniform(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let state = seed * 2654435761;
  for (let k = 0; k < length; k++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[k] = state / 2 ** 31 - 1;
  }
  return out;
}

export const flops = (n: number): number => 2 * n ** 3;

/** Seconds per launch of `knl` on `data`, after checking its result; throws when it is wrong. */
export async function timeMatmul(d: BenchDevice, knl: LoopKernel, data: MatmulData, timing: TimingOptions): Promise<number> {
  const prepared = await prepareLaunch(knl, d.device, { a: data.a, b: data.b, c: data.c });
  try {
    await d.device.write(data.c.buffer, new Float32Array(data.n * data.n));
    const seconds = await kernelSeconds(d, prepared, timing);
    await checkMatmul(data);
    return seconds;
  } finally {
    prepared.release();
  }
}

/**
 * Compares 64 entries of c (spread over the matrix, corners included) with float64 dot
 * products, within float32's error for sums of n terms.
 */
export async function checkMatmul(data: MatmulData): Promise<void> {
  const { n, hostA, hostB } = data;
  const c = (await data.c.toHost()) as Float32Array;
  for (let s = 0; s < 64; s++) {
    const i = s === 0 ? 0 : s === 1 ? n - 1 : (s * 7919) % n;
    const j = s === 0 ? 0 : s === 1 ? n - 1 : (s * 104729 + 13) % n;
    let sum = 0;
    let magnitude = 0;
    for (let k = 0; k < n; k++) {
      const term = hostA[i * n + k] * hostB[k * n + j];
      sum += term;
      magnitude += Math.abs(term);
    }
    if (!(Math.abs(c[i * n + j] - sum) <= 1e-5 * magnitude * Math.sqrt(n) + 1e-6)) {
      throw new Error(`c[${i}, ${j}] is ${c[i * n + j]}, expected ${sum}`);
    }
  }
}

/** loopy's tutorial matmul (examples/transformations.ts): 16x16 tiles in local memory, one result per work-item, n fixed. */
export function classicMatmul(n: number): LoopKernel {
  let mm = fixParameters(plainMatmul(), { n });
  mm = splitIname(mm, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
  mm = splitIname(mm, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  mm = splitIname(mm, 'k', 16);
  mm = addPrefetch(mm, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
  mm = addPrefetch(mm, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
  return prioritizeLoops(mm, 'k_outer,k_inner');
}
