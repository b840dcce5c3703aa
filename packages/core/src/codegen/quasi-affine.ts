/**
 * Quasi-affine indices: affine expressions in loop indices and parameters with floor divisions
 * and remainders by positive constants among them (`(j // 4) * 16 + j % 4 + 8`, a Stockham
 * FFT's output index). Each `x // c` becomes a new variable q with c q <= x <= c q + c - 1,
 * and `x % c` becomes x - c q (one q for each distinct division), as isl reads such expressions: the index is then affine in the
 * loop indices, the parameters and the q's, and the bounds of an access can be proven over
 * the instruction's domain with those constraints added (codegen/access-guards.ts).
 */
import { CoefficientRangeError } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { Linear } from '../linear.ts';
import { type Interval, intervalOf } from './index-range.ts';

/** A floor division's new variable: `name` = floor(`numerator` / `divisor`). */
export interface FloorVariable {
  readonly name: string;
  readonly numerator: Linear;
  readonly divisor: number;
}

/** A term the sets cannot read (a product of two loop indices) as a new variable in its range. */
export interface BoundedTerm extends Interval {
  readonly name: string;
  /** The term it stands for. */
  readonly expr: Expr;
}

/**
 * `e` as an affine function of its variables and of new variables for its floor divisions
 * and remainders (named `${prefix}0`, `${prefix}1`, ...), or undefined when it is not
 * quasi-affine (a division by a variable, a call, a read of data). A product of two
 * non-constant factors is not either, unless `rangeOf` gives its variables' ranges: then it
 * becomes a new variable bounded by interval arithmetic (index-range.ts), in `products`.
 */
export function quasiAffine(
  e: Expr,
  prefix: string,
  rangeOf?: (name: string) => Interval | undefined,
): { lin: Linear; floors: FloorVariable[]; products: BoundedTerm[] } | undefined {
  const floors: FloorVariable[] = [];
  const products: BoundedTerm[] = [];
  const bounded = (x: Expr): Linear | undefined => {
    const range = rangeOf && intervalOf(x, rangeOf);
    if (!range) return undefined;
    const name = `${prefix}p${products.length}`;
    products.push({ name, expr: x, ...range });
    return Linear.variable(name);
  };
  const walk = (x: Expr): Linear | undefined => {
    switch (x.kind) {
      case 'int':
        return Linear.constant(x.value);
      case 'var':
        return Linear.variable(x.name);
      case 'neg':
        return walk(x.operand)?.negate();
      case 'binary': {
        if ((x.op === '//' || x.op === '%') && x.right.kind === 'int' && x.right.value > 0) {
          const numerator = walk(x.left);
          if (!numerator) return undefined;
          const divisor = x.right.value;
          // one variable per distinct division: `l // 9` written twice is one unknown, not two
          // (each extra one multiplies the Omega test's work on the constraints)
          const same = floors.find((f) => f.divisor === divisor && f.numerator.equals(numerator));
          const q = same?.name ?? `${prefix}${floors.length}`;
          if (!same) floors.push({ name: q, numerator, divisor });
          return x.op === '//' ? Linear.variable(q) : numerator.sub(Linear.variable(q, divisor));
        }
        const [floorsBefore, productsBefore] = [floors.length, products.length];
        const left = walk(x.left);
        const right = left && walk(x.right);
        if (!left || !right) return undefined;
        if (x.op === '*' && !left.isConstant && !right.isConstant) {
          // the factors' own divisions are not needed: the product is one bounded unknown
          floors.length = floorsBefore;
          products.length = productsBefore;
          return bounded(x);
        }
        if (x.op === '+') return left.add(right);
        if (x.op === '-') return left.sub(right);
        if (x.op === '*' && left.isConstant) return right.scale(left.constant);
        if (x.op === '*' && right.isConstant) return left.scale(right.constant);
        return undefined;
      }
      default:
        return undefined;
    }
  };
  try {
    const lin = walk(e);
    return lin ? { lin, floors, products } : undefined;
  } catch (err) {
    // a coefficient beyond safe integers: not affine for Loom
    if (err instanceof CoefficientRangeError) return undefined;
    throw err;
  }
}

/** The range of each bounded term: low <= p <= high. */
export function productConstraints(products: readonly BoundedTerm[]): { kind: 'ge'; expr: Linear }[] {
  return products.flatMap(({ name, low, high }) => [
    { kind: 'ge' as const, expr: Linear.variable(name).sub(low) },
    { kind: 'ge' as const, expr: Linear.variable(name, -1).add(high) },
  ]);
}

/** The constraints that make each floor variable what it stands for: c q <= x <= c q + c - 1. */
export function floorConstraints(floors: readonly FloorVariable[]): { kind: 'ge'; expr: Linear }[] {
  return floors.flatMap(({ name, numerator, divisor }) => {
    const cq = Linear.variable(name, divisor);
    return [
      { kind: 'ge' as const, expr: numerator.sub(cq) },
      { kind: 'ge' as const, expr: cq.add(divisor - 1).sub(numerator) },
    ];
  });
}
