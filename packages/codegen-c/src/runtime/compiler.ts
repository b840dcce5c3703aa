/**
 * The system's C compiler: which one (`LOOM_CC`, else the first of `cc`, `gcc`, `clang` that
 * answers `--version`), whether it has OpenMP (probed once, by compiling a file that includes
 * `<omp.h>` with `-fopenmp`), and compiling a program into a shared library in a cache folder
 * keyed by what decides the result: the source, the flags and the compiler's version.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LoomError } from '@loom/core';

const run = promisify(execFile);

/** A C compiler found on this machine. */
export interface CCompiler {
  /** The command, as run (`cc`, or `LOOM_CC`'s value). */
  readonly command: string;
  /** The first line of `--version`: part of every cache key. */
  readonly version: string;
  /** Whether `-fopenmp` works: work-groups then run on every core. */
  readonly openmp: boolean;
}

/**
 * Loom's arithmetic in C: signed integers wrap (`-fwrapv`), `char` is signed as OpenCL's,
 * `a * b + c` rounds twice (no fma contraction), strict IEEE floats (no fast-math). A plain
 * `inline` function (a user function's `c:` preamble may well have one) gets a definition of its own
 * (`-fgnu89-inline`), where C99 would leave a call that was not inlined undefined.
 *
 * `-fno-tree-loop-distribute-patterns`: gcc turns a work-group's loop of stores (128 floats of a
 * fill) into a `memset` call or a `rep stos` per group, which is twice as slow as the vector stores
 * it replaces at that length (a 2^24 fill on the H200's host: 28.7 ms, 15.4 ms without). Kernels
 * write in work-group pieces, never in one long run that a library call would serve better.
 */
const SEMANTICS_FLAGS = [
  '-std=c99',
  '-O3',
  '-fwrapv',
  '-fsigned-char',
  '-ffp-contract=off',
  '-fno-strict-aliasing',
  '-fgnu89-inline',
  '-fno-tree-loop-distribute-patterns',
];

/**
 * Flags a user may not add (`cDevice({ flags })`): each changes what Loom's code computes
 * (reassociated or contracted floats, integers that no longer wrap, an unsigned `char`), which
 * would be a silent wrong result, not a faster one.
 */
const REFUSED_FLAGS: readonly RegExp[] = [
  /^-Ofast$/,
  /^-ffast-math$/,
  /^-funsafe-math-optimizations$/,
  /^-fassociative-math$/,
  /^-freciprocal-math$/,
  /^-ffinite-math-only$/,
  /^-fno-signed-zeros$/,
  /^-fno-trapping-math$/,
  /^-ffp-contract=(fast|on)$/,
  /^-fno-wrapv$/,
  /^-fstrict-overflow$/,
  /^-f(no-signed|unsigned)-char$/,
  /^-std=/,
];

/** `flags` as given to `cDevice`, or a LoomError naming the first one that would change Loom's results. */
export function checkExtraFlags(flags: readonly string[]): readonly string[] {
  for (const flag of flags) {
    if (typeof flag !== 'string' || flag.trim() === '')
      throw new LoomError(`cDevice: flags must be non-empty strings; got ${JSON.stringify(flag)}`);
    if (REFUSED_FLAGS.some((r) => r.test(flag)))
      throw new LoomError(
        `cDevice: the flag '${flag}' changes what Loom's C computes (it needs wrapping integers, a signed char, C99 and strict IEEE floats without contraction); leave it out`,
      );
  }
  return [...flags];
}

type Found = { compiler: CCompiler } | { failure: string };
/** What was found, by the value of `LOOM_CC` it was found with ('' unset). */
const found = new Map<string, Found>();

/** The compiler, found on first use (and remembered for this `LOOM_CC`), or why there is none. */
export function findCompiler(): Found {
  const override = process.env.LOOM_CC ?? '';
  let result = found.get(override);
  if (!result) {
    result = discover(override);
    found.set(override, result);
  }
  return result;
}

function discover(override: string): Found {
  const candidates = override ? [override] : ['cc', 'gcc', 'clang'];
  const tried: string[] = [];
  for (const command of candidates) {
    let version: string;
    try {
      version = execFileSync(command, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
        .split('\n')[0]
        .trim();
    } catch (e) {
      tried.push(`${command} (${firstLine(e)})`);
      continue;
    }
    return { compiler: { command, version, openmp: probeOpenMP(command) } };
  }
  return {
    failure: `no C compiler: tried ${tried.join(', ')}${override ? ' (LOOM_CC)' : ''}; install gcc or clang, or set LOOM_CC`,
  };
}

/** Whether `command` compiles and links an OpenMP shared library. */
function probeOpenMP(command: string): boolean {
  const dir = path.join(tmpdir(), `loom-c-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  try {
    const source = path.join(dir, 'probe.c');
    writeFileSync(source, '#include <omp.h>\nint loom_probe(void) { return omp_get_max_threads(); }\n');
    execFileSync(command, ['-fopenmp', '-shared', '-fPIC', '-o', path.join(dir, 'probe.so'), source], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The flags a program is compiled with on `compiler`, the user's `extra` (checked by checkExtraFlags) last. */
export function compileFlags(compiler: CCompiler, extra: readonly string[] = []): string[] {
  return [...SEMANTICS_FLAGS, ...(compiler.openmp ? ['-fopenmp'] : []), '-shared', '-fPIC', ...extra];
}

/** The cache folder: `$LOOM_CACHE_DIR/c`, else `$XDG_CACHE_HOME/loom/c`, else `~/.cache/loom/c` (read at each compile). */
export function cacheFolder(): string {
  if (process.env.LOOM_CACHE_DIR) return path.join(process.env.LOOM_CACHE_DIR, 'c');
  if (process.env.XDG_CACHE_HOME) return path.join(process.env.XDG_CACHE_HOME, 'loom', 'c');
  return path.join(homedir(), '.cache', 'loom', 'c');
}

/**
 * The shared library of `source`: from the cache when it is there, else compiled into it.
 * Written under a name of its own, then renamed: test workers compiling the same program at
 * once each finish with a whole file in place. `compiled` says whether this call compiled.
 */
export async function compileToCache(
  compiler: CCompiler,
  source: string,
  extraFlags: readonly string[] = [],
): Promise<{ library: string; compiled: boolean }> {
  const flags = compileFlags(compiler, extraFlags);
  const key = createHash('sha256')
    .update(`${compiler.version}\n${flags.join(' ')}\n${source}`)
    .digest('hex')
    .slice(0, 32);
  const folder = cacheFolder();
  const library = path.join(folder, `${key}.so`);
  if (existsSync(library)) return { library, compiled: false };
  mkdirSync(folder, { recursive: true });
  const unique = `${key}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const sourceFile = path.join(folder, `${unique}.c`);
  const temporary = path.join(folder, `${unique}.so`);
  writeFileSync(sourceFile, source);
  try {
    await run(compiler.command, [...flags, '-o', temporary, sourceFile, '-lm'], { maxBuffer: 16 * 1024 * 1024 });
    renameSync(temporary, library);
  } catch (e) {
    throw compileError(compiler, source, sourceFile, e);
  } finally {
    rmSync(sourceFile, { force: true });
    rmSync(temporary, { force: true });
  }
  return { library, compiled: true };
}

/** The compiler's complaint as a LoomError, with the generated line its first error points at. */
function compileError(compiler: CCompiler, source: string, sourceFile: string, e: unknown): LoomError {
  const stderr = String((e as { stderr?: unknown }).stderr ?? (e instanceof Error ? e.message : e));
  const messages = stderr.split(sourceFile).join('<generated C>').trim();
  const at = new RegExp(`${escapeRegExp(sourceFile)}:(\\d+):`).exec(stderr);
  const lineNumber = at ? Number(at[1]) : undefined;
  const line = lineNumber !== undefined ? source.split('\n')[lineNumber - 1] : undefined;
  const quoted = line !== undefined ? `\n\nline ${lineNumber} of the generated C:\n  ${line.trim()}` : '';
  return new LoomError(
    `the C compiler (${compiler.command}: ${compiler.version}) rejected the generated code:\n${messages}${quoted}`,
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function firstLine(e: unknown): string {
  return String(e instanceof Error ? e.message : e).split('\n')[0];
}
