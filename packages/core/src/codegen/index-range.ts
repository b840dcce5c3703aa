/**
 * The range of an integer index by interval arithmetic: each variable's constant bounds in,
 * the bounds of `e` out. Coarse, but it bounds what the integer sets cannot read at all: a
 * product of two loop indices (`(k * m) % 729`, an FFT's twiddle index), which quasi-affine.ts
 * then treats as one bounded unknown.
 */
import type { Expr } from '../expr/nodes.ts';

/** Inclusive integer bounds. */
export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** Floor division and remainder follow the expression language (Python's: toward -∞, `%` in [0, c)). */
export function intervalOf(e: Expr, rangeOf: (name: string) => Interval | undefined): Interval | undefined {
  const walk = (x: Expr): Interval | undefined => {
    switch (x.kind) {
      case 'int':
        return { low: x.value, high: x.value };
      case 'var':
        return rangeOf(x.name);
      case 'neg': {
        const r = walk(x.operand);
        return r && { low: -r.high, high: -r.low };
      }
      case 'binary': {
        const left = walk(x.left);
        if (!left) return undefined;
        if ((x.op === '//' || x.op === '%') && x.right.kind === 'int' && x.right.value > 0) {
          const c = x.right.value;
          if (x.op === '//') return { low: Math.floor(left.low / c), high: Math.floor(left.high / c) };
          // one period or less, not wrapping: the remainder keeps the order
          if (Math.floor(left.low / c) === Math.floor(left.high / c))
            return { low: mod(left.low, c), high: mod(left.high, c) };
          return { low: 0, high: c - 1 };
        }
        const right = walk(x.right);
        if (!right) return undefined;
        if (x.op === '+') return { low: left.low + right.low, high: left.high + right.high };
        if (x.op === '-') return { low: left.low - right.high, high: left.high - right.low };
        if (x.op === '*') {
          const corners = [left.low * right.low, left.low * right.high, left.high * right.low, left.high * right.high];
          return { low: Math.min(...corners), high: Math.max(...corners) };
        }
        return undefined;
      }
      default:
        return undefined;
    }
  };
  const range = walk(e);
  return range && Number.isSafeInteger(range.low) && Number.isSafeInteger(range.high) ? range : undefined;
}

const mod = (a: number, c: number) => ((a % c) + c) % c;
