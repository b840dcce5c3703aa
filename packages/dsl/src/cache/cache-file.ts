/**
 * The files Loom keeps in `$LOOM_CACHE_DIR` (default `~/.cache/loom/`): `device-profiles.json`
 * (stats/profiles.ts) and `autotune.json` (tune/file-cache.ts), each one JSON object of entries
 * by name.
 *
 * A cache is only a shortcut, and anyone may have edited it: nothing read from one is trusted.
 * A file that cannot be read or is not a JSON object counts as empty, and each entry is
 * checked by the caller; what is dropped is said in a warning, and is measured again and
 * rewritten. Entries are held in Maps, never as keys of a plain object, so that a name such
 * as `__proto__` or `constructor` is a name like any other. A file is written whole under a
 * temporary name, then renamed (a reader never sees half of it); if that fails the temporary
 * file is removed and the failure is a LoomError that names the file. An entry is added by
 * `updateCacheFile`, which reads, changes and writes the file holding a lock beside it
 * (`<file>.lock`), so that processes adding entries at once keep each other's.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { LoomError, LoomWarning, reportWarning } from '@loom/core';

/** The folder of Loom's caches: `$LOOM_CACHE_DIR`, else `~/.cache/loom`. */
export function cacheDir(): string {
  return process.env.LOOM_CACHE_DIR || path.join(homedir(), '.cache', 'loom');
}

/** Reports a problem with a cache file (the entry or file is ignored, not trusted). */
export function warnCache(file: string, message: string): void {
  reportWarning(new LoomWarning(`the cache ${file}: ${message}`, 'LoomCacheWarning'));
}

/** The entries of the JSON object in `file` (none when there is no file); what cannot be read is a warning and no entries. */
export function readCacheFile(file: string): Map<string, unknown> {
  let text: string;
  try {
    if (!statSync(file, { throwIfNoEntry: false })) return new Map();
    text = readFileSync(file, 'utf8');
  } catch (e) {
    warnCache(file, `cannot be read (${(e as Error).message}); it is ignored`);
    return new Map();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    warnCache(file, `is not JSON (${(e as Error).message}); it is ignored, and rewritten`);
    return new Map();
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    warnCache(
      file,
      `is not a JSON object of entries by name (it is ${json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json}); it is ignored, and rewritten`,
    );
    return new Map();
  }
  return new Map(Object.entries(json));
}

/** Writes `entries` to `file` (its folder made by `updateCacheFile`) as a JSON object, whole or not at all, leaving no temporary file. */
function writeCacheFile(file: string, entries: ReadonlyMap<string, unknown>): void {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    // Object.fromEntries defines each key as an own property, `__proto__` included
    writeFileSync(partial, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
    renameSync(partial, file);
  } catch (e) {
    rmSync(partial, { force: true });
    throw new LoomError(`cannot write the cache ${file}: ${(e as Error).message}`);
  }
}

/** How long a process waits for another's lock on a cache file, and after how long a lock counts as abandoned. */
const LOCK_WAIT_MS = 10_000;
const LOCK_ABANDONED_MS = 2_000;

/**
 * Reads the entries of `file`, lets `update` change them and writes them back, all while holding
 * the file's lock: several processes tuning at once (a test runner's workers, a fleet's jobs) each
 * add their entries to what the others wrote, where reading and writing unlocked lost some. A lock
 * older than LOCK_ABANDONED_MS (its process died between reading and writing, which takes
 * milliseconds) is taken over; one held longer than LOCK_WAIT_MS is a LoomError naming the file.
 */
export function updateCacheFile(file: string, update: (entries: Map<string, unknown>) => void): void {
  const lock = `${file}.lock`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
  } catch (e) {
    throw new LoomError(`cannot write the cache ${file}: ${(e as Error).message}`);
  }
  acquire(lock, file);
  try {
    const entries = readCacheFile(file);
    update(entries);
    writeCacheFile(file, entries);
  } finally {
    rmSync(lock, { force: true });
  }
}

function acquire(lock: string, file: string): void {
  const deadline = Date.now() + LOCK_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new LoomError(`cannot lock the cache ${file}: ${(e as Error).message}`);
    }
    const held = statSync(lock, { throwIfNoEntry: false });
    if (held && Date.now() - held.mtimeMs > LOCK_ABANDONED_MS) {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new LoomError(`the cache ${file} stayed locked by another process (${lock}) for ${LOCK_WAIT_MS / 1000} s`);
    // a few milliseconds, a little different in each process, so that waiters do not retry in step
    Atomics.wait(pause, 0, 0, 2 + Math.random() * 8);
  }
}

/** `value` when it is a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
