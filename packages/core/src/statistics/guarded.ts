/**
 * A count: a piecewise quasi-polynomial in the kernel's parameters, valid where the
 * kernel's assumptions hold (loopy's GuardedPwQPolynomial). Evaluating it outside the
 * assumptions is an error, not a number: the kernel promises nothing there.
 */
import { LoomError } from '../errors.ts';
import type { BasicSet } from '../sets/basic-set.ts';
import { PwQPolynomial, type ParamValues } from '../sets/pw-qpolynomial.ts';
import type { Rational } from '../sets/rational.ts';

/** A count as a piecewise quasi-polynomial with the domain it is valid on (loopy's `GuardedPwQPolynomial`). */
export class GuardedPwQPolynomial {
  constructor(
    /** The count. */
    readonly pwqpolynomial: PwQPolynomial,
    /** Parameter values where the count means something (the kernel's assumptions). */
    readonly validDomain: BasicSet,
  ) {
    Object.freeze(this);
  }

  /** The parameters the count is a polynomial in (sorted by name, as loopy's). */
  get params(): readonly string[] {
    return this.pwqpolynomial.params;
  }

  /** The sum, valid where both are. */
  add(o: GuardedPwQPolynomial): GuardedPwQPolynomial {
    return new GuardedPwQPolynomial(this.pwqpolynomial.add(o.pwqpolynomial), meet(this.validDomain, o.validDomain));
  }

  /** The product, valid where both are (a bare `PwQPolynomial` keeps this domain). */
  mul(o: GuardedPwQPolynomial | PwQPolynomial): GuardedPwQPolynomial {
    if (o instanceof PwQPolynomial) return new GuardedPwQPolynomial(this.pwqpolynomial.mul(o), this.validDomain);
    return new GuardedPwQPolynomial(this.pwqpolynomial.mul(o.pwqpolynomial), meet(this.validDomain, o.validDomain));
  }

  /** The count times `factor` (bytes per element, say), valid on the same domain. */
  scale(factor: number): GuardedPwQPolynomial {
    return new GuardedPwQPolynomial(this.pwqpolynomial.scale(factor), this.validDomain);
  }

  /** The count at these parameter values, a number (a LoomError past 2^53: use `evaluate`). */
  evalWithDict(params: ParamValues = {}): number {
    this.check(params);
    return this.pwqpolynomial.evalWithDict(params);
  }

  /** The exact count (BigInt numerator and denominator). */
  evaluate(params: ParamValues = {}): Rational {
    this.check(params);
    return this.pwqpolynomial.evaluate(params);
  }

  /** The count in isl's notation (the valid domain is not shown). */
  toString(): string {
    return this.pwqpolynomial.toString();
  }

  private check(params: ParamValues): void {
    const get = (n: string) => (params instanceof Map ? params.get(n) : (params as Record<string, number | bigint>)[n]);
    const point: Record<string, number> = {};
    for (const p of this.validDomain.params) {
      const v = get(p);
      if (v === undefined)
        throw new LoomError(
          `no value for the parameter '${p}' (the count is valid where ${this.validDomain.toString()})`,
        );
      point[p] = Number(v);
    }
    if (!this.validDomain.contains(point)) {
      const shown = this.validDomain.params.map((p) => `${p}=${point[p]}`).join(', ');
      throw new LoomError(
        `the parameters (${shown}) are outside the kernel's assumptions ${this.validDomain.toString()}: the count is not defined there`,
      );
    }
  }
}

function meet(a: BasicSet, b: BasicSet): BasicSet {
  return a === b ? a : a.intersect(b);
}
