/**
 * Keys for many generators at once (Reikna's `KeyGenerator`): a base key made from a seed, and
 * the key of generator `idx` is the base key with `idx` added to its last word. With
 * `reserveIdSpace` (the default) the seed fills only the words before the last 32 bits, so that
 * generators of different seeds never share a key.
 *
 *   const keys = keyGenerator(philox(64, 4), 123);
 *   keys.reference(5);          // the key words of generator 5, as bigints
 *   keys.expressions('idx');    // the same as Loom expressions of an int32 `idx`
 */
import { LoomError } from '@loom/core';
import type { Bijection } from './bijections.ts';
import { wordConstant } from './words.ts';

/** The keys of a bijection's generators (see the file's comment). */
export interface KeyGenerator {
  /** The bijection the keys are for. */
  readonly bijection: Bijection;
  /** The base key's words (generator 0's key). */
  readonly baseKey: readonly bigint[];
  /** The key words of generator `idx`, as bigints. */
  reference(idx: number): bigint[];
  /** The key words of generator `idx` (a non-negative int32 expression), as Loom expressions of the word dtype. */
  expressions(idx: string): string[];
}

/** What a seed may be: an integer, or the 32-bit words of the key's seeded part. */
export type Seed = number | bigint | Uint32Array | readonly number[];

/** The key generator of `bijection` from `seed` (random when left out). */
export function keyGenerator(
  bijection: Bijection,
  seed?: Seed,
  options: { readonly reserveIdSpace?: boolean } = {},
): KeyGenerator {
  for (const k of Object.keys(options))
    if (k !== 'reserveIdSpace') throw new LoomError(`keyGenerator: unknown option '${k}' (known: reserveIdSpace)`);
  const reserve = options.reserveIdSpace ?? true;
  const { keyWords, bits } = bijection;
  const perWord = bits / 32;
  let seeded: number;
  if (reserve) {
    if (keyWords === 1 && bits === 32)
      throw new LoomError(
        `keyGenerator: ${bijection.name}-${bijection.words}x32 has a 32-bit key, with no room for both a seed and a generator's index; pass reserveIdSpace: false`,
      );
    // the last 32 bits go to the index; Philox-2x64's one word keeps its high half for the seed
    seeded = bits === 32 ? keyWords - 1 : keyWords > 1 ? (keyWords - 1) * 2 : 1;
  } else seeded = keyWords * perWord;
  const words32 = seedWords(seed, seeded);
  const base = Array.from({ length: keyWords }, () => 0n);
  if (bits === 32) words32.forEach((w, i) => (base[i] = BigInt(w)));
  else words32.forEach((w, i) => (base[i >> 1] += BigInt(w) << (i % 2 === 0 ? 32n : 0n)));
  const mask = (1n << BigInt(bits)) - 1n;
  return Object.freeze({
    bijection,
    baseKey: Object.freeze(base),
    reference(idx: number): bigint[] {
      return base.map((w, i) => (i === keyWords - 1 ? (w + BigInt(idx)) & mask : w));
    },
    expressions(idx: string): string[] {
      return base.map((w, i) => {
        const c = wordConstant(w, bijection.wordDtype);
        return i === keyWords - 1 ? `(${c} + ${bijection.wordDtype}(${idx}))` : c;
      });
    },
  });
}

/** `count` 32-bit words from a seed: given as words, or drawn from an integer (SplitMix64), or at random. */
function seedWords(seed: Seed | undefined, count: number): number[] {
  if (seed instanceof Uint32Array || Array.isArray(seed)) {
    const words = Array.from(seed as ArrayLike<number>);
    if (words.length !== count || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffffffff))
      throw new LoomError(`keyGenerator: a seed given as words must be ${count} unsigned 32-bit integers`);
    return words;
  }
  let state: bigint;
  if (seed === undefined) {
    const r = new Uint32Array(2);
    globalThis.crypto.getRandomValues(r);
    state = (BigInt(r[0]) << 32n) | BigInt(r[1]);
  } else if (typeof seed === 'bigint' || (typeof seed === 'number' && Number.isInteger(seed))) {
    state = BigInt.asUintN(64, BigInt(seed));
  } else throw new LoomError(`keyGenerator: the seed must be an integer or an array of 32-bit words`);
  const words: number[] = [];
  for (let i = 0; i < count; i++) {
    // SplitMix64's step: any integer seed spreads over the words
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    words.push(Number((z ^ (z >> 31n)) >> 32n));
  }
  return words;
}
