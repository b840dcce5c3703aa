/**
 * Integer expressions as quasi-polynomials (the set library's `QPolynomial`): the counts of
 * the statistics (array strides, numbers of work-groups: `m*ell`, `(ell + 64) // 65`), and
 * the equality of expressions as polynomials (loopy's `is_expression_equal`).
 */
import { toLinear } from './affine.ts';
import { exprEquals } from './analysis.ts';
import type { Expr } from './nodes.ts';
import { QPolynomial } from '../sets/quasi-polynomial.ts';

/**
 * `e` as a quasi-polynomial, its variables integers; undefined for anything else (a call, a
 * float, an array element, a division of a non-affine expression).
 */
export function polynomialOf(e: Expr): QPolynomial | undefined {
  switch (e.kind) {
    case 'int':
      return QPolynomial.constant(e.value);
    case 'var':
      return QPolynomial.variable(e.name);
    case 'neg':
      return polynomialOf(e.operand)?.neg();
    case 'binary': {
      if (e.op === '//') {
        const num = toLinear(e.left);
        const den = e.right.kind === 'int' ? e.right.value : undefined;
        return num && den !== undefined && den > 0 ? QPolynomial.floor(num, den) : undefined;
      }
      if (e.op === '**') {
        const base = polynomialOf(e.left);
        return base && e.right.kind === 'int' && e.right.value >= 0 ? base.pow(e.right.value) : undefined;
      }
      const left = polynomialOf(e.left);
      const right = left && polynomialOf(e.right);
      if (!left || !right) return undefined;
      if (e.op === '+') return left.add(right);
      if (e.op === '-') return left.sub(right);
      if (e.op === '*') return left.mul(right);
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Whether two expressions are equal as polynomials in their variables (loopy's
 * `is_expression_equal`), not only as trees: sums and products in any order, powers expanded,
 * `//` by a positive literal of an affine form. Expressions that are no such polynomial
 * (a call, an array element, a float) are equal only when their trees are.
 * ```ts
 * isExpressionEqual(parseExpression('(x+y)**2'), parseExpression('x**2 + 2*x*y + y**2')); // true
 * ```
 */
export function isExpressionEqual(a: Expr, b: Expr): boolean {
  if (exprEquals(a, b)) return true;
  const pa = polynomialOf(a);
  const pb = pa && polynomialOf(b);
  return pa !== undefined && pb !== undefined && pa.equals(pb);
}
