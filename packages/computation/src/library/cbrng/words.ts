/**
 * Words of counter-based generators as Loom kernel text: 32- and 64-bit unsigned constants
 * (kernel literals are safe integers, so a 64-bit constant past 2^53 is written from its halves,
 * which every compiler folds) and the arithmetic of multi-word counters.
 */
import { LoomError, wordConstant } from '@loom/core';

/** The dtype of a generator's words. */
export type WordDtype = 'uint32' | 'uint64';

/** The word dtype of `bits`-bit words. */
export const wordDtype = (bits: 32 | 64): WordDtype => (bits === 32 ? 'uint32' : 'uint64');

/** A word constant as an expression (core's, shared with the bijections' rounds). */
export { wordConstant };

/** The checked `bits` and `words` of a bijection (`what` names it in messages). */
export function checkShape(what: string, bits: number, words: number): asserts bits is 32 | 64 {
  if (bits !== 32 && bits !== 64) throw new LoomError(`${what}: bits must be 32 or 64, got ${bits}`);
  if (words !== 2 && words !== 4) throw new LoomError(`${what}: words must be 2 or 4, got ${words}`);
}

/**
 * The words of `counter` plus `add` (a non-negative int32 expression), as expressions: the last
 * word is the least significant, and a carry runs into the words before it (Reikna's
 * `bump_counter`, by any amount below 2^31).
 */
export function counterPlus(counter: readonly string[], add: string, dtype: WordDtype): string[] {
  const out = [...counter];
  const last = counter.length - 1;
  out[last] = `(${counter[last]} + ${dtype}(${add}))`;
  // the sum wrapped when it is below what was added; each word before it takes the carry in turn
  let carry = `(${out[last]} < ${dtype}(${add}))`;
  for (let w = last - 1; w >= 0; w--) {
    out[w] = `(${counter[w]} + if(${carry}, ${dtype}(1), ${dtype}(0)))`;
    carry = `(${carry} and ${out[w]} == ${dtype}(0))`;
  }
  return out;
}
