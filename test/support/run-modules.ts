/**
 * Runs several scripts (README blocks, examples) one after another in ONE process, as each would
 * run alone: `node --conditions=loom-source --import tsx test/support/run-modules.ts OUT.json A.ts B.ts ...`.
 * A process per script paid tsx's start-up and the loading of every package's sources each time
 * (about 3 s of CPU a script on CI's machine); the scripts themselves are not about the process.
 *
 * For each script, in order: `process.argv[1]` is the script (so an "only when run directly" check
 * holds), `process.exitCode` starts unset, and what it writes to stdout and stderr is kept apart
 * from the others'. OUT.json receives one `ModuleRun` per script that was reached. The process
 * then exits on its own: a script that leaves a handle open still keeps it alive, as it would alone.
 * Use it through `runModules` below.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = fileURLToPath(import.meta.url);

/** What one script did. */
export interface ModuleRun {
  readonly file: string;
  readonly stdout: string;
  readonly stderr: string;
  /** What it threw (its stack), or null. */
  readonly error: string | null;
  /** `process.exitCode` as the script left it (0 when unset). */
  readonly exitCode: number;
}

/** The scripts' runs, and how the process that ran them all ended. */
export interface ModulesRun {
  /** Keyed by the path given; a script missing here was never reached (see `status` and `stderr`). */
  readonly runs: ReadonlyMap<string, ModuleRun>;
  readonly status: number | null;
  /** The process's own stderr (what no script wrote: a crash, a hang's timeout). */
  readonly stderr: string;
}

/** Runs `files` (absolute paths) in one child process; `env` is added to the test's environment. */
export function runModules(
  files: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 600_000,
): ModulesRun {
  const directory = mkdtempSync(path.join(tmpdir(), 'loom-run-modules-'));
  const out = path.join(directory, 'runs.json');
  try {
    const child = spawnSync(process.execPath, ['--conditions=loom-source', '--import', 'tsx', SELF, out, ...files], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 1 << 26,
    });
    let runs: ModuleRun[] = [];
    try {
      runs = JSON.parse(readFileSync(out, 'utf8')) as ModuleRun[];
    } catch {
      // not written: the process died before its end; `status` and `stderr` say how
    }
    const stderr = `${child.stderr ?? ''}${child.error ? `\n${child.error.message}` : ''}`;
    return { runs: new Map(runs.map((r) => [r.file, r])), status: child.status, stderr };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

async function runAll(out: string, files: readonly string[]): Promise<void> {
  const runs: ModuleRun[] = [];
  const save = () => writeFileSync(out, JSON.stringify(runs));
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  for (const file of files) {
    let stdout = '';
    let stderr = '';
    // console.log and console.error look the stream's write up at each call
    process.stdout.write = ((chunk: string | Uint8Array) => {
      stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof process.stderr.write;
    process.argv[1] = file;
    process.exitCode = undefined;
    let error: string | null = null;
    try {
      await import(pathToFileURL(file).href);
    } catch (e) {
      error = e instanceof Error ? (e.stack ?? e.message) : String(e);
    } finally {
      process.stdout.write = stdoutWrite;
      process.stderr.write = stderrWrite;
    }
    runs.push({ file, stdout, stderr, error, exitCode: Number(process.exitCode ?? 0) });
    save(); // after each script: a later crash keeps what came before
  }
  process.exitCode = 0;
}

if (process.argv[1] === SELF) {
  const [out, ...files] = process.argv.slice(2);
  await runAll(out, files);
}
