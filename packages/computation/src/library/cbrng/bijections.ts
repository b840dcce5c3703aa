/**
 * The bijections of counter-based random numbers (Salmon et al., SC'11; Random123; Reikna's
 * `cbrng.bijections`): Philox (few rounds of multiplications, `mul_hi`) and Threefry (many
 * rounds of additions, rotations and xors), on 2 or 4 words of 32 or 64 bits, with Random123's
 * constants. A bijection is Loom kernel text: instructions over the word dtype, one value per
 * round and word (core's `random123Rounds`, which loopy's `philox4x32_f32`-style kernel
 * functions share), which runs on every target that has the word dtype (WebGPU has no 64-bit
 * integer and says so before anything runs).
 *
 *   const b = philox(64, 4);                       // Philox-4x64-10
 *   const { code, output } = b.instructions(['k0', 'k1'], ['c0', 'c1', 'c2', 'c3'], 'ph');
 */
import { LoomError, random123KeyWords, random123Rounds } from '@loom/core';
import { checkShape, wordDtype, type WordDtype } from './words.ts';

/** A counter-based bijection: key and counter words to as many output words as the counter has. */
export interface Bijection {
  /** `'philox'` or `'threefry'`. */
  readonly name: 'philox' | 'threefry';
  /** The bits of a word: 32 or 64. */
  readonly bits: 32 | 64;
  /** The words of a counter (and of the output): 2 or 4. */
  readonly words: 2 | 4;
  /** The words of a key: half the counter's for Philox, as many for Threefry. */
  readonly keyWords: number;
  /** The rounds. */
  readonly rounds: number;
  /** The dtype of a word. */
  readonly wordDtype: WordDtype;
  /**
   * Loom instructions computing the output from `key` and `counter` (expressions of the word
   * dtype, one per word): the text, and the names of the output words. Every temporary it makes
   * starts with `prefix`.
   */
  instructions(
    key: readonly string[],
    counter: readonly string[],
    prefix: string,
  ): { readonly code: string; readonly output: readonly string[] };
}

/**
 * Philox-`words`x`bits` (Reikna's `philox(bitness, counter_words, rounds)`): `rounds` from 1 to
 * 12, 10 by default (Random123's).
 */
export function philox(bits: 32 | 64, words: 2 | 4, options: { readonly rounds?: number } = {}): Bijection {
  checkShape('philox', bits, words);
  return bijection('philox', bits, words, checkRounds('philox', options, 10, 12));
}

/**
 * Threefry-`words`x`bits` (Reikna's `threefry(bitness, counter_words, rounds)`): `rounds` from 1
 * to 72, 20 by default (Random123's).
 */
export function threefry(bits: 32 | 64, words: 2 | 4, options: { readonly rounds?: number } = {}): Bijection {
  checkShape('threefry', bits, words);
  return bijection('threefry', bits, words, checkRounds('threefry', options, 20, 72));
}

function bijection(name: 'philox' | 'threefry', bits: 32 | 64, words: 2 | 4, rounds: number): Bijection {
  const spec = { name, bits, words, rounds } as const;
  return Object.freeze({
    ...spec,
    keyWords: random123KeyWords(spec),
    wordDtype: wordDtype(bits),
    instructions(key: readonly string[], counter: readonly string[], prefix: string) {
      const { assignments, output } = random123Rounds(spec, key, counter, prefix);
      return { code: assignments.map((a) => `<${a.dtype}> ${a.name} = ${a.value}`).join('\n'), output };
    },
  });
}

function checkRounds(what: string, options: { readonly rounds?: number }, byDefault: number, most: number): number {
  if (typeof options !== 'object' || options === null) throw new LoomError(`${what}: options must be { rounds? }`);
  for (const k of Object.keys(options))
    if (k !== 'rounds') throw new LoomError(`${what}: unknown option '${k}' (known: rounds)`);
  const rounds = options.rounds ?? byDefault;
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > most)
    throw new LoomError(`${what}: rounds must be an integer from 1 to ${most}, got ${rounds}`);
  return rounds;
}
