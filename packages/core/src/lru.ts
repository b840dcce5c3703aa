/**
 * `LruCache`: the one bounded cache every Loom cache is built on (compiled programs,
 * pipelines, launch plans, bounds checks, pointwise variants...); memo.ts says when a
 * cache is an LRU and when it lives with an object instead.
 *
 * Caches keyed by generated code or call signatures grow with every distinct kernel a
 * program makes; without a bound, a long-running process that makes kernels from data
 * (a constant per call, a shape per tensor) holds every one of them, with its native
 * program or pipeline, forever. An LRU keeps the recently used ones and drops the rest.
 *
 * A JavaScript `Map` iterates in insertion order, so re-inserting a key on each hit
 * keeps the least recently used entry first: eviction takes `keys().next()`. A hit costs
 * a delete and a set (nothing when it is the newest entry already), and allocates nothing.
 */
import { LoomError } from './errors.ts';

/** How many entries a Loom cache keeps unless told otherwise (`setDefaultCacheSize`). */
let defaultCacheSize = 256;

/** The size new caches get by default. */
export function getDefaultCacheSize(): number {
  return defaultCacheSize;
}

/**
 * Sets the size caches made from now on get by default (devices made later, kernels'
 * per-call caches created later). Existing caches keep theirs: resize them through
 * their owner (e.g. a device's `cacheSize` option).
 */
export function setDefaultCacheSize(size: number): void {
  defaultCacheSize = checkCapacity(size);
}

/** A map that keeps at most `capacity` entries, dropping the least recently used. */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;
  readonly #onEvict: ((value: V, key: K) => void) | undefined;
  /** The most recently used key while it is cached (undefined otherwise): hits on it reorder nothing. */
  #newest: K | undefined;

  /**
   * @param capacity the most entries kept (at least 1)
   * @param onEvict called with each entry dropped to make room (not for `delete` or `clear`):
   *   where a native resource must be released, or handed to a finalizer
   */
  constructor(capacity: number = defaultCacheSize, onEvict?: (value: V, key: K) => void) {
    this.#capacity = checkCapacity(capacity);
    this.#onEvict = onEvict;
  }

  /** The most entries the cache keeps. */
  get capacity(): number {
    return this.#capacity;
  }

  /** How many entries it holds now. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value for `key`, which becomes the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // a loop of identical calls hits the newest entry every time: nothing to reorder
    if (key === this.#newest) return value;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    return value;
  }

  /** Whether `key` is cached; a hit counts as a use, as `get` does. */
  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** The value for `key`, computed by `compute` and stored when absent: the memo every Loom cache uses. */
  memo(key: K, compute: (key: K) => V): V {
    let value = this.get(key);
    if (value === undefined) this.set(key, (value = compute(key)));
    return value;
  }

  /** Stores `value` as the most recently used, dropping the least recently used entries beyond the capacity. */
  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    while (this.#entries.size > this.#capacity) {
      const [oldestKey, oldest] = this.#entries.entries().next().value as [K, V];
      this.#entries.delete(oldestKey);
      this.#onEvict?.(oldest, oldestKey);
    }
    return this;
  }

  /** Forgets `key` (without calling `onEvict`); whether it was cached. */
  delete(key: K): boolean {
    if (key === this.#newest) this.#newest = undefined;
    return this.#entries.delete(key);
  }

  /** Forgets every entry (the owner releases what they hold first, if anything: see `values`). */
  clear(): void {
    this.#newest = undefined;
    this.#entries.clear();
  }

  /** The cached values, least recently used first (a use does not change while iterating). */
  values(): IterableIterator<V> {
    return this.#entries.values();
  }
}

/** The caches of texts a user wrote (sets, instructions), which `forgetParsedTexts` empties. */
const parsedTextCaches: LruCache<string, unknown>[] = [];

/**
 * A cache of what was parsed from a user's text: a kernel built again from the same strings
 * skips the parser, and shares the parsed sets, whose per-object answers (memo.ts) then
 * come along too.
 */
export function parsedTextCache<V>(capacity: number): LruCache<string, V> {
  const cache = new LruCache<string, V>(capacity);
  parsedTextCaches.push(cache as LruCache<string, unknown>);
  return cache;
}

/**
 * Forgets every set and instruction text parsed so far: the next kernel is parsed afresh, as
 * a kernel whose text differs would be. For memory, and for timing code generation as a new
 * kernel meets it (bench/codegen.ts calls it before each sample). The caches of integer-set
 * answers (sets/canonical.ts), keyed on constraint systems rather than texts, stay.
 */
export function forgetParsedTexts(): void {
  for (const cache of parsedTextCaches) cache.clear();
}

function checkCapacity(size: number): number {
  if (!Number.isSafeInteger(size) || size < 1)
    throw new LoomError(`a cache size must be a whole number of at least 1, got ${size}`);
  return size;
}
