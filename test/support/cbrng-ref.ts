/**
 * Plain-JS Philox and Threefry (Salmon et al., SC'11; Random123's algorithms), on bigints, for
 * checking the device code of `@loom/computation`'s bijections: written from the papers'
 * description, round by round, with nothing shared with the library's generator.
 */

const mask = (bits: number) => (1n << BigInt(bits)) - 1n;

const PHILOX_W: Readonly<Record<number, readonly bigint[]>> = {
  32: [0x9e3779b9n, 0xbb67ae85n],
  64: [0x9e3779b97f4a7c15n, 0xbb67ae8584caa73bn],
};
const PHILOX_M: Readonly<Record<string, readonly bigint[]>> = {
  '32x2': [0xd256d193n],
  '32x4': [0xd2511f53n, 0xcd9e8d57n],
  '64x2': [0xd2b74407b1ce6e93n],
  '64x4': [0xd2e7470ee14c6c93n, 0xca5a826395121157n],
};

/** Philox-`words`x`bits` with `rounds` rounds of `counter` under `key` (words / 2 words). */
export function philoxRef(
  bits: 32 | 64,
  words: 2 | 4,
  counter: readonly bigint[],
  key: readonly bigint[],
  rounds = 10,
) {
  const m = mask(bits);
  const [m0, m1] = PHILOX_M[`${bits}x${words}`];
  let x = [...counter];
  for (let r = 0; r < rounds; r++) {
    const k = key.map((kw, i) => (kw + BigInt(r) * PHILOX_W[bits][i]) & m);
    if (words === 2) {
      const p = m0 * x[0];
      x = [((p >> BigInt(bits)) ^ k[0] ^ x[1]) & m, p & m];
    } else {
      const p0 = m0 * x[0];
      const p1 = m1 * x[2];
      x = [(p1 >> BigInt(bits)) ^ x[1] ^ k[0], p1 & m, (p0 >> BigInt(bits)) ^ x[3] ^ k[1], p0 & m];
    }
  }
  return x;
}

const THREEFRY_R: Readonly<Record<string, readonly (readonly number[])[]>> = {
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
const PARITY: Readonly<Record<number, bigint>> = { 32: 0x1bd11bdan, 64: 0x1bd11bdaa9fc1a22n };

/** Threefry-`words`x`bits` with `rounds` rounds of `counter` under `key` (words words). */
export function threefryRef(
  bits: 32 | 64,
  words: 2 | 4,
  counter: readonly bigint[],
  key: readonly bigint[],
  rounds = 20,
) {
  const m = mask(bits);
  const rotl = (v: bigint, s: number) => ((v << BigInt(s)) | (v >> BigInt(bits - s))) & m;
  const ks = [...key, key.reduce((a, b) => a ^ b, PARITY[bits])];
  const x = counter.map((c, i) => (c + ks[i]) & m);
  const rot = THREEFRY_R[`${bits}x${words}`];
  for (let r = 0; r < rounds; r++) {
    const pairs: [number, number, number][] =
      words === 2
        ? [[0, 1, rot[0][r % 8]]]
        : r % 2 === 0
          ? [
              [0, 1, rot[0][r % 8]],
              [2, 3, rot[1][r % 8]],
            ]
          : [
              [0, 3, rot[0][r % 8]],
              [2, 1, rot[1][r % 8]],
            ];
    for (const [a, b, s] of pairs) {
      x[a] = (x[a] + x[b]) & m;
      x[b] = rotl(x[b], s) ^ x[a];
    }
    if (r % 4 === 3) {
      const j = Math.floor(r / 4) + 1;
      for (let i = 0; i < words; i++) x[i] = (x[i] + ks[(j + i) % (words + 1)]) & m;
      x[words - 1] = (x[words - 1] + BigInt(j)) & m;
    }
  }
  return x;
}
