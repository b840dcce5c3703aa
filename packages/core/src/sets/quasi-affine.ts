/**
 * Values of expressions while a domain is parsed: an affine form divided by a positive
 * constant, `lin / den`. Division by a constant is fine inside `floor(...)`/`ceil(...)`
 * (which bring it back to the integers with a new existential variable); anywhere else
 * a value must come out with den = 1, and the span of the division is kept to point at.
 */
import { Linear, gcd } from '../linear.ts';
import type { SourceSpan } from '../errors.ts';

export interface QuasiAffine {
  readonly lin: Linear;
  readonly den: number;
  /** Where the value sits in the source. */
  readonly start: number;
  readonly end: number;
  /** A division that left a fraction, if any (to report if the fraction survives). */
  readonly division?: SourceSpan | undefined;
}

export function value(lin: Linear, start: number, end: number): QuasiAffine {
  return { lin, den: 1, start, end };
}

/** Cancels common factors of numerator and denominator. */
export function reduced(v: QuasiAffine): QuasiAffine {
  const g = gcd(gcd(v.lin.coefficientGcd(), v.lin.constant), v.den);
  if (g <= 1) return v;
  const den = v.den / g;
  const lin = Linear.of(
    [...v.lin.coeffs].map(([n, c]) => [n, c / g] as const),
    v.lin.constant / g,
  );
  return { ...v, lin, den, division: den === 1 ? undefined : v.division };
}

export function isConstant(v: QuasiAffine): boolean {
  return v.lin.isConstant;
}

export function isInteger(v: QuasiAffine): boolean {
  return v.den === 1;
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}

export function sum(a: QuasiAffine, b: QuasiAffine, sign: 1 | -1): QuasiAffine {
  const den = lcm(a.den, b.den);
  const lin = a.lin.scale(den / a.den).add(b.lin.scale((sign * den) / b.den));
  return reduced({ lin, den, start: a.start, end: b.end, division: a.division ?? b.division });
}

export function negated(a: QuasiAffine, start: number): QuasiAffine {
  return { ...a, lin: a.lin.negate(), start };
}

/** Product where `k` is a constant (the caller checks). */
export function scaled(v: QuasiAffine, k: QuasiAffine, start: number, end: number): QuasiAffine {
  const lin = v.lin.scale(k.lin.constant);
  return reduced({ lin, den: v.den * k.den, start, end, division: v.division ?? k.division });
}

/** Quotient by the non-zero integer constant `d`. */
export function divided(v: QuasiAffine, d: number, span: SourceSpan): QuasiAffine {
  const lin = d < 0 ? v.lin.negate() : v.lin;
  const out = reduced({
    lin,
    den: v.den * Math.abs(d),
    start: span.start,
    end: span.end,
    division: v.division ?? span,
  });
  return out.den === 1 ? { ...out, division: undefined } : out;
}
