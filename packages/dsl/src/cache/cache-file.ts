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
 * file is removed and the failure is a LoomError that names the file.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** Writes `entries` to `file` as a JSON object, whole or not at all, leaving no temporary file. */
export function writeCacheFile(file: string, entries: ReadonlyMap<string, unknown>): void {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    // Object.fromEntries defines each key as an own property, `__proto__` included
    writeFileSync(partial, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
    renameSync(partial, file);
  } catch (e) {
    rmSync(partial, { force: true });
    throw new LoomError(`cannot write the cache ${file}: ${(e as Error).message}`);
  }
}

/** `value` when it is a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
