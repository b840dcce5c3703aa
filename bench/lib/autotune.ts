/**
 * The SGEMM autotuner: tries configurations of `matmulKernel` (examples/matmul.ts) on the
 * device at hand, most promising first, within a time budget, and keeps the fastest one
 * whose result is right.
 *
 * The search space is small on purpose (a few dozen kernels): work-group tiles of 64 or 128,
 * register tiles of 4 or 8 (the ILP factors), 16 or 32 steps of k staged in local memory, the
 * register tile strided or blocked, the staged loop unrolled or not, and one kernel without
 * local memory to show what staging buys. A configuration that the device refuses (too much
 * local memory, a work-group too large) is skipped with its reason.
 */
import { configProblem, matmulKernel, workGroupOf, type MatmulConfig } from '../../examples/matmul.ts';
import type { BenchDevice } from './devices.ts';
import { flops, timeMatmul, type MatmulData } from './matmul-run.ts';

export interface Trial {
  readonly config: MatmulConfig;
  /** Seconds per launch, or the reason it was not measured. */
  readonly seconds?: number;
  readonly failure?: string;
}

export interface TuneResult {
  readonly best: MatmulConfig;
  readonly seconds: number;
  readonly tflops: number;
  readonly trials: readonly Trial[];
}

/** Every configuration the tuner considers, most promising first. */
export function searchSpace(): MatmulConfig[] {
  const tiles = [
    { tileM: 128, tileN: 128, regM: 8, regN: 8 },
    { tileM: 128, tileN: 64, regM: 8, regN: 4 },
    { tileM: 64, tileN: 128, regM: 4, regN: 8 },
    { tileM: 64, tileN: 64, regM: 4, regN: 4 },
    { tileM: 64, tileN: 64, regM: 8, regN: 8 },
  ];
  const configs: MatmulConfig[] = [];
  // rolled loops first: GPU compilers unroll a constant 16-step loop themselves, and Loom generates them faster
  for (const unrollK of [false, true]) {
    for (const tile of tiles) {
      for (const tileK of [16, 32]) {
        for (const layout of ['strided', 'blocked'] as const) {
          const config: MatmulConfig = { ...tile, tileK, layout, prefetch: true, unrollK };
          if (!configProblem(config)) configs.push(config);
        }
      }
    }
  }
  configs.push({ tileM: 64, tileN: 64, tileK: 16, regM: 4, regN: 4, layout: 'strided', prefetch: false, unrollK: true });
  return configs;
}

/** A configuration in a few characters: 128x128x16 r8x8 strided unr. */
export function describeConfig(c: MatmulConfig): string {
  const { along0, along1 } = workGroupOf(c);
  return `${c.tileM}x${c.tileN}x${c.tileK} r${c.regM}x${c.regN} ${c.layout}${c.unrollK ? ' unr' : ''}${c.prefetch ? '' : ' no-local'} (${along0 * along1} items)`;
}

export async function autotune(d: BenchDevice, data: MatmulData, budgetSeconds: number, onTrial: (t: Trial) => void = () => {}): Promise<TuneResult | undefined> {
  const deadline = performance.now() + budgetSeconds * 1000;
  const trials: Trial[] = [];
  for (const config of searchSpace()) {
    if (performance.now() > deadline) break;
    let trial: Trial;
    try {
      const seconds = await timeMatmul(d, matmulKernel(config, data.n), data, { samples: 3, maxSeconds: 1 });
      trial = { config, seconds };
    } catch (e) {
      trial = { config, failure: (e as Error).message.split('\n')[0].slice(0, 200) };
    }
    trials.push(trial);
    onTrial(trial);
  }
  const measured = trials.filter((t) => t.seconds !== undefined);
  if (measured.length === 0) return undefined;
  const best = measured.reduce((x, y) => (y.seconds! < x.seconds! ? y : x));
  return { best: best.config, seconds: best.seconds!, tflops: flops(data.n) / best.seconds! / 1e12, trials };
}
