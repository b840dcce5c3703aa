/**
 * `autotune(problem, device, options)`: tries the configurations of a kernel's
 * transformations on a device, most promising first, within a time budget, and keeps the
 * fastest one whose results pass the problem's check.
 *
 * A tuning problem (`defineTuning`) says what varies (its `space`), how a configuration
 * becomes a kernel (`build`), what the kernel runs on (`arguments`, made once per device) and
 * how to tell a right result (`check`). Nothing here knows about matrices or tiles: the
 * SGEMM of examples/matmul.ts is one problem, `loom tune` runs any a file exports.
 *
 * A configuration the device refuses (too much local memory, a work-group too large) or
 * that Loom cannot generate is a failed trial with its reason, not an error; a wrong result
 * is a failed trial too. Results can be kept between runs in a cache, by problem and device
 * name (the file cache of `@loom/dsl` keeps them on disk).
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { InternalError, LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { DeviceArray, type Device } from '../runtime/device.ts';
import { prepareLaunch, type PreparedLaunch } from '../runtime/prepare.ts';
import { timeLaunchStream } from '../runtime/time-launches.ts';

/** What a tuning problem may say; any other key is an error. */
const TUNING_PROBLEM_KEYS = optionKeys<TuningProblem<unknown>>()([
  'arguments',
  'argumentsFor',
  'build',
  'check',
  'name',
  'space',
  'work',
]);

/** The options autotune reads; any other key is an error. */
const AUTOTUNE_OPTIONS = optionKeys<AutotuneOptions<unknown>>()([
  'budgetSeconds',
  'cache',
  'fresh',
  'onProgress',
  'time',
]);

/** The arguments a tuning problem's kernels run on, by name: device arrays and scalar values. */
export type TuningArguments = Readonly<Record<string, DeviceArray | number | bigint>>;

/**
 * What `autotune` tunes (made with `defineTuning`): the configurations to try (`space`), how one becomes a
 * kernel (`build`), the arguments it runs on and how to tell a right result (`check`).
 */
export interface TuningProblem<C> {
  /** Names the problem in the cache and in progress reports, e.g. 'sgemm n=4096'. */
  readonly name: string;
  /** The configurations, most promising first: the budget may end the search before the last. */
  readonly space: readonly C[];
  /** The kernel of one configuration. */
  build(config: C): LoopKernel;
  /** What every configuration runs on, made once per device; `autotune` releases the arrays after. */
  arguments(device: Device): Promise<TuningArguments>;
  /**
   * The arguments one configuration's kernel takes, made from the shared ones: the same
   * arrays seen with other shapes (`DeviceArray.reshape`), for a kernel that views them as
   * vectors. The shared ones when absent. Views are not released (their arrays are).
   */
  argumentsFor?(config: C, args: TuningArguments): TuningArguments;
  /** Looks at the arguments after a configuration's first launch: a reason rejects it. */
  check?(args: TuningArguments, config: C): Promise<string | undefined>;
  /** The work of one launch (`{ amount: 2 * n ** 3, unit: 'FLOP' }`), to report a rate beside times. */
  readonly work?: { readonly amount: number; readonly unit: string };
}

const TUNING = Symbol('loom.tuning');

/** A tuning problem, marked so that `loom tune` finds it among a module's exports. */
export function defineTuning<C>(problem: TuningProblem<C>): TuningProblem<C> {
  checkOptionKeys('defineTuning', problem, TUNING_PROBLEM_KEYS);
  if (problem.space.length === 0) throw new LoomError(`tuning '${problem.name}': its space has no configuration`);
  return Object.freeze({ ...problem, [TUNING]: true });
}

/** Whether `value` was made by `defineTuning` (how `loom tune` finds the problems a file exports). */
export function isTuningProblem(value: unknown): value is TuningProblem<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TUNING] === true;
}

/** One configuration `autotune` tried: its time, or why it failed. */
export interface Trial<C> {
  /** The configuration tried. */
  readonly config: C;
  /** Seconds per launch, when it ran and passed the check. */
  readonly seconds?: number;
  /**
   * Whether `seconds` is the wall time of the one checked launch (its check's read-back included),
   * not timed launches: that launch was so slow that timing more would have run far past the budget.
   */
  readonly timedOnce?: boolean;
  /** Why it was not measured (refused, failed to build, wrong result). */
  readonly failure?: string;
}

/** What `AutotuneOptions.onProgress` is told after each trial. */
export interface TuningProgress<C> {
  /** The name of the problem being tuned. */
  readonly problem: string;
  /** Configurations tried so far, of `total`. */
  readonly done: number;
  /** Configurations in the space. */
  readonly total: number;
  /** The trial just finished. */
  readonly trial: Trial<C>;
  /** The fastest so far. */
  readonly best?: Trial<C>;
  /** Seconds since the search began. */
  readonly elapsedSeconds: number;
  /** The time budget, in seconds (`AutotuneOptions.budgetSeconds`). */
  readonly budgetSeconds: number;
}

/** What a cache keeps of a search. */
export interface TunedEntry {
  /** The fastest configuration found. */
  readonly config: unknown;
  /** Its seconds per launch. */
  readonly seconds: number;
  /** How many configurations the search tried. */
  readonly tried: number;
  /** When it was measured (ISO 8601). */
  readonly measuredAt: string;
}

/** Where the best configurations are kept between runs, by problem name and device name. */
export interface TuningCache {
  /**
   * The entry kept for this problem on this device, if any (sync or async). An entry whose
   * configuration is no longer in the problem's space is ignored and searched again.
   */
  get(problem: string, device: string): TunedEntry | undefined | Promise<TunedEntry | undefined>;
  /** Keeps the result of a finished search (sync or async), replacing any earlier entry. */
  set(problem: string, device: string, entry: TunedEntry): void | Promise<void>;
}

/** A cache that lives as long as the process. */
export function memoryTuningCache(): TuningCache {
  const entries = new Map<string, TunedEntry>();
  const key = (problem: string, device: string) => JSON.stringify([problem, device]);
  return {
    get: (problem, device) => entries.get(key(problem, device)),
    set: (problem, device, entry) => void entries.set(key(problem, device), entry),
  };
}

/** Options of `autotune`: time budget, progress callback, cache and timing. */
export interface AutotuneOptions<C> {
  /**
   * Stop starting new trials where one more would run past this many seconds (from the call,
   * its arguments' making included; judged by what building and timing the trials so far took);
   * default 60. The first trial always runs. A trial whose checked launch
   * alone takes over half a second and whose timing would run past what is left is timed by
   * that launch (`Trial.timedOnce`).
   */
  readonly budgetSeconds?: number;
  /** Told after each trial: how far the search is, the trial, the best so far. */
  readonly onProgress?: (progress: TuningProgress<C>) => void;
  /** Where to look for an earlier result first, and to keep this one. */
  readonly cache?: TuningCache;
  /** Measure even when the cache has a result (and replace it). */
  readonly fresh?: boolean;
  /** Seconds per launch of a prepared configuration; default: wall time of queued launches. */
  readonly time?: (prepared: PreparedLaunch, probe: DeviceArray) => Promise<number>;
}

/** What `autotune` found: the fastest configuration that passed its check, and every trial. */
export interface TuningResult<C> {
  /** The fastest configuration that passed the check. */
  readonly best: C;
  /** Its seconds per launch (as measured when the search ran, for a cached result). */
  readonly seconds: number;
  /** Every configuration tried, in order (none when the result came from the cache). */
  readonly trials: readonly Trial<C>[];
  /** Whether the result came from the cache, with no search run. */
  readonly fromCache: boolean;
}

/**
 * Tries a tuning problem's configurations on a device, most promising first, within a time budget, and keeps
 * the fastest whose results pass the problem's check. A configuration the device refuses or Loom cannot
 * generate is a failed trial with its reason, not an error.
 * ```ts
 * const { best, seconds } = await autotune(problem, device, { budgetSeconds: 30 });
 * ```
 */
export async function autotune<C>(
  problem: TuningProblem<C>,
  device: Device,
  options: AutotuneOptions<C> = {},
): Promise<TuningResult<C>> {
  checkOptionKeys('autotune', options, AUTOTUNE_OPTIONS);
  const { budgetSeconds = 60, onProgress, cache, fresh = false, time = wallTime } = options;
  if (!fresh && cache) {
    const hit = await cache.get(problem.name, device.name);
    const config = hit && problem.space.find((c) => sameConfig(c, hit.config));
    // a configuration no longer in the space (the problem changed) is searched again
    if (hit && config !== undefined) return { best: config, seconds: hit.seconds, trials: [], fromCache: true };
  }

  // the budget covers making the arguments too (a reference run of a slow kernel can take seconds)
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const args = await problem.arguments(device);
  const probe = Object.values(args).find((a): a is DeviceArray => a instanceof DeviceArray);
  if (!probe) throw new LoomError(`tuning '${problem.name}': its arguments have no device array to wait for`);
  // each configuration starts from the arrays as they were made, so none is judged on another's output
  const initial = await Promise.all(
    Object.values(args).map(async (a) => (a instanceof DeviceArray ? ([a, await a.toHost()] as const) : undefined)),
  );
  const restore = async () => {
    for (const entry of initial) if (entry) await device.write(entry[0].buffer, entry[1]);
  };
  const trials: Trial<C>[] = [];
  let best: Trial<C> | undefined;
  const record = (trial: Trial<C>) => {
    trials.push(trial);
    if (trial.seconds !== undefined && (best === undefined || trial.seconds < best.seconds!)) best = trial;
    onProgress?.({
      problem: problem.name,
      done: trials.length,
      total: problem.space.length,
      trial,
      best,
      elapsedSeconds: elapsed(),
      budgetSeconds,
    });
  };
  // what building and timing a configuration took so far: a group stops growing where one more
  // would run past the budget (an NVIDIA compiler took seconds a candidate specialised to its sizes)
  const spent = { building: 0, built: 0, timing: 0, timed: 0 };
  const mean = (seconds: number, count: number) => (count > 0 ? seconds / count : 0);
  const overrun = (begun: number, grouped: number) =>
    begun > 0 &&
    elapsed() + mean(spent.building, spent.built) + (grouped + 1) * mean(spent.timing, spent.timed) > budgetSeconds;
  try {
    // A few configurations are built and checked, then timed back to back: a GPU left idle
    // while one compiles lowers its clocks, so timings each right after a build would differ
    // by how long the build took (the device's warm-up, `Device.warmUpSeconds`, is paid once a
    // group). The trials are recorded in the space's order.
    let next = 0;
    while (next < problem.space.length && !overrun(trials.length, 0)) {
      const group: ({ readonly trial: Trial<C> } | { readonly config: C; readonly prepared: PreparedLaunch })[] = [];
      try {
        while (
          next < problem.space.length &&
          group.length < TIMED_TOGETHER &&
          !overrun(trials.length + group.length, group.length)
        ) {
          const config = problem.space[next++]!;
          const building = performance.now();
          const outcome = await prepareTrial(problem, config, device, args, probe, restore, budgetSeconds - elapsed());
          spent.building += (performance.now() - building) / 1000;
          spent.built++;
          group.push('trial' in outcome ? outcome : { config, prepared: outcome.prepared });
        }
        const timed = new Map<number, Trial<C>>();
        for (const [k, entry] of group.entries()) {
          if (!('prepared' in entry)) continue;
          const timing = performance.now();
          timed.set(k, await timeTrial(entry.config, entry.prepared, probe, time));
          spent.timing += (performance.now() - timing) / 1000;
          spent.timed++;
        }
        for (const [k, entry] of group.entries()) record('trial' in entry ? entry.trial : timed.get(k)!);
      } finally {
        for (const entry of group) if ('prepared' in entry) entry.prepared.release();
      }
    }
  } finally {
    for (const a of Object.values(args)) if (a instanceof DeviceArray) a.release();
  }

  if (!best) {
    const reasons = trials.map((t) => `  ${JSON.stringify(t.config)}: ${t.failure}`).slice(0, 5);
    throw new LoomError(
      `tuning '${problem.name}' on ${device.name}: no configuration ran (${trials.length} tried)\n${reasons.join('\n')}`,
    );
  }
  await cache?.set(problem.name, device.name, {
    config: best.config,
    seconds: best.seconds!,
    tried: trials.length,
    measuredAt: new Date().toISOString(),
  });
  return { best: best.config, seconds: best.seconds!, trials, fromCache: false };
}

/**
 * Builds and prepares `config`, launches it once from the arrays as they were made and checks
 * its outputs: resolves to the prepared launch, ready to be timed, or to its trial where it
 * failed or was slow enough to be timed by that one launch.
 */
async function prepareTrial<C>(
  problem: TuningProblem<C>,
  config: C,
  device: Device,
  args: TuningArguments,
  probe: DeviceArray,
  restore: () => Promise<void>,
  remainingSeconds: number,
): Promise<{ readonly trial: Trial<C> } | { readonly prepared: PreparedLaunch }> {
  let prepared: PreparedLaunch | undefined;
  try {
    prepared = await prepareLaunch(problem.build(config), device, problem.argumentsFor?.(config, args) ?? args, {
      checkBounds: false,
    });
    await restore();
    const started = performance.now();
    await prepared.launch();
    const wrong = await problem.check?.(args, config);
    if (wrong) return { trial: { config, failure: `wrong result: ${wrong}` } };
    await prepared.device.read(probe.buffer, new Uint8Array(Math.min(4, probe.buffer.byteLength)));
    // a launch so slow that timing it (TIMED_LAUNCHES more) would run far past the budget is
    // timed by itself: matmul of 1024 as written takes 11 s a launch on the H200 (the check's
    // read-back is included, which matters only for launches far shorter than SLOW_LAUNCH)
    const once = (performance.now() - started) / 1000;
    if (once > SLOW_LAUNCH && once * TIMED_LAUNCHES > Math.max(0, remainingSeconds))
      return { trial: { config, seconds: once, timedOnce: true } };
    const ready = prepared;
    prepared = undefined;
    return { prepared: ready };
  } catch (e) {
    return { trial: { config, failure: failureOf(e) } };
  } finally {
    prepared?.release();
  }
}

/** Times a prepared configuration (the caller releases it). */
async function timeTrial<C>(
  config: C,
  prepared: PreparedLaunch,
  probe: DeviceArray,
  time: NonNullable<AutotuneOptions<C>['time']>,
): Promise<Trial<C>> {
  try {
    return { config, seconds: await time(prepared, probe) };
  } catch (e) {
    return { config, failure: failureOf(e) };
  }
}

/** A configuration's failure, from what it threw: Loom's own bugs are not a configuration's failure. */
function failureOf(e: unknown): string {
  if (e instanceof InternalError || !(e instanceof Error)) throw e;
  return e.message.split('\n')[0]!.slice(0, 300);
}

/**
 * How many configurations are built and checked before they are timed one after another: a GPU
 * warms up once a group, and autoSchedule's usual 10 candidates and the kernel as written are one.
 */
const TIMED_TOGETHER = 16;

/** About how many launches timing one configuration takes (`timeLaunchStream`'s warm-ups and samples). */
const TIMED_LAUNCHES = 6;
/** Seconds from which one launch is slow enough to be timed by itself when the budget is short. */
const SLOW_LAUNCH = 0.5;

/** Wall time per launch in a stream of launches, waiting for the device once per sample. */
function wallTime(prepared: PreparedLaunch, probe: DeviceArray): Promise<number> {
  return timeLaunchStream(prepared, probe, { samples: 3 });
}

/** Configurations are plain data: equal when their JSON is, keys in any order. */
function sameConfig(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as object).sort(([x], [y]) => (x < y ? -1 : 1)))
      : v,
  );
}
