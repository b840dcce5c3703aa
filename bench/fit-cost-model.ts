/**
 * The auto-scheduler's cost model against candidates measured on a device, offline: each row of a
 * bench/auto-schedule.ts JSON result that kept its candidates (script, predicted, measured) is
 * rebuilt here from its script, predicted again by the model as it is now, and ranked against the
 * recorded measurements (Kendall's tau, and how far the model's pick is from the fastest). A change
 * to the model is tried against real measurements without the GPU they came from.
 *
 *   node --import tsx bench/fit-cost-model.ts --results=bench/results/auto-schedule-h200-2026-12-03-eleventh-candidates.jsonl \
 *     [--bandwidth=4.25e12] [--flop-rate=6.25e13] [--launch=1.08e-5] [--parallelism=67584] [--compute-units=132]
 *     [--counts]   (and what the model counted for each candidate)
 *     [--tie-within=0.05]  (the summary's second tau-b counts measured times this close as tied)
 *     [--local-kib=48]  (the local memory a work-group may take: 227 KiB with --target=cuda; Dawn on the H200 granted
 *                        more than 48 to some WebGPU candidates: --local-kib=100 rebuilds them)
 *     [--target=cuda|wgsl]  (the candidates recorded on CUDA: asynchronous copies, which OpenCL C cannot
 *                            spell; or through WebGPU, whose target states what its compilers do)
 *
 * The profile defaults are the H200's through OpenCL as measureDeviceProfile measures it since the twelfth
 * session (a copy of four elements a work-item: 4.25 TB/s; the runs before recorded 2.73 with one).
 */
import { readFileSync } from 'node:fs';
import { COMMON_LIMITS, fixParameters, predictScheduleTime, type Device, type LoopKernel } from '@loom/core';
import { kernel } from '@loom/dsl';
import { openclTarget } from '@loom/codegen-opencl';
import { cudaTarget } from '@loom/codegen-cuda';
import { wgslTarget } from '@loom/codegen-wgsl';
import { AUTO_SCHEDULE_CASES, kendallTau, kendallTauB } from './auto-schedule-kernels.ts';
import { numberFlag, parseOptions } from './lib/cli.ts';

const options = parseOptions();
const file = options.flags.get('results');
if (!file) throw new Error('usage: bench/fit-cost-model.ts --results=RESULTS.jsonl');
const profile = {
  device: 'recorded device',
  bandwidth: numberFlag(options, 'bandwidth', 4.25e12),
  flopRate: numberFlag(options, 'flop-rate', 6.25e13),
  launchOverhead: numberFlag(options, 'launch', 1.08e-5),
};
// default: autoSchedule's, 512 work-items a compute unit
const parallelism = options.flags.has('parallelism') ? numberFlag(options, 'parallelism', 0) : undefined;
// the H200's multiprocessors (OpenCL's CL_DEVICE_MAX_COMPUTE_UNITS there); 0: not modelled
const computeUnits = numberFlag(options, 'compute-units', 132);
// the model reads the target (to build the program) and the limits (to refuse what cannot run)
// (CUDA carves up to 227 KiB of shared memory a block on the H200; OpenCL declares 48 KiB)
const targetName = options.flags.get('target') ?? 'opencl';
const onCuda = targetName === 'cuda';
const targets = { opencl: openclTarget, cuda: cudaTarget, wgsl: wgslTarget } as const;
if (!(targetName in targets)) throw new Error(`--target=${targetName}: one of ${Object.keys(targets).join(', ')}`);
const device = {
  name: 'recorded device',
  target: targets[targetName as keyof typeof targets](),
  limits: { ...COMMON_LIMITS, maxLocalMemoryBytes: numberFlag(options, 'local-kib', onCuda ? 227 : 48) * 1024 },
} as unknown as Device;

/** Per kernel, the recorded model's and the model's now: tau-b and the pick's distance from the fastest. */
const summary: { kernel: string; recorded: [number, number, number]; now: [number, number, number] }[] = [];
/** Measured times closer than this fraction count as tied in the second tau-b (a run's noise can swap them). */
const TIE_WITHIN = numberFlag(options, 'tie-within', 0.05);

interface Candidate {
  readonly script: string;
  readonly predicted?: number;
  readonly measured?: number | null;
}

for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const row = JSON.parse(line) as {
    kernel?: string;
    sizes?: Record<string, number>;
    candidates?: Candidate[];
    spread?: Candidate[];
  };
  if (!row.candidates || !row.kernel || !row.sizes) continue;
  const c = AUTO_SCHEDULE_CASES.find((x) => x.name === row.kernel);
  if (!c) continue;
  const sizes = row.sizes;
  // the search's candidates and, with --spread, those measured at spaced ranks of the model's
  const measured = [...row.candidates, ...(row.spread ?? [])].filter(
    (x) => typeof x.measured === 'number' && x.script !== '',
  );
  const rebuilt = (script: string): LoopKernel => {
    const base = kernel('{ [i]: 0 <= i < 1 }', 'x[i] = 0').apply(() => fixParameters(c.kernel, sizes));
    return (new Function('k', `return k${script}`)(base) as { kernel: LoopKernel }).kernel;
  };
  const costs = measured.map((x) =>
    predictScheduleTime(rebuilt(x.script), device, profile, sizes, {
      ...(parallelism ? { parallelism } : {}),
      ...(computeUnits ? { computeUnits } : {}),
    }),
  );
  const now = costs.map((c) => c.seconds);
  const times = measured.map((x) => x.measured!);
  const recorded = measured.map((x) => x.predicted ?? Number.NaN);
  const pickOf = (predictions: readonly number[]) =>
    times[predictions.indexOf(Math.min(...predictions))]! / Math.min(...times);
  console.log(`${row.kernel}: ${measured.length} candidates measured`);
  console.log(
    `  recorded model: tau ${kendallTau(recorded, times).toFixed(2)}, tau-b ${kendallTauB(recorded, times).toFixed(2)}, pick within ${pickOf(recorded).toFixed(2)}x`,
  );
  console.log(
    `  model now:      tau ${kendallTau(now, times).toFixed(2)}, tau-b ${kendallTauB(now, times).toFixed(2)}, pick within ${pickOf(now).toFixed(2)}x`,
  );
  summary.push({
    kernel: row.kernel,
    recorded: [kendallTauB(recorded, times), pickOf(recorded), kendallTauB(recorded, times, TIE_WITHIN)],
    now: [kendallTauB(now, times), pickOf(now), kendallTauB(now, times, TIE_WITHIN)],
  });
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)}`;
  measured.forEach((x, k) => {
    const c = costs[k]!;
    // with --counts, what the model counted (MB of memory, L1, stores, local; barriers a work-item)
    const counts = options.flags.has('counts')
      ? ` [global ${mb(c.globalBytes)} l1 ${mb(c.l1Bytes)} stores ${mb(c.storeBytes)} local ${mb(c.localBytes)} barriers ${c.barriers}]`
      : '';
    console.log(
      `    measured ${(times[k]! * 1e6).toFixed(1)} us, now ${(now[k]! * 1e6).toFixed(1)} us${counts}: ${x.script.replace(/\n/g, ' ')}`,
    );
  });
}

// over every kernel: the mean tau-b, and how many picks are within issue 31's 1.3x of the fastest
const over = (which: 'recorded' | 'now') => {
  const mean = (k: 0 | 2) => {
    const taus = summary.map((r) => r[which][k]).filter((t) => Number.isFinite(t));
    return taus.reduce((a, b) => a + b, 0) / Math.max(1, taus.length);
  };
  const close = summary.filter((r) => r[which][1] <= 1.3).length;
  return `mean tau-b ${mean(0).toFixed(2)} (${mean(2).toFixed(2)} with times within ${100 * TIE_WITHIN}% tied), pick within 1.3x for ${close} of ${summary.length}`;
};
console.log(`\nrecorded model: ${over('recorded')}\nmodel now:      ${over('now')}`);
