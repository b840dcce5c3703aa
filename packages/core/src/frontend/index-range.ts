/**
 * The range of a non-affine index over its instruction's domain, for loopy's shape guesses:
 * `out[i % 20]` is 20 long and `a[abs(5 - i)]` over 0 <= i < 10 is 6 long, as loopy's access
 * maps (quasi-affine in ISL) make them. Interval arithmetic over constant bounds: the affine
 * pieces are bounded exactly by the sets, `%` and `//` by a positive constant, `abs`, `min` and
 * `max` combine those bounds. An index with no constant bound (one read from data) has none.
 */
import { toLinear } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import { floorDiv } from '../linear.ts';
import { StaticValueFindingError } from '../errors.ts';
import { staticMax, staticMin, type BasicSet } from '../sets/index.ts';

/** The least and greatest value an index takes. */
export type IndexRange = readonly [lo: number, hi: number];

/** The constant range of `index` over `set` under `assumptions`, or `undefined` where there is none. */
export function indexRange(index: Expr, set: BasicSet, assumptions: BasicSet): IndexRange | undefined {
  const lin = toLinear(index);
  if (lin) return affineRange(lin, set, assumptions);
  const range = (e: Expr) => indexRange(e, set, assumptions);
  switch (index.kind) {
    case 'neg': {
      const r = range(index.operand);
      return r && [-r[1], -r[0]];
    }
    case 'binary': {
      const divisor = index.right.kind === 'int' ? Number(index.right.value) : undefined;
      // Loom's `%` and `//` on integers are floor division (Python's), so a positive divisor bounds them
      if (index.op === '%' && divisor !== undefined && divisor > 0) {
        const left = range(index.left);
        return left && left[0] >= 0 && left[1] < divisor ? left : [0, divisor - 1];
      }
      if (index.op === '//' && divisor !== undefined && divisor > 0) {
        const left = range(index.left);
        return left && [floorDiv(left[0], divisor), floorDiv(left[1], divisor)];
      }
      const [l, r] = [range(index.left), range(index.right)];
      if (!l || !r) return undefined;
      if (index.op === '+') return [l[0] + r[0], l[1] + r[1]];
      if (index.op === '-') return [l[0] - r[1], l[1] - r[0]];
      if (index.op === '*') {
        const products = [l[0] * r[0], l[0] * r[1], l[1] * r[0], l[1] * r[1]];
        return [Math.min(...products), Math.max(...products)];
      }
      return undefined;
    }
    case 'call': {
      const args = index.args.map(range);
      if (args.some((a) => a === undefined)) return undefined;
      const rs = args as IndexRange[];
      if (index.fn === 'abs' && rs.length === 1) {
        const [lo, hi] = rs[0];
        return lo >= 0 ? [lo, hi] : hi <= 0 ? [-hi, -lo] : [0, Math.max(-lo, hi)];
      }
      if (index.fn === 'min' && rs.length > 0)
        return [Math.min(...rs.map((r) => r[0])), Math.min(...rs.map((r) => r[1]))];
      if (index.fn === 'max' && rs.length > 0)
        return [Math.max(...rs.map((r) => r[0])), Math.max(...rs.map((r) => r[1]))];
      return undefined;
    }
    default:
      return undefined;
  }
}

function affineRange(
  lin: NonNullable<ReturnType<typeof toLinear>>,
  set: BasicSet,
  assumptions: BasicSet,
): IndexRange | undefined {
  try {
    const hi = staticMax([{ set, expr: lin }], assumptions);
    const lo = staticMin([{ set, expr: lin }], assumptions);
    return hi.isConstant && lo.isConstant ? [lo.constant, hi.constant] : undefined;
  } catch (e) {
    // no static bound (a parameter without one): no constant range either
    if (e instanceof StaticValueFindingError) return undefined;
    throw e;
  }
}
