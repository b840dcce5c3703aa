/**
 * `ToCountMap`: counts by key (`Op`, `MemAccess`, `Sync`), as `getOpMap` and friends give
 * them, with loopy's ways of slicing them:
 *
 *   opMap.get(new Op({ dtype: 'float32', name: 'add', countGranularity: 'subgroup', kernelName: 'k' })).evalWithDict(params)
 *   opMap.filterBy({ dtype: ['float32'] }).evalAndSum(params)        // keep keys with these field values
 *   opMap.groupBy('dtype').get({ dtype: 'float32' })                  // keys reduced to some fields, counts added
 *   memMap.toBytes()                                                  // counts times the dtype's size
 *
 * Immutable: every method returns a new map.
 */
import { byteSize, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { ParamValues } from '../sets/pw-qpolynomial.ts';
import type { GuardedPwQPolynomial } from './guarded.ts';
import { canonicalField, type CountKey } from './keys.ts';

/** How to make keys of one kind from their fields (`Op`, `MemAccess`, `Sync`). */
export interface KeyKind<K extends CountKey, F> {
  /** The fields of a key, in the order loopy prints them. */
  readonly fields: readonly (keyof F & string)[];
  /** A key of this kind from its fields (fields left out are None, as in loopy). */
  make(fields: F): K;
}

/** Per field, the values to keep: one value or a list of them. */
export type FieldFilter<F> = { readonly [P in keyof F]?: F[P] | readonly F[P][] };

/** Counts by key (loopy's `ToCountMap`): each a `GuardedPwQPolynomial` of the kernel's parameters. */
export class ToCountMap<K extends CountKey, F extends object> implements Iterable<readonly [K, GuardedPwQPolynomial]> {
  private readonly byId: ReadonlyMap<string, readonly [K, GuardedPwQPolynomial]>;

  constructor(
    private readonly kind: KeyKind<K, F>,
    entries: Iterable<readonly [K, GuardedPwQPolynomial]>,
    /** The count of nothing: the sum of an empty map. */
    private readonly zero: GuardedPwQPolynomial,
  ) {
    const byId = new Map<string, readonly [K, GuardedPwQPolynomial]>();
    for (const [key, count] of entries) {
      const had = byId.get(key.id);
      byId.set(key.id, [had ? had[0] : key, had ? had[1].add(count) : count]);
    }
    this.byId = byId;
    Object.freeze(this);
  }

  /** The number of distinct keys. */
  get size(): number {
    return this.byId.size;
  }

  /** The keys, in the order they were first met. */
  keys(): K[] {
    return [...this.byId.values()].map(([k]) => k);
  }

  /** The counts, in the order of `keys()`. */
  values(): GuardedPwQPolynomial[] {
    return [...this.byId.values()].map(([, v]) => v);
  }

  /** The `[key, count]` entries, in the order of `keys()`. */
  [Symbol.iterator](): Iterator<readonly [K, GuardedPwQPolynomial]> {
    return this.byId.values();
  }

  /** Whether the map has a count for exactly this key (a key or its fields; fields left out are None). */
  has(key: K | F): boolean {
    return this.byId.has(this.keyOf(key).id);
  }

  /** The count of exactly this key (fields left out are None, as `groupBy` leaves them); a LoomError when absent. */
  get(key: K | F): GuardedPwQPolynomial {
    const k = this.keyOf(key);
    const found = this.byId.get(k.id);
    if (!found) {
      const present = this.keys().map(String).sort();
      throw new LoomError(
        `no count for ${k.toString()}; the map has ${present.length === 0 ? 'no keys' : `the keys:\n  ${present.join('\n  ')}`}`,
      );
    }
    return found[1];
  }

  /** Both maps' counts, added where the keys are equal. */
  add(other: ToCountMap<K, F>): ToCountMap<K, F> {
    return this.with([...this, ...other]);
  }

  /** The same counts with some fields of every key replaced (loopy's `with_set_attributes`). */
  withFields(changes: F): ToCountMap<K, F> {
    return this.with(
      [...this].map(([k, v]) => [this.kind.make({ ...fieldsOf(k, this.kind.fields), ...changes } as F), v] as const),
    );
  }

  /** The entries whose keys have, in each field named, one of the values given (a field keys do not have matches nothing). */
  filterBy(filter: FieldFilter<F>): ToCountMap<K, F> {
    const wanted = Object.entries(filter).map(([field, allowed]) => {
      const list: unknown[] = Array.isArray(allowed) ? allowed : [allowed];
      return {
        field,
        known: (this.kind.fields as readonly string[]).includes(field),
        values: new Set(list.map((v) => canonicalField(field, v))),
      };
    });
    return this.with(
      [...this].filter(([k]) =>
        wanted.every((w) => w.known && w.values.has(canonicalField(w.field, (k as Record<string, unknown>)[w.field]))),
      ),
    );
  }

  /** The entries whose keys pass `test`. */
  filterByFunc(test: (key: K) => boolean): ToCountMap<K, F> {
    return this.with([...this].filter(([k]) => test(k)));
  }

  /** Keys reduced to the named fields (the others None), counts of keys that become equal added. */
  groupBy(...fields: (keyof F & string)[]): ToCountMap<K, F> {
    for (const f of fields)
      if (!this.kind.fields.includes(f))
        throw new LoomError(`groupBy: '${f}' is not a field of the keys (${this.kind.fields.join(', ')})`);
    return this.with([...this].map(([k, v]) => [this.kind.make(fieldsOf(k, fields) as F), v] as const));
  }

  /** Counts in bytes: each times the size of its key's dtype. */
  toBytes(): ToCountMap<K, F> {
    return this.with(
      [...this].map(([k, v]) => {
        const dtype = (k as { dtype?: DType }).dtype;
        if (dtype === undefined) throw new LoomError(`toBytes: ${k.toString()} has no dtype`);
        return [k, v.scale(byteSize(dtype))] as const;
      }),
    );
  }

  /** The sum of all counts. */
  sum(): GuardedPwQPolynomial {
    return this.values().reduce((a, b) => a.add(b), this.zero);
  }

  /** The sum of all counts at these parameter values. */
  evalAndSum(params: ParamValues = {}): number {
    return this.sum().evalWithDict(params);
  }

  /** One line per key, `KEY: COUNT`, sorted by the key's text (as loopy prints). */
  toString(): string {
    return [...this]
      .map(([k, v]) => ({ key: k.toString(), v }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ key, v }) => `${key}: ${v.toString()}`)
      .join('\n');
  }

  private with(entries: Iterable<readonly [K, GuardedPwQPolynomial]>): ToCountMap<K, F> {
    return new ToCountMap(this.kind, entries, this.zero);
  }

  private keyOf(key: K | F): K {
    return typeof (key as CountKey).id === 'string' ? (key as K) : this.kind.make(key as F);
  }
}

function fieldsOf(key: object, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = (key as Record<string, unknown>)[f];
  return out;
}
