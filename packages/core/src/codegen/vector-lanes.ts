/**
 * A flat index into an array of vectors, `lanes * X + L`, taken apart into its vector X and
 * lane L by its syntax: its terms other than a constant must each be a multiple of `lanes`,
 * whatever they multiply (`2 * (lid(0) / 2)`, `2048 * (g % 4)`). The linear reading
 * (vectorize.ts's `laneOf`) needs affine indices; this one reaches the indices of tiled,
 * split and FFT kernels, whose divisions and remainders are not.
 */
import { binary, int, neg, type Expr } from '../expr/nodes.ts';
import { additiveTerms, simplify } from '../expr/index.ts';

/** `index` as `lanes * vector + lane`, when its terms other than a constant are multiples of `lanes`. */
export function termsOfLanes(index: Expr, lanes: number): { vector: Expr; lane: number } | undefined {
  let constant = 0;
  const quotients: Expr[] = [];
  for (const { term, sign } of additiveTerms(index, '+')) {
    // a negated term is its operand with the other sign
    const [expr, positive] = term.kind === 'neg' ? [term.operand, sign === '-'] : [term, sign === '+'];
    if (expr.kind === 'int') {
      constant += (positive ? 1 : -1) * Number(expr.value);
      continue;
    }
    const q = exactQuotient(expr, lanes);
    if (!q) return undefined;
    quotients.push(positive ? q : neg(q));
  }
  const lane = ((constant % lanes) + lanes) % lanes;
  const rest = (constant - lane) / lanes;
  const parts = rest === 0 && quotients.length ? quotients : [...quotients, int(rest)];
  const vector = parts.reduce((a, b) => (b.kind === 'neg' ? binary('-', a, b.operand) : binary('+', a, b)));
  return { vector: simplify(vector, { integer: true }), lane };
}

/** `e / k` when `e` is syntactically a multiple of `k` (a product with such a factor, a sum of them). */
function exactQuotient(e: Expr, k: number): Expr | undefined {
  switch (e.kind) {
    case 'int': {
      const v = Number(e.value);
      return v % k === 0 ? int(v / k) : undefined;
    }
    case 'neg': {
      const q = exactQuotient(e.operand, k);
      return q && neg(q);
    }
    case 'binary':
      if (e.op === '+' || e.op === '-') {
        const [l, r] = [exactQuotient(e.left, k), exactQuotient(e.right, k)];
        return l && r && binary(e.op, l, r);
      }
      if (e.op === '*') {
        const l = exactQuotient(e.left, k);
        if (l) return binary('*', l, e.right);
        const r = exactQuotient(e.right, k);
        return r && binary('*', e.left, r);
      }
      return undefined;
    default:
      return undefined;
  }
}
