/**
 * Expressions in the parameters (array strides, numbers of work-groups) as
 * quasi-polynomials: `m*ell`, `(ell + 64) // 65`. Anything else (a call, a float, a
 * division of a non-affine expression) has no such form: undefined.
 */
import { toLinear } from '../expr/affine.ts';
import type { Expr } from '../expr/nodes.ts';
import { QPolynomial } from '../sets/quasi-polynomial.ts';

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
