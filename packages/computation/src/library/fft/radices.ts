/**
 * How a transform of size N is cut into passes. A size whose only prime factors are 2, 3, 5
 * and 7 is computed directly, one pass per radix (Stockham's auto-sort form: every pass reads
 * its inputs N/R apart, so neighbouring work-items read neighbours); any other size goes
 * through Bluestein's algorithm, a convolution by two transforms of a larger smooth size M.
 *
 * Radices: powers of two grouped into 16 (then 8, 4 or 2 for what is left), threes into 9,
 * fives and sevens one at a time. Larger radices mean fewer passes over memory; the largest
 * comes first, which fixes how many work-items a local kernel needs (N over it). Where a
 * target's compilers slow down with many live values (`livePrivateValues`), the groups are
 * smaller: radix 8 and 9 on WGSL.
 */

/** The primes a pass handles directly. */
const PRIMES = [2, 3, 5, 7] as const;

/** The exponents of 2, 3, 5 and 7 in `n`, or undefined when `n` has another prime factor. */
export function smoothFactors(n: number): Map<number, number> | undefined {
  const out = new Map<number, number>();
  let rest = n;
  for (const p of PRIMES) {
    let e = 0;
    while (rest % p === 0) {
      rest /= p;
      e++;
    }
    if (e) out.set(p, e);
  }
  return rest === 1 ? out : undefined;
}

/** The 32-bit values a radix-`r` butterfly keeps live: its inputs' and outputs' parts, a few more for twiddles and indices. */
export const butterflyLiveValues = (r: number): number => 4 * r + 8;

/** How many factors `p` one pass groups: up to `most`, fewer when their butterfly would not fit `liveValues`. */
function perPass(p: number, most: number, liveValues: number | undefined): number {
  let per = most;
  while (per > 1 && liveValues !== undefined && butterflyLiveValues(p ** per) > liveValues) per--;
  return per;
}

/**
 * The radices of the passes of a smooth `n`, largest first (an empty list for 1), each butterfly
 * within `liveValues` 32-bit values where the target states such a limit.
 */
export function passRadices(n: number, liveValues?: number): number[] {
  const factors = smoothFactors(n);
  if (!factors) throw new Error(`passRadices: ${n} has a prime factor above 7`);
  const radices: number[] = [];
  const group = (p: number, exponent: number, per: number) => {
    let e = exponent;
    while (e >= per) {
      radices.push(p ** per);
      e -= per;
    }
    if (e) radices.push(p ** e);
  };
  group(2, factors.get(2) ?? 0, perPass(2, 4, liveValues));
  group(3, factors.get(3) ?? 0, perPass(3, 2, liveValues));
  group(5, factors.get(5) ?? 0, 1);
  group(7, factors.get(7) ?? 0, 1);
  return radices.sort((a, b) => b - a);
}

/** The smallest size at least `n` whose prime factors are 2, 3, 5 and 7 (Bluestein's padded size). */
export function smoothSizeAtLeast(n: number): number {
  for (let m = Math.max(1, n); ; m++) if (smoothFactors(m)) return m;
}

/** Bluestein's padded size for a transform of `n`: a convolution of 2n - 1 terms without wrapping. */
export function bluesteinSize(n: number): number {
  return smoothSizeAtLeast(2 * n - 1);
}
