/**
 * `@loom/dsl/tune`: the tuning cache on disk, for programs that call `autotune` from
 * `@loom/core` themselves (Node only; `loom tune` uses the same file).
 *
 * @module @loom/dsl/tune
 */
export { fileTuningCache, defaultTuningCacheFile } from './file-cache.ts';
