/**
 * Sums of polynomials over integer ranges, by Faulhaber's formula: Σ_{x=1..N} x^k is a
 * polynomial S_k(N) of degree k+1 (with Bernoulli numbers for coefficients), and
 * S_k(N) - S_k(N-1) = N^k holds for every integer N, so
 *
 *     Σ_{x=lo..hi} x^k = S_k(hi) - S_k(lo - 1)
 *
 * for any integers with hi >= lo - 1 (an empty range gives 0), whatever their signs.
 */
import { QPolynomial } from './quasi-polynomial.ts';
import { Rational } from './rational.ts';

/** Σ_{x = lo..hi} p, where x does not occur inside p's atoms; needs hi >= lo - 1 wherever it is used. */
export function sumOverRange(p: QPolynomial, x: string, lo: QPolynomial, hi: QPolynomial): QPolynomial {
  const coefficients = p.coefficientsOf(x);
  const below = lo.sub(QPolynomial.ONE);
  let out = QPolynomial.ZERO;
  coefficients.forEach((c, k) => {
    if (c.isZero) return;
    out = out.add(c.mul(powerSum(k, hi).sub(powerSum(k, below))));
  });
  return out;
}

/** S_k(n) = Σ_{x=1..n} x^k with n a polynomial. */
function powerSum(k: number, n: QPolynomial): QPolynomial {
  const coefficients = powerSumCoefficients(k);
  let out = QPolynomial.ZERO;
  let power = QPolynomial.ONE;
  for (let j = 0; j < coefficients.length; j++) {
    if (j > 0) power = power.mul(n);
    if (!coefficients[j]!.isZero) out = out.add(power.scale(coefficients[j]!));
  }
  return out;
}

const powerSums: Rational[][] = [];

/** Coefficients of S_k by power of n (index j multiplies n^j). */
function powerSumCoefficients(k: number): readonly Rational[] {
  while (powerSums.length <= k) {
    const m = powerSums.length;
    // S_m(n) = 1/(m+1) Σ_{j=0..m} C(m+1, j) B⁺_j n^(m+1-j), with B⁺_1 = +1/2
    const coeffs: Rational[] = Array.from({ length: m + 2 }, () => Rational.ZERO);
    for (let j = 0; j <= m; j++) {
      const b = j === 1 ? Rational.of(1, 2) : bernoulli(j);
      coeffs[m + 1 - j] = Rational.of(binomial(m + 1, j), m + 1).mul(b);
    }
    powerSums.push(coeffs);
  }
  return powerSums[k]!;
}

const bernoulliNumbers: Rational[] = [Rational.ONE];

/** B_j with B_1 = -1/2, from Σ_{j=0..m} C(m+1, j) B_j = 0. */
function bernoulli(j: number): Rational {
  while (bernoulliNumbers.length <= j) {
    const m = bernoulliNumbers.length;
    let s = Rational.ZERO;
    for (let i = 0; i < m; i++) s = s.add(Rational.of(binomial(m + 1, i)).mul(bernoulliNumbers[i]!));
    bernoulliNumbers.push(s.neg().div(Rational.of(m + 1)));
  }
  return bernoulliNumbers[j]!;
}

function binomial(n: number, k: number): bigint {
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}
