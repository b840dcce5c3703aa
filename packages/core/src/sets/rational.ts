/**
 * Exact rational numbers over BigInt: the coefficients of counting polynomials.
 *
 * Counts are integers, but the polynomials that give them are not integral (the number
 * of points of a triangle is n(n+1)/2), and their values grow past 2^53 quickly
 * (n·m·l for sizes of a few thousand): both need exact arithmetic.
 */
export class Rational {
  private constructor(
    /** Numerator; carries the sign. */
    readonly num: bigint,
    /** Denominator; positive, coprime with the numerator. */
    readonly den: bigint,
  ) {
    Object.freeze(this);
  }

  /** 0. */
  static readonly ZERO = new Rational(0n, 1n);
  /** 1. */
  static readonly ONE = new Rational(1n, 1n);

  /** `num / den` in lowest terms, the denominator positive; a zero denominator is a `RangeError`. */
  static of(num: bigint | number, den: bigint | number = 1n): Rational {
    let n = BigInt(num);
    let d = BigInt(den);
    if (d === 0n) throw new RangeError('Rational: division by zero');
    if (d < 0n) [n, d] = [-n, -d];
    const g = gcdBig(n < 0n ? -n : n, d);
    return g === 1n ? new Rational(n, d) : new Rational(n / g, d / g);
  }

  /** Whether the value is 0. */
  get isZero(): boolean {
    return this.num === 0n;
  }

  /** Whether the value is an integer (its denominator is 1). */
  get isInteger(): boolean {
    return this.den === 1n;
  }

  /** The exact sum. */
  add(o: Rational): Rational {
    return this.den === o.den
      ? Rational.of(this.num + o.num, this.den)
      : Rational.of(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  /** The exact difference. */
  sub(o: Rational): Rational {
    return this.add(o.neg());
  }

  /** The exact product. */
  mul(o: Rational): Rational {
    return Rational.of(this.num * o.num, this.den * o.den);
  }

  /** The exact quotient; dividing by zero is a `RangeError`. */
  div(o: Rational): Rational {
    return Rational.of(this.num * o.den, this.den * o.num);
  }

  /** The value with its sign flipped. */
  neg(): Rational {
    return new Rational(-this.num, this.den);
  }

  /** Whether both are the same number (both are kept in lowest terms). */
  equals(o: Rational): boolean {
    return this.num === o.num && this.den === o.den;
  }

  /** `3`, `-1/2`. */
  toString(): string {
    return this.den === 1n ? String(this.num) : `${this.num}/${this.den}`;
  }
}

export function gcdBig(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/** Floor division on BigInt (BigInt's `/` truncates toward zero). */
export function floorDivBig(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}
