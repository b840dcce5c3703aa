/**
 * Auto-scheduling (issue 31): each kernel of bench/auto-schedule-kernels.ts as written, then
 * `autoSchedule`d on the device, against the best hand-transformed Loom kernel of the repository
 * where one exists. Per kernel and device: milliseconds untransformed, auto-scheduled and by hand,
 * the ratios, the seconds the search took, and Kendall's tau between the cost model's predictions
 * and the measured times of the candidates it measured (the issue asks for τ ≥ 0.7).
 *
 *   node --import tsx bench/auto-schedule.ts [--full] [--json] [--backends=opencl,webgpu,cuda,cpu,c]
 *        [--budget=SECONDS] [--measure=N] [--candidates=N] [--only=NAME,NAME] [--skip-untransformed]
 *        [--parallelism=WORK_ITEMS] [--fix-sizes] [--spread=N]
 *
 * `--spread=N` also measures N candidates at evenly spaced places of the model's ranking (those it
 * predicts within 20x of its best), unchecked, and reports tau over them (`tauSpread`): the search
 * measures the model's best few, which mostly differ by a few per cent; this asks how the model
 * ranks the space. `tauAll` is over both together: the model's best few and the spread, the whole range
 * of its ranking with the top sampled densely.
 *
 * Small sizes by default (seconds on a CPU); `--full` for the GPU machine. Every auto-scheduled
 * kernel is checked by autoSchedule itself (against the kernel as written on the CPU device at
 * small sizes, then on the device at the benchmark's sizes).
 */
import { applySchedule, autoSchedule, measureDeviceProfile, measureKernelSeconds, type Device } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { AUTO_SCHEDULE_CASES, kendallTau, kendallTauB } from './auto-schedule-kernels.ts';
import { numberFlag, parseOptions } from './lib/cli.ts';
import { openDevices } from './lib/devices.ts';
import { progress } from './lib/records.ts';

const options = parseOptions();
const budget = numberFlag(options, 'budget', options.full ? 60 : 10);
const measure = numberFlag(options, 'measure', 6);
const candidates = numberFlag(options, 'candidates', options.full ? 96 : 24);
const only = options.flags.get('only');
// work-items the device runs at once, for the cost model; default: autoSchedule's, 512 a compute unit
const parallelism = options.flags.has('parallelism') ? numberFlag(options, 'parallelism', 0) : undefined;
const skipUntransformed = options.flags.has('skip-untransformed');
// each kernel specialised to its sizes (autoSchedule's fixSizes), as the fixed-size hand kernels are
const fixSizes = options.flags.has('fix-sizes');
// candidates measured besides the search's, spread over the model's ranking: tau over the space, not its top
const spread = numberFlag(options, 'spread', 0);
/** Candidates the model has slower than this many times its best are left out of the spread (they take long to time). */
const SPREAD_WITHIN = 20;
// the reference each candidate is checked on first (autoSchedule raises its limits to the device's)
const check = cpuDevice();

interface Row {
  readonly kernel: string;
  readonly device: string;
  readonly sizes: Readonly<Record<string, number>>;
  readonly untransformedMs: number | null;
  readonly autoMs: number;
  readonly handMs: number | null;
  readonly hand: string | null;
  readonly autoOverHand: number | null;
  readonly speedup: number | null;
  readonly tau: number | null;
  /** Kendall's tau-b: ties in the model's times not counted against it. */
  readonly tauB: number | null;
  readonly pickedWithin: number | null;
  readonly tuningSeconds: number;
  /** Seconds from the search's start to the end of each phase: ranking, checks, measurements. */
  readonly phaseEnds: Readonly<Record<string, number>>;
  readonly script: string;
  /**
   * Each measured candidate: its script, the model's counts and seconds, and the measured seconds
   * (or why it did not run): what a correction of the model is fitted to.
   */
  /** With --spread: candidates at evenly spaced ranks of the model's, measured, and tau over them. */
  readonly spread?: readonly {
    readonly script: string;
    readonly predicted: number;
    readonly measured: number | null;
  }[];
  readonly tauSpread?: number | null;
  readonly tauSpreadB?: number | null;
  /** With --spread: tau over the search's measured candidates and the spread's together. */
  readonly tauAll?: number | null;
  readonly tauAllB?: number | null;
  readonly candidates: readonly {
    readonly script: string;
    readonly predicted: number | null;
    readonly cost: unknown;
    readonly measured: number | null;
    readonly failure?: string;
  }[];
}

const rows: Row[] = [];
for (const { device } of await openDevices(options.backends)) {
  const profile = await measureDeviceProfile(device, options.full ? {} : { maxBytes: 16 << 20 });
  progress(`${device.name}: ${JSON.stringify(profile)}`);
  for (const c of AUTO_SCHEDULE_CASES) {
    if (only && !only.split(',').includes(c.name)) continue;
    const sizes = options.full ? c.full : c.small;
    rows.push(await benchOne(device, c, sizes, profile));
    const row = rows.at(-1)!;
    if (options.json) console.log(JSON.stringify({ bench: 'auto-schedule', ...row }));
    progress(`${row.kernel} on ${row.device}: ${format(row)}`);
  }
}
printTable(rows);

async function benchOne(
  device: Device,
  c: (typeof AUTO_SCHEDULE_CASES)[number],
  sizes: Readonly<Record<string, number>>,
  profile: Awaited<ReturnType<typeof measureDeviceProfile>>,
): Promise<Row> {
  const started = performance.now();
  // seconds since the start when each phase (rank, check, measure) last reported: where the time went
  const phaseEnds: Record<string, number> = {};
  const result = await autoSchedule(c.kernel, device, {
    sizes,
    budget,
    measure,
    profile,
    ...(parallelism ? { parallelism } : {}),
    checkDevice: check,
    fixSizes,
    space: { candidates },
    onProgress: (p) => {
      phaseEnds[p.phase] = p.elapsedSeconds;
      if (p.done === p.total) progress(`  ${c.name}: ${p.phase} ${p.done}/${p.total}`);
    },
  });
  const tuningSeconds = (performance.now() - started) / 1000;
  const autoSeconds = await measureKernelSeconds(result.kernel, device, sizes);
  const untransformed = skipUntransformed ? null : await measureKernelSeconds(c.kernel, device, sizes);
  const hand = c.hand?.(sizes);
  const handSeconds = hand ? await measureKernelSeconds(hand.kernel, device, sizes) : null;
  const measuredCandidates = result.measured.map((m) => {
    const p = result.predicted.find((q) => q.script === m.script);
    return {
      script: m.script,
      predicted: p?.seconds ?? null,
      cost: p?.cost ?? null,
      measured: m.seconds ?? null,
      ...(m.failure ? { failure: m.failure } : {}),
    };
  });
  // the model against the measurements, over the candidates that ran
  const pairs = result.measured.flatMap((m) => {
    const p = result.predicted.find((q) => q.script === m.script);
    return m.seconds !== undefined && p ? [[p.seconds, m.seconds] as const] : [];
  });
  const tau =
    pairs.length >= 2
      ? kendallTau(
          pairs.map((p) => p[0]),
          pairs.map((p) => p[1]),
        )
      : null;
  const tauB =
    pairs.length >= 2
      ? kendallTauB(
          pairs.map((p) => p[0]),
          pairs.map((p) => p[1]),
        )
      : null;
  // the model against a spread of the space it ranked
  const sampled = spreadSample(result.predicted, new Set(result.measured.map((m) => m.script)));
  const spreadCandidates: { script: string; predicted: number; measured: number | null; failure?: string }[] = [];
  for (const p of sampled) {
    try {
      // the ranked candidates' steps follow the search's specialisation to the sizes, where it made one
      const steps = fixSizes ? [{ kind: 'fix' as const, values: sizes }, ...p.steps] : p.steps;
      const seconds = await measureKernelSeconds(applySchedule(c.kernel, steps), device, sizes);
      spreadCandidates.push({ script: p.script, predicted: p.seconds, measured: seconds });
    } catch (e) {
      spreadCandidates.push({
        script: p.script,
        predicted: p.seconds,
        measured: null,
        failure: String(e).slice(0, 300),
      });
    }
  }
  const spreadPairs = spreadCandidates.flatMap((s) =>
    s.measured === null ? [] : [[s.predicted, s.measured] as const],
  );
  const tauOf = (f: typeof kendallTau, ps: readonly (readonly [number, number])[]) =>
    ps.length >= 2
      ? f(
          ps.map((p) => p[0]),
          ps.map((p) => p[1]),
        )
      : null;
  // the model's own pick (the first it ranked that ran) against the best measured
  const measuredBest = Math.min(...pairs.map((p) => p[1]));
  const modelPick = pairs.length ? [...pairs].sort((a, b) => a[0] - b[0])[0]![1] : null;
  return {
    kernel: c.name,
    device: device.name,
    sizes,
    untransformedMs: untransformed === null ? null : untransformed * 1e3,
    autoMs: autoSeconds * 1e3,
    handMs: handSeconds === null ? null : handSeconds * 1e3,
    hand: hand?.from ?? null,
    autoOverHand: handSeconds === null ? null : autoSeconds / handSeconds,
    speedup: untransformed === null ? null : untransformed / autoSeconds,
    tau,
    tauB,
    pickedWithin: modelPick === null ? null : modelPick / measuredBest,
    tuningSeconds,
    phaseEnds,
    candidates: measuredCandidates,
    ...(spread
      ? {
          spread: spreadCandidates,
          tauSpread: tauOf(kendallTau, spreadPairs),
          tauSpreadB: tauOf(kendallTauB, spreadPairs),
          tauAll: tauOf(kendallTau, [...pairs, ...spreadPairs]),
          tauAllB: tauOf(kendallTauB, [...pairs, ...spreadPairs]),
        }
      : {}),
    script: result.script,
  };
}

/** `spread` of the ranked candidates at evenly spaced ranks, among those predicted within SPREAD_WITHIN of the best, not measured already. */
function spreadSample<T extends { readonly script: string; readonly seconds: number }>(
  ranked: readonly T[],
  measured: ReadonlySet<string>,
): T[] {
  if (!spread || ranked.length === 0) return [];
  const best = ranked[0]!.seconds;
  const pool = ranked.filter((p) => p.seconds <= SPREAD_WITHIN * best && !measured.has(p.script));
  if (pool.length <= spread) return pool;
  return Array.from({ length: spread }, (_, k) => pool[Math.round((k * (pool.length - 1)) / (spread - 1))]!);
}

function format(row: Row): string {
  const ms = (x: number | null) => (x === null ? '-' : x.toPrecision(3));
  const ratio = (x: number | null) => (x === null ? '-' : x.toFixed(2));
  return [
    `untransformed ${ms(row.untransformedMs)} ms`,
    `auto ${ms(row.autoMs)} ms`,
    `hand ${ms(row.handMs)} ms`,
    `auto/hand ${ratio(row.autoOverHand)}`,
    `speed-up ${ratio(row.speedup)}x`,
    `tau ${ratio(row.tau)} (tau-b ${ratio(row.tauB)})`,
    ...(row.spread
      ? [
          `tau over ${row.spread.length} spread ${ratio(row.tauSpread ?? null)}`,
          `tau over all measured ${ratio(row.tauAll ?? null)} (tau-b ${ratio(row.tauAllB ?? null)})`,
        ]
      : []),
    `model's pick ${ratio(row.pickedWithin)}x the best`,
    `tuned in ${row.tuningSeconds.toFixed(1)} s (${Object.entries(row.phaseEnds)
      .map(([phase, at]) => `${phase} until ${at.toFixed(1)} s`)
      .join(', ')})`,
  ].join(', ');
}

function printTable(all: readonly Row[]): void {
  const lines = all.map((r) => `${r.kernel.padEnd(18)} ${r.device.slice(0, 28).padEnd(28)} ${format(r)}`);
  const ratios = all.flatMap((r) => (r.autoOverHand === null ? [] : [Math.log(r.autoOverHand)]));
  const geo = ratios.length ? Math.exp(ratios.reduce((a, b) => a + b, 0) / ratios.length).toFixed(2) : '-';
  process.stderr.write(
    `\nauto-scheduling (${options.full ? 'full' : 'small'} sizes, budget ${budget} s)\n${lines.join('\n')}\n` +
      `geometric mean of auto / hand: ${geo}\n\nscripts:\n${all.map((r) => `${r.kernel}: ${r.script.replace(/\n/g, ' ') || '(none)'}`).join('\n')}\n`,
  );
}
