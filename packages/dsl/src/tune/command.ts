/**
 * `loom tune <file> [--device opencl] [--budget 60] [--fresh] [--only name]`: runs the
 * tuning problems a file exports (`defineTuning`) on a device, with a progress bar, and
 * keeps each best configuration in the tuning cache (file-cache.ts); a problem already in
 * the cache for that device is not measured again unless `--fresh`. With `--auto`, the
 * file's kernels are auto-scheduled instead (auto.ts).
 */
import { autotune, isTuningProblem, LoomError, type TuningProblem, type TuningProgress } from '@loom/core';
import type { ParsedArguments } from '../cli/args.ts';
import { anyDevice } from '../any-device.ts';
import { importModule } from '../stats/kernels-of.ts';
import { DEVICE_KINDS, deviceOfKind, type DeviceKind } from '../stats/profiles.ts';
import { autoTuneFile, parseParams } from './auto.ts';
import { fileTuningCache } from './file-cache.ts';
import { TUNE_COMMAND, type TUNE_OPTIONS } from './usage.ts';

interface TuneArguments {
  readonly file: string;
  readonly device?: DeviceKind;
  readonly budgetSeconds: number;
  readonly fresh: boolean;
  readonly only?: string;
  readonly verbose: boolean;
  /** `--auto`: auto-schedule the file's kernels at `params`, rather than its tuning problems. */
  readonly auto: boolean;
  readonly params: Readonly<Record<string, number>>;
}

/** The command's exit code: 0 done, 1 no problem found or a LoomError, 2 a usage mistake. */
export async function tuneCommand(args: ParsedArguments<typeof TUNE_OPTIONS>): Promise<number> {
  const parsed = tuneArguments(args);
  if (typeof parsed === 'string') {
    console.error(`loom tune: ${parsed}\n\n${TUNE_COMMAND.usage}`);
    return 2;
  }
  try {
    if (parsed.auto) {
      const device = parsed.device ? await deviceOfKind(parsed.device) : await anyDevice();
      try {
        return await autoTuneFile(parsed, device);
      } finally {
        device.dispose();
      }
    }
    const exports = await importModule(parsed.file);
    const problems = Object.values(exports)
      .filter(isTuningProblem)
      .filter((p) => parsed.only === undefined || p.name === parsed.only);
    if (problems.length === 0) {
      console.error(
        `loom tune: ${parsed.file} exports no tuning problem${parsed.only ? ` named '${parsed.only}'` : ''} (defineTuning)`,
      );
      return 1;
    }
    const device = parsed.device ? await deviceOfKind(parsed.device) : await anyDevice();
    try {
      const cache = fileTuningCache();
      for (const problem of problems) {
        const bar = progressBar(problem, parsed.verbose);
        const result = await autotune(problem, device, {
          budgetSeconds: parsed.budgetSeconds,
          fresh: parsed.fresh,
          cache,
          onProgress: bar,
        });
        const from = result.fromCache
          ? 'from the cache'
          : `best of ${result.trials.filter((t) => t.seconds !== undefined).length} that ran (${result.trials.length} tried)`;
        console.error(`${problem.name} on ${device.name}: ${describeTime(result.seconds, problem)}, ${from}`);
        console.log(
          JSON.stringify({ problem: problem.name, device: device.name, config: result.best, seconds: result.seconds }),
        );
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

/** A bar redrawn in place on a terminal; a line per configuration elsewhere (logs, CI) or when verbose. */
function progressBar<C>(problem: TuningProblem<C>, verbose: boolean): (p: TuningProgress<C>) => void {
  const tty = process.stderr.isTTY === true && !verbose;
  return (p) => {
    const width = 24;
    const filled = Math.round((width * p.done) / p.total);
    const best = p.best ? `best ${describeTime(p.best.seconds!, problem)}` : 'nothing ran yet';
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} ${p.elapsedSeconds.toFixed(0)}/${p.budgetSeconds} s, ${best}`;
    if (tty) process.stderr.write(`\r${bar}${p.done === p.total ? '\n' : ''}`);
    else {
      const what =
        p.trial.seconds === undefined ? `failed: ${p.trial.failure}` : describeTime(p.trial.seconds, problem);
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

/** The arguments, checked, or what is wrong with them. */
function tuneArguments({ values, positionals }: ParsedArguments<typeof TUNE_OPTIONS>): TuneArguments | string {
  if (positionals.length > 1) return `one file at a time ('${positionals[0]}', then '${positionals[1]}')`;
  const file = positionals[0];
  if (file === undefined) return 'which file? (loom tune <file.ts>)';
  const device = values.device;
  if (device !== undefined && !(DEVICE_KINDS as readonly string[]).includes(device))
    return `--device is one of ${DEVICE_KINDS.join(', ')}, not '${device}'`;
  const budgetSeconds = values.budget === undefined ? 60 : Number(values.budget);
  if (!(budgetSeconds > 0)) return `--budget needs a positive number of seconds, not '${values.budget}'`;
  const params = parseParams(values.params);
  if (typeof params === 'string') return params;
  if (values.params !== undefined && values.auto !== true) return '--params goes with --auto';
  return {
    auto: values.auto === true,
    params,
    file,
    device: device as DeviceKind | undefined,
    budgetSeconds,
    fresh: values.fresh === true,
    only: values.only,
    verbose: values.verbose === true,
  };
}
