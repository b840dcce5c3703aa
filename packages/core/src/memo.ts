/**
 * How every Loom cache holds on to what it computed. There are two policies, and one
 * helper for each; no module keeps a Map or WeakMap of its own:
 *
 *  - `perObject(make)`: one value per live object (a kernel, a device, a domain list, a
 *    template's strings, a GPU buffer), made on first use and kept exactly as long as the
 *    object (a WeakMap). Loom's objects are immutable, so what was derived from one stays
 *    true, and the cache grows only with the objects alive: it needs no bound of its own.
 *  - `LruCache` (lru.ts): values under keys a program can make without end (a call
 *    signature, a set of dtypes, a shape, a file name): bounded, the least recently used
 *    dropped; `cache.memo(key, compute)` computes on a miss.
 *
 * (The integer-set algorithms' answer tables, asked thousands of times per kernel, are a
 * cheaper bounded table of their own: `AnswerCache`, sets/canonical.ts.)
 *
 * They compose: the variants compiled per device and kernel are
 * `perObject(device => perObject(kernel => new LruCache(16)))`.
 *
 * A memo that lives only as long as one piece of work (a printer's types, one build's
 * simplified nodes) is `perObjectWhile(make)`: it holds its keys strongly, in a plain Map,
 * which is several times cheaper to look up than a WeakMap and gives the garbage collector
 * no ephemerons to trace; it is dropped with the work that made it.
 */

/** `make(key)` for each object `key`, made once and kept while `key` lives. */
export function perObject<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const values = new WeakMap<K, V>();
  return (key) => {
    let value = values.get(key);
    if (value === undefined && !values.has(key)) values.set(key, (value = make(key)));
    return value as V;
  };
}

/**
 * `make(key)` for each object `key`, made once and kept as long as the returned function
 * (not as long as the keys: hold it only for one piece of work).
 */
export function perObjectWhile<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const values = new Map<K, V>();
  return (key) => {
    let value = values.get(key);
    if (value === undefined && !values.has(key)) values.set(key, (value = make(key)));
    return value as V;
  };
}
