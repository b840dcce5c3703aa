/**
 * The SGEMM autotuner of the benchmarks: the library's `autotune` on examples/matmul.ts's
 * tuning problem, timed the way the benchmarks time kernels (OpenCL event profiling, batched
 * WebGPU dispatches: lib/timing.ts) rather than by the library's default wall time.
 */
import { autotune as searchConfigurations, targetFacts, type Trial } from '@loom/core';
import {
  matmulSearchSpace,
  matmulTuning,
  workGroupOf,
  type MatmulConfig,
  type MatmulShape,
} from '../../examples/matmul.ts';
import type { BenchDevice } from './devices.ts';
import { flops } from './matmul-run.ts';
import { kernelSeconds } from './timing.ts';

export type { Trial };

export interface TuneResult {
  readonly best: MatmulConfig;
  readonly seconds: number;
  readonly tflops: number;
  readonly trials: readonly Trial<MatmulConfig>[];
}

/** A configuration in a few characters: 128x128x16 r8x8 strided unr. */
export function describeConfig(c: MatmulConfig): string {
  const { along0, along1 } = workGroupOf(c);
  return `${c.tileM}x${c.tileN}x${c.tileK} r${c.regM}x${c.regN} ${c.layout}${c.unrollK ? ' unr' : ''}${c.vectorWidth === 4 ? (c.vectorReads ? (c.aVectorReads ? ' float4 rw, a4' : c.aTransposedVectors ? ' float4 rw, aT4' : ' float4 rw') : ' float4 loads') : ''}${c.pipelined ? ' pipelined' : ''}${c.doubleBuffered ? ' double-buffered' : ''}${c.asyncCopies ? ' async' : ''}${c.groupsPerComputeUnit ? ` ${c.groupsPerComputeUnit} groups/unit` : ''}${c.subgroupShape ? ` subgroups ${c.subgroupShape.rows}x${c.subgroupShape.columns}` : ''}${c.prefetch ? '' : ' no-local'} (${along0 * along1} items)`;
}

/** The search space for `d`: with the asynchronously filled panels early where its target copies asynchronously. */
export function deviceSearchSpace(d: BenchDevice): MatmulConfig[] {
  return matmulSearchSpace({ asyncCopies: targetFacts(d.device.target).asyncCopies });
}

/**
 * The best configuration at order n, or for a shape, among `space` (default: the whole search
 * space); a LoomError when none ran (it lists why).
 */
export async function autotune(
  d: BenchDevice,
  n: number | MatmulShape,
  budgetSeconds: number,
  onTrial: (t: Trial<MatmulConfig>) => void = () => {},
  space: readonly MatmulConfig[] = deviceSearchSpace(d),
): Promise<TuneResult> {
  const result = await searchConfigurations(matmulTuning(n, space), d.device, {
    budgetSeconds,
    fresh: true,
    time: (prepared) => kernelSeconds(d, prepared, { samples: 3, maxSeconds: 1 }),
    onProgress: (p) => onTrial(p.trial),
  });
  return {
    best: result.best,
    seconds: result.seconds,
    tflops: flops(n) / result.seconds / 1e12,
    trials: result.trials,
  };
}
