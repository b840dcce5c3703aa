/**
 * `loom tune --auto <file> [--params n=1024] [--device ...] [--budget 60] [--fresh] [--only name]`:
 * `autoSchedule` on each kernel the file exports (as `loom stats` finds them), with a progress
 * bar on stderr, printing on stdout the builder code that reproduces each best kernel. The best
 * is kept in the tuning cache, per kernel, sizes and device, as `loom tune` keeps its problems'.
 */
import { autoSchedule, type AutoScheduleProgress, type Device } from '@loom/core';
import { anyDevice } from '../any-device.ts';
import { kernelsOf } from '../stats/kernels-of.ts';
import { fileTuningCache } from './file-cache.ts';

export interface AutoTuneArguments {
  readonly file: string;
  readonly params: Readonly<Record<string, number>>;
  readonly budgetSeconds: number;
  readonly fresh: boolean;
  readonly only?: string;
  readonly verbose: boolean;
}

/** Auto-schedules the file's kernels on `device`; the exit code (1: no kernel). */
export async function autoTuneFile(parsed: AutoTuneArguments, device: Device): Promise<number> {
  const kernels = (await kernelsOf(parsed.file)).filter((k) => parsed.only === undefined || k.name === parsed.only);
  if (kernels.length === 0) {
    console.error(`loom tune --auto: ${parsed.file} exports no kernel${parsed.only ? ` named '${parsed.only}'` : ''}`);
    return 1;
  }
  // every measured candidate is first checked against the kernel as written on the CPU
  const check = await anyDevice({ prefer: ['cpu'] });
  try {
    const cache = fileTuningCache();
    for (const { name, kernel } of kernels) {
      const result = await autoSchedule(kernel, device, {
        sizes: parsed.params,
        budget: parsed.budgetSeconds,
        fresh: parsed.fresh,
        cache,
        checkDevice: check,
        onProgress: autoProgressBar(parsed.verbose),
      });
      const best = result.measured.find((m) => m.script === result.script)?.seconds;
      const from = result.fromCache ? 'from the cache' : `best of ${result.measured.length} measured`;
      console.error(`${name} on ${device.name}: ${best === undefined ? '?' : describe(best)}, ${from}`);
      console.log(
        `// ${name}, auto-scheduled for ${device.name}\n${result.script || '// (as written: no transformation was faster)'}`,
      );
    }
  } finally {
    check.dispose();
  }
  return 0;
}

/** A bar per phase, redrawn in place on a terminal; a line per candidate measured elsewhere or when verbose. */
function autoProgressBar(verbose: boolean): (p: AutoScheduleProgress) => void {
  const tty = process.stderr.isTTY === true && !verbose;
  return (p) => {
    const width = 24;
    const filled = Math.round((width * p.done) / Math.max(1, p.total));
    const best = p.bestSeconds === undefined ? '' : `, best ${describe(p.bestSeconds)}`;
    const bar = `${p.phase.padEnd(7)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} ${p.elapsedSeconds.toFixed(0)} s${best}`;
    if (tty) process.stderr.write(`\r${bar}${p.done === p.total ? '\n' : ''}`);
    else if (p.phase === 'measure' || p.done === p.total)
      process.stderr.write(`${bar}: ${p.label.replace(/\n/g, ' ')}\n`);
  };
}

function describe(seconds: number): string {
  return seconds >= 1e-3 ? `${(seconds * 1e3).toPrecision(4)} ms` : `${(seconds * 1e6).toPrecision(4)} us`;
}

/** `--params n=1024,m=512` as values, or what is wrong with it. */
export function parseParams(text: string | undefined): Record<string, number> | string {
  const params: Record<string, number> = {};
  for (const pair of text?.split(',') ?? []) {
    const m = /^\s*([A-Za-z_]\w*)\s*=\s*(\d+)\s*$/.exec(pair);
    if (!m) return `--params takes name=integer pairs separated by commas, not '${pair}'`;
    params[m[1]!] = Number(m[2]);
  }
  return params;
}
