/**
 * The flags every benchmark understands:
 *
 *   --json              JSON lines on stdout (the table goes to stderr)
 *   --full              the sizes (for a real GPU); without it, small sizes that a CPU runs in seconds
 *   --backends=a,b      only these backends (opencl, webgpu, cuda, cpu, c); by default the GPU ones, a missing one a notice
 *   --budget=SECONDS    time allowed for a search (the autotuner)
 */
import { BACKENDS, type Backend } from './records.ts';

export interface BenchOptions {
  readonly json: boolean;
  readonly full: boolean;
  readonly backends: ReadonlySet<Backend>;
  /** Every `--name=value` flag, for a script's own options. */
  readonly flags: ReadonlyMap<string, string>;
}

export function parseOptions(
  argv: readonly string[] = process.argv.slice(2),
  defaultBackends: readonly Backend[] = ['opencl', 'webgpu', 'cuda'],
): BenchOptions {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument '${arg}' (flags look like --json, --full, --backends=opencl,webgpu)`);
    flags.set(m[1], m[2] ?? 'true');
  }
  const backends = (flags.get('backends')?.split(',') ?? defaultBackends).map((b) => b.trim());
  for (const b of backends)
    if (!(BACKENDS as readonly string[]).includes(b))
      throw new Error(`unknown backend '${b}' (${BACKENDS.join(', ')})`);
  return { json: flags.has('json'), full: flags.has('full'), backends: new Set(backends as Backend[]), flags };
}

/** A numeric flag, or its default. */
export function numberFlag(options: BenchOptions, name: string, fallback: number): number {
  const text = options.flags.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number, got '${text}'`);
  return value;
}

/** A list of numbers (`--sizes=1024,2048`), or its default. */
export function listFlag(options: BenchOptions, name: string, fallback: readonly number[]): number[] {
  const text = options.flags.get(name);
  return text === undefined ? [...fallback] : text.split(',').map(Number);
}
