/**
 * The bijections of counter-based random numbers (Salmon et al., SC'11; Random123; Reikna's
 * `cbrng.bijections`): Philox (few rounds of multiplications, `mul_hi`) and Threefry (many
 * rounds of additions, rotations and xors), on 2 or 4 words of 32 or 64 bits, with Random123's
 * constants. A bijection is Loom kernel text: instructions over the word dtype, one value per
 * round and word (each read only by the next round, so every target schedules them as they
 * come), which runs on every target that has the word dtype (WebGPU has no 64-bit integer and
 * says so before anything runs).
 *
 *   const b = philox(64, 4);                       // Philox-4x64-10
 *   const { code, output } = b.instructions(['k0', 'k1'], ['c0', 'c1', 'c2', 'c3'], 'ph');
 */
import { LoomError } from '@loom/core';
import { checkShape, wordConstant, wordDtype, type WordDtype } from './words.ts';

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

const PHILOX_W: Readonly<Record<32 | 64, readonly [bigint, bigint]>> = {
  // the golden ratio and sqrt(3) - 1, as fractions of 2^bits (Weyl sequences of the key)
  32: [0x9e3779b9n, 0xbb67ae85n],
  64: [0x9e3779b97f4a7c15n, 0xbb67ae8584caa73bn],
};
const PHILOX_M: Readonly<Record<string, readonly bigint[]>> = {
  '32x2': [0xd256d193n],
  '32x4': [0xd2511f53n, 0xcd9e8d57n],
  '64x2': [0xd2b74407b1ce6e93n],
  '64x4': [0xd2e7470ee14c6c93n, 0xca5a826395121157n],
};

/**
 * Philox-`words`x`bits` (Reikna's `philox(bitness, counter_words, rounds)`): `rounds` from 1 to
 * 12, 10 by default (Random123's).
 */
export function philox(bits: 32 | 64, words: 2 | 4, options: { readonly rounds?: number } = {}): Bijection {
  checkShape('philox', bits, words);
  const rounds = checkRounds('philox', options, 10, 12);
  const t = wordDtype(bits);
  const [m0, m1] = PHILOX_M[`${bits}x${words}`].map((m) => wordConstant(m, t));
  const keyWords = words / 2;
  return Object.freeze({
    name: 'philox' as const,
    bits,
    words,
    keyWords,
    rounds,
    wordDtype: t,
    instructions(key: readonly string[], counter: readonly string[], prefix: string) {
      checkWords('philox', key, keyWords, counter, words);
      const lines: string[] = [];
      let x = [...counter];
      for (let r = 0; r < rounds; r++) {
        // the key of round r is the key plus r steps of its Weyl sequence
        const k = key.map((kw, i) => (r === 0 ? kw : `(${kw} + ${wordConstant(BigInt(r) * PHILOX_W[bits][i], t)})`));
        const v = Array.from({ length: words }, (_, w) => `${prefix}_r${r}_${w}`);
        const values =
          words === 2
            ? [`mul_hi(${m0}, ${x[0]}) ^ ${k[0]} ^ ${x[1]}`, `${m0} * ${x[0]}`]
            : [
                `mul_hi(${m1}, ${x[2]}) ^ ${x[1]} ^ ${k[0]}`,
                `${m1} * ${x[2]}`,
                `mul_hi(${m0}, ${x[0]}) ^ ${x[3]} ^ ${k[1]}`,
                `${m0} * ${x[0]}`,
              ];
        values.forEach((value, w) => lines.push(`<${t}> ${v[w]} = ${value}`));
        x = v;
      }
      return { code: lines.join('\n'), output: x };
    },
  });
}

const THREEFRY_R: Readonly<Record<string, readonly (readonly number[])[]>> = {
  // Threefish's R_256 (4x64) and the rotations Random123 searched for the other shapes
  '64x4': [
    [14, 52, 23, 5, 25, 46, 58, 32],
    [16, 57, 40, 37, 33, 12, 22, 32],
  ],
  '64x2': [[16, 42, 12, 31, 16, 32, 24, 21]],
  '32x4': [
    [10, 11, 13, 23, 6, 17, 25, 18],
    [26, 21, 27, 5, 20, 11, 10, 20],
  ],
  '32x2': [[13, 15, 26, 6, 17, 29, 16, 24]],
};
/** Skein's key-schedule parity constant. */
const PARITY: Readonly<Record<32 | 64, bigint>> = { 32: 0x1bd11bdan, 64: 0x1bd11bdaa9fc1a22n };

/**
 * Threefry-`words`x`bits` (Reikna's `threefry(bitness, counter_words, rounds)`): `rounds` from 1
 * to 72, 20 by default (Random123's).
 */
export function threefry(bits: 32 | 64, words: 2 | 4, options: { readonly rounds?: number } = {}): Bijection {
  checkShape('threefry', bits, words);
  const rounds = checkRounds('threefry', options, 20, 72);
  const t = wordDtype(bits);
  const rotations = THREEFRY_R[`${bits}x${words}`];
  return Object.freeze({
    name: 'threefry' as const,
    bits,
    words,
    keyWords: words,
    rounds,
    wordDtype: t,
    instructions(key: readonly string[], counter: readonly string[], prefix: string) {
      checkWords('threefry', key, words, counter, words);
      const ks = Array.from({ length: words + 1 }, (_, i) => `${prefix}_ks${i}`);
      const lines = key.map((k, i) => `<${t}> ${ks[i]} = ${k}`);
      lines.push(`<${t}> ${ks[words]} = ${[wordConstant(PARITY[bits], t), ...ks.slice(0, words)].join(' ^ ')}`);
      const init = Array.from({ length: words }, (_, w) => `${prefix}_x${w}`);
      counter.forEach((c, w) => lines.push(`<${t}> ${init[w]} = ${c} + ${ks[w]}`));
      let x = init;
      for (let r = 0; r < rounds; r++) {
        // the pairs mixed in this round: (a, b) becomes (a + b, rotl(b) ^ (a + b))
        const pairs: [number, number, number][] =
          words === 2
            ? [[0, 1, rotations[0][r % 8]]]
            : [
                [0, r % 2 === 0 ? 1 : 3, rotations[0][r % 8]],
                [2, r % 2 === 0 ? 3 : 1, rotations[1][r % 8]],
              ];
        const next = [...x];
        for (const [a, b, s] of pairs) {
          next[a] = `(${x[a]} + ${x[b]})`;
          next[b] = `(rotate(${x[b]}, ${s}) ^ ${next[a]})`;
        }
        if (r % 4 === 3) {
          // the key injection after every fourth round
          const j = Math.floor(r / 4) + 1;
          for (let w = 0; w < words; w++) next[w] = `${next[w]} + ${ks[(j + w) % (words + 1)]}`;
          next[words - 1] = `${next[words - 1]} + ${wordConstant(BigInt(j), t)}`;
        }
        const v = Array.from({ length: words }, (_, w) => `${prefix}_r${r}_${w}`);
        next.forEach((value, w) => lines.push(`<${t}> ${v[w]} = ${value}`));
        x = v;
      }
      return { code: lines.join('\n'), output: x };
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

function checkWords(what: string, key: readonly string[], keyWords: number, counter: readonly string[], words: number) {
  if (key.length !== keyWords || counter.length !== words)
    throw new LoomError(
      `${what}: expected ${keyWords} key words and ${words} counter words, got ${key.length} and ${counter.length}`,
    );
}
