/**
 * A tuning cache on disk: the best configuration of each tuning problem on each device,
 * in `$LOOM_CACHE_DIR/autotune.json` (default `~/.cache/loom/`), so that a program tunes
 * once per machine and later runs start from the result.
 *
 * Every entry read is checked (cache/cache-file.ts): a malformed one is ignored with a
 * warning and searched again, never trusted (a `"seconds": "evil"` is no time).
 */
import path from 'node:path';
import type { TunedEntry, TuningCache } from '@loom/core';
import { cacheDir, isJsonObject, readCacheFile, updateCacheFile, warnCache } from '../cache/cache-file.ts';

/** The tuning cache's file: `autotune.json` in `$LOOM_CACHE_DIR` (default `~/.cache/loom/`). */
export function defaultTuningCacheFile(): string {
  return path.join(cacheDir(), 'autotune.json');
}

/** `{ [problem]: { [device]: entry } }`, read into Maps, keeping only the entries that check. */
type Entries = Map<string, Map<string, TunedEntry>>;

/** The tuning cache kept in `file`; a write that fails is a LoomError naming the file. */
export function fileTuningCache(file: string = defaultTuningCacheFile()): TuningCache {
  return {
    get: (problem, device) => read(file).get(problem)?.get(device),
    // added to what the file holds when it is written (other processes may have added entries), under its lock
    set: (problem, device, entry) =>
      updateCacheFile(file, (all) => {
        const old = all.get(problem);
        const byDevice = new Map<string, unknown>(isJsonObject(old) ? Object.entries(old) : []);
        byDevice.set(device, entry);
        // Object.fromEntries: a device named `__proto__` is a key like any other
        all.set(problem, Object.fromEntries(byDevice));
      }),
  };
}

function read(file: string): Entries {
  const all: Entries = new Map();
  for (const [problem, devices] of readCacheFile(file)) {
    if (!isJsonObject(devices)) {
      warnCache(file, `the problem '${problem}' is not an object of entries by device; ignored`);
      continue;
    }
    const byDevice = new Map<string, TunedEntry>();
    for (const [device, entry] of Object.entries(devices)) {
      const wrong = whatIsWrong(entry);
      if (wrong) warnCache(file, `the entry of '${problem}' on '${device}' is ignored: ${wrong}`);
      else byDevice.set(device, entry as TunedEntry);
    }
    if (byDevice.size) all.set(problem, byDevice);
  }
  return all;
}

/** Why `entry` is no TunedEntry, or undefined when it is one. */
function whatIsWrong(entry: unknown): string | undefined {
  if (!isJsonObject(entry)) return 'it is not an object';
  if (!('config' in entry) || entry.config === undefined) return 'it has no config';
  const { seconds, tried, measuredAt } = entry;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
    return `"seconds" is ${JSON.stringify(seconds)}, not a number of seconds`;
  if (typeof tried !== 'number' || !Number.isInteger(tried) || tried < 1)
    return `"tried" is ${JSON.stringify(tried)}, not a positive integer`;
  if (typeof measuredAt !== 'string' || Number.isNaN(Date.parse(measuredAt)))
    return `"measuredAt" is ${JSON.stringify(measuredAt)}, not a date`;
  return undefined;
}
