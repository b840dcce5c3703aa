/**
 * A tuning cache on disk: the best configuration of each tuning problem on each device,
 * in `$LOOM_CACHE_DIR/autotune.json` (default `~/.cache/loom/`), so that a program tunes
 * once per machine and later runs start from the result.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { TunedEntry, TuningCache } from '@loom/core';

/** `{ [problem]: { [device]: entry } }` */
type CacheFile = Record<string, Record<string, TunedEntry>>;

export function defaultTuningCacheFile(): string {
  return path.join(process.env.LOOM_CACHE_DIR || path.join(homedir(), '.cache', 'loom'), 'autotune.json');
}

export function fileTuningCache(file: string = defaultTuningCacheFile()): TuningCache {
  return {
    get: (problem, device) => read(file)[problem]?.[device],
    set: (problem, device, entry) => {
      const all = read(file);
      all[problem] = { ...all[problem], [device]: entry };
      mkdirSync(path.dirname(file), { recursive: true });
      // written whole then renamed: a reader never sees half a file
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, `${JSON.stringify(all, null, 2)}\n`);
      renameSync(partial, file);
    },
  };
}

function read(file: string): CacheFile {
  if (!existsSync(file)) return {};
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as CacheFile) : {};
  } catch {
    return {}; // a broken cache is searched again, and rewritten
  }
}
