/**
 * `autoSchedule(knl, device, options)`: the search. Every candidate of the space (space.ts) is
 * built with the transformations a user calls (steps.ts); one Loom refuses or the device
 * cannot take (code generation fails, work-group or memory past `device.limits`) is pruned
 * with its reason and never runs. The cost model (cost-model.ts) ranks the rest, and a climb
 * from the best-ranked ranks their neighbours (rank.ts). The best few are checked against the
 * unscheduled kernel at small sizes on the check device, then measured on the device at the
 * tuning sizes through `autotune` (its budget, cache and result checks, here against the
 * unscheduled kernel's outputs on the device, or the best checked candidate's where the kernel
 * as written is hopelessly slow). The model is corrected by one scale per kernel, fitted to
 * what was measured (geometric mean of measured / predicted): enough to report predictions in
 * seconds, not a learned model.
 */
import { hostArrayConstructor, isFloat, type HostArray } from '../../dtypes.ts';
import { InternalError, LoomError } from '../../errors.ts';
import type { LoopKernel } from '../../kernel/model.ts';
import { checkOptionKeys, optionKeys } from '../../option-keys.ts';
import { autoTestVsRef } from '../../runtime/auto-test.ts';
import { DeviceArray, type Device } from '../../runtime/device.ts';
import type { DeviceLimits } from '../../runtime/limits.ts';
import { targetFacts } from '../../codegen/target-facts.ts';
import { run } from '../../runtime/run.ts';
import { measureDeviceProfile, measuredArrays } from '../../statistics/profile.ts';
import type { DeviceProfile } from '../../statistics/roofline.ts';
import { autotune, defineTuning, type TuningArguments, type TuningCache } from '../autotune.ts';
import { deviceShape } from './cost-model.ts';
import { rankCandidates, type PredictedCandidate } from './rank.ts';
import type { SpaceRestrictions } from './space.ts';
import { applySchedule, scheduleScript, type ScheduleStep } from './steps.ts';

const AUTO_SCHEDULE_OPTIONS = optionKeys<AutoScheduleOptions>()([
  'budget',
  'cache',
  'checkDevice',
  'checkSizes',
  'computeUnits',
  'fixSizes',
  'fresh',
  'measure',
  'onProgress',
  'parallelism',
  'profile',
  'seed',
  'sizes',
  'space',
]);

/** Options of `autoSchedule`. */
export interface AutoScheduleOptions {
  /**
   * The search's seconds (default 60): candidates are measured until they are spent (at least one). The
   * ranking and the checks, which come first, are not cut short by it, so a seed always ranks the same candidates.
   */
  readonly budget?: number;
  /** Told as the search goes: ranking by the model, checking, measuring. */
  readonly onProgress?: (progress: AutoScheduleProgress) => void;
  /** Picks the sample of the space the model ranks (default 1): the same seed, the same candidates and ranking. */
  readonly seed?: number;
  /** Where the measured best is kept between runs, per kernel and device (as `autotune`'s). */
  readonly cache?: TuningCache;
  /** Measure even when the cache has a result. */
  readonly fresh?: boolean;
  /** The kernel's parameters at which to tune, by name. */
  readonly sizes?: Readonly<Record<string, number>>;
  /**
   * Specialise the kernel to `sizes` (`fixParameters`: the parameters become constants), as BLAS
   * libraries pick a kernel per shape: the splits need no guard where the sizes are multiples of
   * their tiles, and the result runs at those sizes only. The script then starts with `.fix({...})`.
   * The candidates are still checked against the kernel as written at `checkSizes`, unspecialised;
   * one that applies only to the specialised kernel (rows held in registers) is checked specialised
   * at sizes that keep the sizes' factors of two (`compatibleCheckSizes`).
   */
  readonly fixSizes?: boolean;
  /** Restrictions of the space: `{ localMemory: false, maxGroup: 256 }`. */
  readonly space?: SpaceRestrictions;
  /**
   * How many of the best-ranked candidates to check and measure (default 4); the kernel as written
   * is measured after them, unless the model has it over a thousand times slower than the best.
   */
  readonly measure?: number;
  /** The device every measured candidate is first checked on, against the unscheduled kernel (default: `device`). */
  readonly checkDevice?: Device;
  /** The parameters of that check (default: `sizes`, each at most 40). */
  readonly checkSizes?: Readonly<Record<string, number>>;
  /** The device's profile (default: `measureDeviceProfile(device)`, measured once per device). */
  readonly profile?: DeviceProfile;
  /**
   * Work-items the device runs at once: a launch of fewer is slowed in proportion (default 512 a
   * compute unit where the device reports its units, else 16384).
   */
  readonly parallelism?: number;
  /**
   * Compute units running work-groups side by side (default: the device's limits, where its API
   * reports them): a launch of fewer work-groups leaves units idle.
   */
  readonly computeUnits?: number;
}

/** What `onProgress` is told. */
export interface AutoScheduleProgress {
  /** `rank`: building candidates and predicting their times; `check`: against the unscheduled kernel; `measure`: on the device. */
  readonly phase: 'rank' | 'check' | 'measure';
  /** Steps of this phase done, of `total`. */
  readonly done: number;
  readonly total: number;
  /** The candidate just handled. */
  readonly label: string;
  /** The best measured seconds so far (measure phase). */
  readonly bestSeconds?: number;
  /** Seconds since the search began. */
  readonly elapsedSeconds: number;
  /** The measuring budget, in seconds. */
  readonly budgetSeconds: number;
}

/** A candidate checked and measured: its seconds, or why it did not run or was wrong. */
export interface MeasuredCandidate {
  readonly steps: readonly ScheduleStep[];
  readonly script: string;
  readonly seconds?: number;
  readonly failure?: string;
}

/** What `autoSchedule` found. */
export interface AutoScheduleResult {
  /** The fastest measured candidate's kernel. */
  readonly kernel: LoopKernel;
  /** Its transformations as `@loom/dsl` builder code, to paste after the kernel (empty: leave it as it is). */
  readonly script: string;
  /** The same transformations as data (`applySchedule(knl, steps)`). */
  readonly steps: readonly ScheduleStep[];
  /** The candidates the model ranked, fastest first. */
  readonly predicted: readonly PredictedCandidate[];
  /** The candidates checked and measured, in the order they were measured (one, from the cache). */
  readonly measured: readonly MeasuredCandidate[];
  /** Candidates pruned before anything ran, with the reason (Loom refused them, or the device's limits did). */
  readonly pruned: readonly { readonly script: string; readonly reason: string }[];
  /** measured / predicted seconds, fitted over the measured candidates: multiply a prediction by it for seconds on the device. */
  readonly scale: number;
  /** Whether the best came from the cache. */
  readonly fromCache: boolean;
}

/**
 * Searches transformations of an untransformed kernel for the fastest on `device`: candidates
 * built by Loom's own transformations, ranked by a cost model on exact counts and the device's
 * profile, the best few checked against the kernel as written and measured. Resolves to the best
 * kernel and the builder code that reproduces it.
 * ```ts
 * const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), { a: 'float32' });
 * const { kernel, script } = await autoSchedule(knl, device, { sizes: { n: 1 << 20 }, budget: 10 });
 * console.log(script); // .split('i', 256, { outer: 'g.0', inner: 'l.0' })
 * ```
 */
export async function autoSchedule(
  knl: LoopKernel,
  device: Device,
  options: AutoScheduleOptions = {},
): Promise<AutoScheduleResult> {
  checkOptionKeys('autoSchedule', options, AUTO_SCHEDULE_OPTIONS);
  const { budget = 60, onProgress, seed = 1, cache, fresh, sizes = {}, space = {}, measure = 4 } = options;
  if (!(budget > 0)) throw new LoomError(`autoSchedule: budget must be a positive number of seconds, not ${budget}`);
  if (!(Number.isInteger(measure) && measure >= 1))
    throw new LoomError(`autoSchedule: measure must be a positive integer, not ${measure}`);
  if (options.fixSizes && Object.keys(sizes).length === 0)
    throw new LoomError('autoSchedule: fixSizes specialises the kernel to `sizes`, and none are given');
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const report = (p: Omit<AutoScheduleProgress, 'elapsedSeconds' | 'budgetSeconds'>) =>
    onProgress?.({ ...p, elapsedSeconds: elapsed(), budgetSeconds: budget });

  const profile = options.profile ?? (await measureDeviceProfile(device));
  const maxGroup = Math.min(space.maxGroup ?? 1024, device.limits.maxWorkGroupSize);
  // what is ranked and measured: the kernel as written, or specialised to the sizes (checked unspecialised)
  const fixed: readonly ScheduleStep[] = options.fixSizes ? [{ kind: 'fix', values: sizes }] : [];
  const base = applySchedule(knl, fixed);
  const { predicted, pruned } = rankCandidates(base, device, {
    profile,
    sizes,
    shape: deviceShape(device, options),
    restrictions: { ...space, maxGroup, asyncCopies: space.asyncCopies ?? issuesAsyncCopies(device) },
    seed,
    report,
  });
  if (predicted.length === 0)
    throw new LoomError(`autoSchedule '${knl.name}': no candidate could be built (${pruned[0]?.reason ?? 'none'})`);

  const checkDevice = referenceFor(options.checkDevice ?? device, device);
  const checkSizes =
    options.checkSizes ?? Object.fromEntries(Object.entries(sizes).map(([name, v]) => [name, Math.min(v, 40)]));
  const measured: MeasuredCandidate[] = [];
  const chosen: PredictedCandidate[] = [];
  for (const p of predicted) {
    if (chosen.length === measure) break;
    try {
      await checkCandidate(knl, p.steps, checkDevice, checkSizes, options.fixSizes ? sizes : undefined);
      chosen.push(p);
    } catch (e) {
      if (!(e instanceof LoomError) || e instanceof InternalError) throw e;
      measured.push({ steps: p.steps, script: p.script, failure: `check on ${checkDevice.name}: ${e.message}` });
    }
    report({ phase: 'check', done: chosen.length, total: measure, label: p.script || 'unscheduled' });
  }
  if (chosen.length === 0)
    throw new LoomError(`autoSchedule '${knl.name}': no candidate passed the check (${measured[0]?.failure})`);

  // The kernel as written is measured last, when the budget leaves time, so that a result is never
  // slower than it. Where the model has it far slower than the best (matmul of 1024 as written runs
  // on one work-item, 11 s a call on the H200; the 32 x 512³ contraction 39 s through WebGPU), it
  // is not measured at all, and the best checked candidate, which agreed with it at the check
  // sizes, computes the outputs the others must match, rather than one such call.
  const asWritten = predicted.find((p) => p.steps.length === 0);
  const hopeless = asWritten !== undefined && asWritten.seconds > HOPELESS * predicted[0]!.seconds;
  const measuredAsWritten = chosen.some((c) => c.steps.length === 0) || hopeless ? [] : [[]];
  const problem = defineTuning<readonly ScheduleStep[]>({
    name: `autoSchedule ${knl.name} ${fingerprint(base, sizes, space, seed)}`,
    space: [...chosen.map((c) => c.steps), ...measuredAsWritten],
    build: (steps) => applySchedule(base, steps),
    ...deviceCheck(base, hopeless ? applySchedule(base, chosen[0]!.steps) : base, sizes),
  });
  const tuned = await autotune(problem, device, {
    budgetSeconds: Math.max(0, budget - elapsed()),
    cache,
    fresh,
    onProgress: (p) =>
      report({
        phase: 'measure',
        done: p.done,
        total: p.total,
        label: scheduleScript(p.trial.config) || 'unscheduled',
        bestSeconds: p.best?.seconds,
      }),
  });
  const best = tuned.best;
  const scriptOf = (steps: readonly ScheduleStep[]) => scheduleScript(steps);
  if (tuned.fromCache) measured.push({ steps: best, script: scriptOf(best), seconds: tuned.seconds });
  for (const t of tuned.trials) measured.push({ steps: t.config, script: scriptOf(t.config), ...secondsOf(t) });
  return {
    kernel: applySchedule(base, best),
    script: scriptOf([...fixed, ...best]),
    steps: [...fixed, ...best],
    predicted,
    measured,
    pruned,
    scale: fittedScale(predicted, measured),
    fromCache: tuned.fromCache,
  };
}

/** How many times the best-ranked candidate's predicted time makes the kernel as written too slow to compute the reference outputs. */
const HOPELESS = 1000;

const secondsOf = (t: { seconds?: number; failure?: string }) =>
  t.seconds === undefined ? { failure: t.failure } : { seconds: t.seconds };

/** Geometric mean of measured / predicted over the candidates that ran (1 when none did). */
function fittedScale(predicted: readonly PredictedCandidate[], measured: readonly MeasuredCandidate[]): number {
  const ratios = measured.flatMap((m) => {
    const p = predicted.find((c) => c.script === m.script);
    return m.seconds !== undefined && p && p.seconds > 0 ? [Math.log(m.seconds / p.seconds)] : [];
  });
  return ratios.length === 0 ? 1 : Math.exp(ratios.reduce((a, b) => a + b, 0) / ratios.length);
}

/**
 * The arguments the measured candidates run on at the tuning sizes (floats in [0, 1), other
 * dtypes zero), and their check: every output as `reference` (the unscheduled kernel, or a
 * candidate checked against it) computes it on the same device.
 */
function deviceCheck(knl: LoopKernel, reference: LoopKernel, sizes: Readonly<Record<string, number>>) {
  let expected: Readonly<Record<string, HostArray>> = {};
  const outputs = knl.args.filter((a) => a.kind !== 'value' && a.isOutput).map((a) => a.name);
  return {
    async arguments(device: Device): Promise<TuningArguments> {
      let state = 12345;
      const host: Record<string, HostArray> = {};
      for (const { name, dtype, length } of measuredArrays(knl, sizes)) {
        const data = new (hostArrayConstructor(dtype))(length);
        if (isFloat(dtype))
          for (let k = 0; k < length; k++) {
            state = (state * 1103515245 + 12345) >>> 0;
            (data as Float32Array)[k] = state / 2 ** 32;
          }
        host[name] = data;
      }
      const values = Object.fromEntries(knl.valueArgs.map((a) => [a.name, sizes[a.name] ?? 0]));
      const copies = Object.fromEntries(Object.entries(host).map(([k, v]) => [k, v.slice()]));
      expected = (await run(reference, device, { ...copies, ...values })) as Record<string, HostArray>;
      const args: Record<string, DeviceArray | number> = { ...values };
      const shapes = new Map(measuredArrays(knl, sizes).map((a) => [a.name, a]));
      for (const [name, data] of Object.entries(host))
        args[name] = await DeviceArray.from(device, data, shapes.get(name)!.dtype, shapes.get(name)!.shape);
      return args;
    },
    async check(args: TuningArguments): Promise<string | undefined> {
      for (const name of outputs) {
        const want = expected[name];
        const got = await (args[name] as DeviceArray).toHost();
        if (!want) continue;
        // (a loop: spreading a million elements into Math.max overflows the stack)
        let scale = 1e-30;
        for (let k = 0; k < want.length; k++) scale = Math.max(scale, Math.abs(Number((want as ArrayLike<number>)[k])));
        for (let k = 0; k < want.length; k++) {
          const a = Number((want as ArrayLike<number>)[k]);
          const b = Number((got as ArrayLike<number>)[k]);
          if (!(Math.abs(a - b) <= 1e-4 * scale)) return `${name}[${k}] is ${b}, the reference's ${a}`;
        }
      }
      return undefined;
    },
  };
}

/** A short hash of what the search depends on: the kernel, the sizes, the space and the seed. */
function fingerprint(
  knl: LoopKernel,
  sizes: Readonly<Record<string, number>>,
  space: SpaceRestrictions,
  seed: number,
): string {
  const text = `${knl.toString()}|${JSON.stringify(Object.entries(sizes).sort())}|${JSON.stringify(space)}|${seed}`;
  let h = 0x811c9dc5;
  for (let k = 0; k < text.length; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * Checks a candidate's steps against the kernel as written, at `checkSizes`. A candidate built on
 * the kernel specialised to `fixedAt` (fixSizes) may rely on those sizes: rows held in registers
 * make the passes over a row one iname (`renameInames`), which needs the row's length a multiple of
 * the group's width, and refuses a length known only at launch. Where the steps do not apply to
 * the kernel as written, both are specialised to sizes that keep what the candidate may rely on,
 * each size's power-of-two factors up to 256 (`compatibleCheckSizes`), and compared there.
 */
async function checkCandidate(
  knl: LoopKernel,
  steps: readonly ScheduleStep[],
  device: Device,
  checkSizes: Readonly<Record<string, number>>,
  fixedAt: Readonly<Record<string, number>> | undefined,
): Promise<void> {
  const check = { warmupRounds: 0, rtol: 1e-4 };
  let candidate: LoopKernel;
  try {
    candidate = applySchedule(knl, steps);
  } catch (e) {
    if (!fixedAt || !(e instanceof LoomError) || e instanceof InternalError) throw e;
    const values = compatibleCheckSizes(fixedAt, checkSizes);
    // a check on the check device must stay small: beyond this many points of the sizes, refused as before
    if (Object.values(values).reduce((a, b) => a * b, 1) > FALLBACK_CHECK_POINTS) throw e;
    const fix: ScheduleStep = { kind: 'fix', values };
    await autoTestVsRef(applySchedule(knl, [fix]), device, applySchedule(knl, [fix, ...steps]), check);
    return;
  }
  await autoTestVsRef(knl, device, candidate, { ...check, parameters: checkSizes });
}

/** The most points (the product of the sizes) at which a candidate made for fixed sizes is checked: 2^20. */
const FALLBACK_CHECK_POINTS = 1 << 20;

/**
 * Check sizes for a candidate made at `sizes`: each the least multiple of the size's largest
 * power-of-two factor (at most 256) not below its check size, never above the size itself, so
 * that what divides a size divides its check size too, up to 256 (1024 rows of 1024 are checked
 * at 256 of 256; an odd size keeps its check size; 1000, a multiple of 8, is checked at 40).
 */
export function compatibleCheckSizes(
  sizes: Readonly<Record<string, number>>,
  checkSizes: Readonly<Record<string, number>>,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(sizes).map(([name, v]) => {
      const small = checkSizes[name] ?? Math.min(v, 40);
      let factor = 1;
      while (factor < 256 && v % (2 * factor) === 0) factor *= 2;
      return [name, Math.min(v, factor * Math.ceil(small / factor))];
    }),
  );
}

/**
 * The device candidates are checked on, holding whatever `device` holds: one whose work-items run
 * one after another (the CPU device) has its limits by choice, not by hardware, so they are raised
 * to the target's where lower (a tile made for 48 KiB of local memory is checked there, not refused
 * for the CPU device's 32).
 */
function referenceFor(check: Device, device: Device): Device {
  if (check === device || !targetFacts(check.target).sequentialWorkItems) return check;
  const [a, b] = [check.limits, device.limits];
  const limits: DeviceLimits = Object.freeze({
    ...a,
    maxWorkGroupSize: Math.max(a.maxWorkGroupSize, b.maxWorkGroupSize),
    maxWorkGroupSizes: a.maxWorkGroupSizes.map((n, axis) =>
      Math.max(n, b.maxWorkGroupSizes[axis]!),
    ) as unknown as readonly [number, number, number],
    maxLocalMemoryBytes: Math.max(a.maxLocalMemoryBytes, b.maxLocalMemoryBytes),
    maxPrivateMemoryBytes: Math.max(a.maxPrivateMemoryBytes, b.maxPrivateMemoryBytes),
  });
  // the device's own methods, with these limits (its members are not #private: see cpuDevice)
  return Object.create(check, { limits: { value: limits } }) as Device;
}

/** Whether `device` issues asynchronous copies that can overlap a step's work (CUDA), not only complete them at once. */
function issuesAsyncCopies(device: Device): boolean {
  const facts = targetFacts(device.target);
  return facts.asyncCopies && !facts.sequentialWorkItems;
}
