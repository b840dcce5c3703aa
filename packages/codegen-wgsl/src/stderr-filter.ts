/**
 * Keeping given lines that native code prints off the process's stderr.
 *
 * Dawn writes its notices straight to file descriptor 2, past Node's `process.stderr`. To catch
 * them, fd 2 is pointed at a temporary file for the length of one synchronous call (with libc's
 * dup/dup2, reached through koffi), and afterwards every line that the filter does not match is
 * written to the real stderr, so nothing else is lost. This needs koffi (an optional peer
 * dependency, the one the OpenCL device uses); without it, or off Linux and macOS, the call runs
 * unfiltered and the lines show.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const STDERR = 2;

interface Descriptors {
  dup(fd: number): number;
  dup2(fd: number, to: number): number;
  close(fd: number): number;
}

let descriptors: Descriptors | null | undefined;

/** `call()`, with the stderr lines it prints that match `unwanted` dropped (all kept when `unwanted` is undefined). */
export function withStderrFiltered<T>(call: () => T, unwanted: RegExp | undefined): T {
  const libc = unwanted && libcDescriptors();
  if (!libc) return call();
  const directory = mkdtempSync(path.join(tmpdir(), 'loom-stderr-'));
  const file = path.join(directory, 'stderr');
  const capture = openSync(file, 'w');
  const saved = libc.dup(STDERR);
  const redirected = saved >= 0 && libc.dup2(capture, STDERR) >= 0;
  try {
    return call();
  } finally {
    if (redirected) libc.dup2(saved, STDERR);
    if (saved >= 0) libc.close(saved);
    closeSync(capture);
    const printed = readFileSync(file, 'utf8');
    rmSync(directory, { recursive: true, force: true });
    const kept = printed
      .split(/(?<=\n)/)
      .filter((line) => !unwanted.test(line.trimEnd()))
      .join('');
    if (kept) writeSync(STDERR, kept);
  }
}

/** libc's descriptor calls through koffi, or null where koffi or libc cannot be loaded. */
function libcDescriptors(): Descriptors | null {
  if (descriptors !== undefined) return descriptors;
  descriptors = null;
  const library = { linux: 'libc.so.6', darwin: 'libSystem.B.dylib' }[process.platform as string];
  if (!library) return descriptors;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as KoffiLike;
    const libc = koffi.load(library);
    descriptors = {
      dup: libc.func('int dup(int)'),
      dup2: libc.func('int dup2(int, int)'),
      close: libc.func('int close(int)'),
    };
  } catch {
    // no koffi, or not glibc: Dawn's notices show
  }
  return descriptors;
}

/** The little of koffi used here (its own types are not needed: koffi is optional). */
interface KoffiLike {
  load(library: string): { func(prototype: string): (...args: number[]) => number };
}
