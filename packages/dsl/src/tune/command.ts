/**
 * `loom tune <file> [--device opencl] [--budget 60] [--fresh] [--only name]`: runs the
 * tuning problems a file exports (`defineTuning`) on a device, with a progress bar, and
 * keeps each best configuration in the tuning cache (file-cache.ts); a problem already in
 * the cache for that device is not measured again unless `--fresh`.
 */
import { autotune, isTuningProblem, LoomError, type TuningProblem, type TuningProgress } from '@loom/core';
import { importModule } from '../stats/kernels-of.ts';
import { DEVICE_KINDS, deviceOfKind, type DeviceKind } from '../stats/profiles.ts';
import { defaultTuningCacheFile, fileTuningCache } from './file-cache.ts';

const HELP = `usage: loom tune <file.ts> [--device cpu|opencl|webgpu] [--budget <seconds>] [--fresh] [--only <name>]

  Searches the configurations of each tuning problem the file exports (defineTuning from
  @loom/core) on the device (default: opencl if present, else webgpu, else cpu), trying new
  ones for at most --budget seconds (default 60) per problem. The best configuration of each
  is printed as JSON and kept in ${defaultTuningCacheFile()} ($LOOM_CACHE_DIR
  overrides the folder); a problem found there for the device is not searched again unless
  --fresh.`;

interface TuneArguments {
  readonly file: string;
  readonly device?: DeviceKind;
  readonly budgetSeconds: number;
  readonly fresh: boolean;
  readonly only?: string;
}

export async function tuneCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  const parsed = parseArguments(argv);
  if (typeof parsed === 'string') {
    console.error(`loom tune: ${parsed}\n\n${HELP}`);
    return 2;
  }
  try {
    const exports = await importModule(parsed.file);
    const problems = Object.values(exports)
      .filter(isTuningProblem)
      .filter((p) => parsed.only === undefined || p.name === parsed.only);
    if (problems.length === 0) {
      console.error(`loom tune: ${parsed.file} exports no tuning problem${parsed.only ? ` named '${parsed.only}'` : ''} (defineTuning)`);
      return 1;
    }
    const device = parsed.device ? await deviceOfKind(parsed.device) : await firstDevice();
    try {
      const cache = fileTuningCache();
      for (const problem of problems) {
        const bar = progressBar(problem);
        const result = await autotune(problem, device, { budgetSeconds: parsed.budgetSeconds, fresh: parsed.fresh, cache, onProgress: bar });
        const from = result.fromCache ? 'from the cache' : `best of ${result.trials.filter((t) => t.seconds !== undefined).length} that ran (${result.trials.length} tried)`;
        console.error(`${problem.name} on ${device.name}: ${describeTime(result.seconds, problem)}, ${from}`);
        console.log(JSON.stringify({ problem: problem.name, device: device.name, config: result.best, seconds: result.seconds }));
      }
    } finally {
      device.dispose();
    }
    return 0;
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    console.error(`loom tune: ${e.message}`);
    return 1;
  }
}

/** A bar redrawn in place on a terminal; a line per configuration elsewhere (logs, CI). */
function progressBar<C>(problem: TuningProblem<C>): (p: TuningProgress<C>) => void {
  const tty = process.stderr.isTTY === true;
  return (p) => {
    const width = 24;
    const filled = Math.round((width * p.done) / p.total);
    const best = p.best ? `best ${describeTime(p.best.seconds!, problem)}` : 'nothing ran yet';
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} ${p.elapsedSeconds.toFixed(0)}/${p.budgetSeconds} s, ${best}`;
    if (tty) process.stderr.write(`\r${bar}${p.done === p.total ? '\n' : ''}`);
    else {
      const what = p.trial.seconds === undefined ? `failed: ${p.trial.failure}` : describeTime(p.trial.seconds, problem);
      process.stderr.write(`${p.done}/${p.total} ${JSON.stringify(p.trial.config)}: ${what}\n`);
    }
  };
}

function describeTime(seconds: number, problem: TuningProblem<unknown>): string {
  const time = seconds >= 1e-3 ? `${(seconds * 1e3).toPrecision(4)} ms` : `${(seconds * 1e6).toPrecision(4)} us`;
  if (!problem.work) return time;
  const rate = problem.work.amount / seconds;
  const prefixes: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  const [scale, prefix] = prefixes.find(([s]) => rate >= s) ?? [1, ''];
  return `${time} (${(rate / scale).toPrecision(4)} ${prefix}${problem.work.unit}/s)`;
}

/** The first device kind present, GPUs first. */
async function firstDevice() {
  for (const kind of ['opencl', 'webgpu', 'cpu'] as const) {
    try {
      return await deviceOfKind(kind);
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
    }
  }
  throw new LoomError('no device found (install @loom/codegen-opencl, @loom/codegen-wgsl or @loom/codegen-js)');
}

function parseArguments(args: readonly string[]): TuneArguments | string {
  let file: string | undefined;
  let device: DeviceKind | undefined;
  let budgetSeconds = 60;
  let fresh = false;
  let only: string | undefined;
  for (let k = 0; k < args.length; k++) {
    const arg = args[k]!;
    const value = (): string | undefined => {
      const v = args[++k];
      return v === undefined || v.startsWith('--') ? undefined : v;
    };
    if (arg === '--device') {
      const v = value();
      if (v === undefined || !(DEVICE_KINDS as readonly string[]).includes(v)) return `--device is one of ${DEVICE_KINDS.join(', ')}, not '${v ?? ''}'`;
      device = v as DeviceKind;
    } else if (arg === '--budget') {
      const v = Number(value());
      if (!(v > 0)) return '--budget needs a positive number of seconds';
      budgetSeconds = v;
    } else if (arg === '--fresh') fresh = true;
    else if (arg === '--only') {
      only = value();
      if (only === undefined) return '--only needs the name of a tuning problem';
    } else if (arg.startsWith('-')) return `unknown option '${arg}'`;
    else if (file === undefined) file = arg;
    else return `one file at a time ('${file}', then '${arg}')`;
  }
  if (file === undefined) return 'which file? (loom tune <file.ts>)';
  return { file, device, budgetSeconds, fresh, only };
}
