/**
 * Random123's counter-based bijections (Salmon et al., SC'11), Philox and Threefry, as the
 * assignments of their rounds over words of 32 or 64 bits: one value per round and word,
 * written with `mul_hi` and `rotate` (core's math table), so that every target that has the
 * word dtype computes them. loopy's `philox4x32_f32(ctr, key)` functions (random123-calls.ts)
 * and @loom/computation's `philox`/`threefry` both write their rounds from here.
 */
import { LoomError } from '../errors.ts';

/** The dtype of a bijection's words. */
export type Random123Word = 'uint32' | 'uint64';

/** One assignment of a round: a new temporary of the word dtype, its value as expression text. */
export interface Random123Assignment {
  /** The temporary's name. */
  readonly name: string;
  /** Its dtype, the word dtype. */
  readonly dtype: Random123Word;
  /** Its value, expression text over the key, the counter and earlier assignments. */
  readonly value: string;
}

/** A bijection: its family, the bits of a word, the words of a counter, the rounds. */
export interface Random123Spec {
  /** Philox (multiplications) or Threefry (additions, rotations, xors). */
  readonly name: 'philox' | 'threefry';
  /** The bits of a word. */
  readonly bits: 32 | 64;
  /** The words of a counter and of the output. */
  readonly words: 2 | 4;
  /** The rounds. */
  readonly rounds: number;
}

/** The words of a bijection's key: half the counter's for Philox, as many for Threefry. */
export const random123KeyWords = (s: Random123Spec): number => (s.name === 'philox' ? s.words / 2 : s.words);

/** `value` (reduced modulo 2^bits) as an expression of `dtype`: a 64-bit constant past 2^53 from its halves. */
export function wordConstant(value: bigint, dtype: Random123Word): string {
  const bits = dtype === 'uint32' ? 32 : 64;
  const v = BigInt.asUintN(bits, value);
  if (v <= BigInt(Number.MAX_SAFE_INTEGER)) return `${dtype}(${v})`;
  return `((uint64(${v >> 32n}) << 32) | uint64(${v & 0xffffffffn}))`;
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
 * The rounds of bijection `s` of `counter` under `key` (expression text, one per word): the
 * assignments, each temporary named from `prefix`, and the names holding the output words.
 */
export function random123Rounds(
  s: Random123Spec,
  key: readonly string[],
  counter: readonly string[],
  prefix: string,
): { readonly assignments: readonly Random123Assignment[]; readonly output: readonly string[] } {
  const { name, bits, words, rounds } = s;
  if (key.length !== random123KeyWords(s) || counter.length !== words)
    throw new LoomError(
      `${name}: expected ${random123KeyWords(s)} key words and ${words} counter words, got ${key.length} and ${counter.length}`,
    );
  const t: Random123Word = bits === 32 ? 'uint32' : 'uint64';
  const out: Random123Assignment[] = [];
  const assign = (n: string, value: string) => out.push({ name: n, dtype: t, value });
  let x = [...counter];
  if (name === 'philox') {
    const [m0, m1] = PHILOX_M[`${bits}x${words}`].map((m) => wordConstant(m, t));
    for (let r = 0; r < rounds; r++) {
      // the key of round r is the key plus r steps of its Weyl sequence
      const k = key.map((kw, i) => (r === 0 ? kw : `(${kw} + ${wordConstant(BigInt(r) * PHILOX_W[bits][i], t)})`));
      const values =
        words === 2
          ? [`mul_hi(${m0}, ${x[0]}) ^ ${k[0]} ^ ${x[1]}`, `${m0} * ${x[0]}`]
          : [
              `mul_hi(${m1}, ${x[2]}) ^ ${x[1]} ^ ${k[0]}`,
              `${m1} * ${x[2]}`,
              `mul_hi(${m0}, ${x[0]}) ^ ${x[3]} ^ ${k[1]}`,
              `${m0} * ${x[0]}`,
            ];
      x = values.map((value, w) => {
        assign(`${prefix}_r${r}_${w}`, value);
        return `${prefix}_r${r}_${w}`;
      });
    }
    return { assignments: out, output: x };
  }
  const rotations = THREEFRY_R[`${bits}x${words}`];
  const ks = Array.from({ length: words + 1 }, (_, i) => `${prefix}_ks${i}`);
  key.forEach((k, i) => assign(ks[i], k));
  assign(ks[words], [wordConstant(PARITY[bits], t), ...ks.slice(0, words)].join(' ^ '));
  x = counter.map((c, w) => {
    assign(`${prefix}_x${w}`, `${c} + ${ks[w]}`);
    return `${prefix}_x${w}`;
  });
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
    for (const [a, b, rot] of pairs) {
      next[a] = `(${x[a]} + ${x[b]})`;
      next[b] = `(rotate(${x[b]}, ${rot}) ^ ${next[a]})`;
    }
    if (r % 4 === 3) {
      // the key injection after every fourth round
      const j = Math.floor(r / 4) + 1;
      for (let w = 0; w < words; w++) next[w] = `${next[w]} + ${ks[(j + w) % (words + 1)]}`;
      next[words - 1] = `${next[words - 1]} + ${wordConstant(BigInt(j), t)}`;
    }
    x = next.map((value, w) => {
      assign(`${prefix}_r${r}_${w}`, value);
      return `${prefix}_r${r}_${w}`;
    });
  }
  return { assignments: out, output: x };
}
