/**
 * Deep immutability for kernels. `run` and code generation cache by kernel identity, so a
 * kernel must never change after it is made: not its top object (frozen by the class),
 * nor the arrays, maps and records inside it. The constructor of `LoopKernel` hands every
 * field through `frozenField`:
 *
 *  - arrays and records (instructions, arguments, temporaries, their shapes and tags) are
 *    frozen in place, deeply; what is frozen already (expression nodes, sets, anything an
 *    earlier kernel shared) stops the walk, so a transformation pays only for what it built;
 *  - maps become a `FrozenMap`, a copy whose mutators throw as a frozen array's do (a Map's
 *    entries live in internal slots that `Object.freeze` cannot reach). A `FrozenMap` passes
 *    through unchanged, so `knl.with({...})` copies only the maps it replaces.
 *
 * The types say the same (`readonly` arrays and records, `ReadonlyMap`): the checks here
 * stop what the types cannot, a cast or plain JavaScript.
 */

/** A Map whose entries are fixed at construction: `set`, `delete` and `clear` throw a TypeError. */
export class FrozenMap<K, V> extends Map<K, V> {
  constructor(entries: Iterable<readonly [K, V]> = []) {
    // entries go in through Map's own `set`: this class's `set` refuses from the start
    super();
    for (const [key, value] of entries) super.set(key, value);
    Object.freeze(this);
  }

  override set(key: K): never {
    throw new TypeError(
      `cannot set '${String(key)}': the map belongs to a kernel, which is immutable (make a new one with kernel.with)`,
    );
  }

  override delete(key: K): never {
    throw new TypeError(
      `cannot delete '${String(key)}': the map belongs to a kernel, which is immutable (make a new one with kernel.with)`,
    );
  }

  override clear(): never {
    throw new TypeError(
      'cannot clear the map: it belongs to a kernel, which is immutable (make a new one with kernel.with)',
    );
  }
}

/** `value` made immutable all the way down: maps as `FrozenMap`s (with frozen values), the rest frozen in place. */
export function frozenField<T>(value: T): T {
  if (value instanceof Map) {
    if (value instanceof FrozenMap) return value;
    return new FrozenMap([...value].map(([k, v]) => [k, deepFreeze(v)] as const)) as unknown as T;
  }
  return deepFreeze(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
