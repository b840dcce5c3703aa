/**
 * Printed WGSL expressions: the text, its binding strength and its type, and the few ways of
 * putting them together that keep WGSL's grammar (an operand parenthesized below its
 * operator's precedence, comparisons never chained, vectors beside scalars splatted).
 */
import { zero, type WgslScalar } from './types.ts';

/** Binding strength, loosest first, after WGSL's grammar. */
export const Prec = {
  /** `a && b && c` or `a || b || c`: never mixed without parentheses. */
  Logical: 1,
  /** `a < b`: one comparison, never chained. */
  Relational: 2,
  /** `a & b`, `a << b`: operands must be unary expressions. */
  Bitwise: 3,
  Additive: 4,
  Multiplicative: 5,
  Unary: 6,
  /** Literals, names, calls, `a[i]`, `v.x`. */
  Primary: 7,
} as const;

export interface Printed {
  readonly text: string;
  readonly prec: number;
  readonly type: WgslScalar;
  /** For a `&&` or `||` chain: which one (they may not be mixed without parentheses). */
  readonly logical?: '&&' | '||';
  /** A vector of `type`s (in a vector statement): its lanes. */
  readonly lanes?: number;
}

export function primary(text: string, type: WgslScalar): Printed {
  return { text, prec: Prec.Primary, type };
}

export function call(fn: string, args: readonly string[], type: WgslScalar): Printed {
  return primary(`${fn}(${args.join(', ')})`, type);
}

/** `p` as an operand that needs at least precedence `min`. */
export function operand(p: Printed, min: number): string {
  return p.prec >= min ? p.text : `(${p.text})`;
}

/** A left-associative arithmetic operator: `a - (b - c)` keeps its parentheses (a vector with a scalar: the scalar applies to every lane). */
export function infix(l: Printed, op: string, r: Printed, prec: number, type: WgslScalar): Printed {
  return { text: `${operand(l, prec)} ${op} ${operand(r, prec + 1)}`, prec, type, lanes: l.lanes ?? r.lanes };
}

/**
 * A comparison: both sides must be arithmetic expressions (WGSL chains no comparisons, and `a & b < c` needs parentheses).
 * A vector compared with a scalar compares every lane with it: WGSL wants both sides vectors.
 */
export function relation(l: Printed, op: string, r: Printed): Printed {
  const lanes = l.lanes ?? r.lanes;
  const side = (p: Printed) => (lanes && !p.lanes ? splat(p, lanes) : operand(p, Prec.Additive));
  return { text: `${side(l)} ${op} ${side(r)}`, prec: Prec.Relational, type: 'bool', lanes };
}

/** `p` as a vector of `lanes` (its value in every lane when it is a scalar), or as it is without `lanes`. */
export function splat(p: Printed, lanes: number | undefined): string {
  return lanes && !p.lanes ? `vec${lanes}<${p.type}>(${p.text})` : p.text;
}

/** `p` converted to WGSL type `to` (a bool becomes 0/1; a number becomes a bool when non-zero). */
export function convert(p: Printed, to: WgslScalar): Printed {
  if (p.type === to) return p;
  if (to === 'bool') return relation(p, '!=', primary(zero(p.type), p.type));
  return call(to, [p.text], to);
}
