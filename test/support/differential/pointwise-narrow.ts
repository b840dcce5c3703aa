/**
 * Differential cases for multi-step integer payloads over narrow dtypes (feature
 * `pointwiseNarrowChains`, s6-narrow): a random expression of a few operations over int8,
 * int16, uint8 or uint16 tensors (alike, or mixed: int8 with uint8 computes in int16, int8
 * with int32 in int32), whose elements include each dtype's extremes. The reference applies
 * the documented rule (packages/elementwise/README.md, Semantics: PyTorch's) explicitly, in
 * BigInt: the inputs are converted to the promoted dtype, and every operation's result wraps
 * into it before the next one uses it. The targets compute narrow integers in 32 bits, so a
 * payload that wraps only when it stores (`(x * y) % 7`) disagrees here.
 */
import type { IntegerCase, IntDType } from './pointwise-integers.ts';
import { Rng } from './random.ts';
import { INT_BITS, PROMOTED_PAIRS, wrapInt } from '../integer-wrapping.ts';

const wrap = (v: bigint, t: IntDType) => wrapInt(v, t);

/** Input dtypes and the dtype PyTorch promotes them to. */
const PAIRS = PROMOTED_PAIRS as readonly (readonly [IntDType, IntDType, IntDType])[];

/** Each dtype's edges, 0, ±1 and a few ordinary values. */
function edges(t: IntDType): bigint[] {
  const bits = BigInt(INT_BITS[t]);
  const [min, max] = t.startsWith('u') ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
  return [min, max, min + 1n, max - 1n, 0n, 1n, 2n, 3n, 7n, 100n, ...(t.startsWith('u') ? [] : [-1n, -2n, -100n])];
}

/** A sub-expression: its JavaScript source and its value by the documented rule (`w` wraps into the computation dtype). */
interface Node {
  readonly source: string;
  readonly value: (x: bigint, y: bigint, w: (v: bigint) => bigint) => bigint;
  /** How many operations it has. */
  readonly steps: number;
  /**
   * Whether it compares data with a negative literal (a sub-expression of literals only that
   * JavaScript folds to one, `(5 | -1)`): beside unsigned data a LoomError, not a wrap.
   */
  readonly comparesNegative?: boolean;
}

/** Whether any of `nodes` compares data with a negative literal. */
const comparing = (...nodes: readonly Node[]) => nodes.some((n) => n.comparesNegative);

/** The value of a sub-expression of literals only, as JavaScript folds it; undefined where it reads x or y. */
const literalValue = (node: Node): number | undefined =>
  /\b[xy]\b/.test(node.source) ? undefined : (Function(`return ${node.source}`)() as number);

const LITERALS = [1n, 2n, 3n, 5n, 7n];
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * Negative literals for min/max's second operand (feature `pointwiseNarrowMinMaxLiterals`,
 * s6-narrow2), each within every narrow dtype's literal range: beside unsigned data it wraps
 * (-2 is 254 over uint8) before it is compared; `~1` is -2 written as JavaScript folds it.
 */
const MIN_MAX_LITERALS: readonly (readonly [string, bigint])[] = [
  ['-1', -1n],
  ['(-2)', -2n],
  ['(~1)', -2n],
  ['(-100)', -100n],
];

/**
 * A random expression of at most `depth` levels of operations over x, y and small literals;
 * `literals`, when given, draws (with its own stream, so other cases stay as they were) a
 * negative literal as min/max's second operand for half of them.
 */
function expression(rng: Rng, depth: number, literals?: Rng, bitwiseLiterals?: Rng): Node {
  return foldedLiterals(drawExpression(rng, depth, literals, bitwiseLiterals));
}

/**
 * A sub-expression of literals only is worked out by JavaScript, in doubles, when the payload is
 * read (elementwise's fold.ts: `Math.abs(-1)` is 1, `Math.max(5, -2)` is 5), and the result is one
 * weak literal that takes the dtype where it meets data: so is its expected value here.
 */
function foldedLiterals(node: Node): Node {
  const v = literalValue(node);
  if (v === undefined) return node;
  // folded whole, it compares no data
  return Number.isSafeInteger(v) ? { ...node, value: (_x, _y, w) => w(BigInt(v)), comparesNegative: false } : node;
}

function drawExpression(rng: Rng, depth: number, literals?: Rng, bitwiseLiterals?: Rng): Node {
  if (depth === 0 || rng.chance(0.15)) {
    const leaf = rng.pick(['x', 'y', 'x', 'y', 'literal'] as const);
    if (leaf === 'literal') {
      const v = rng.pick(LITERALS);
      return { source: String(v), value: () => v, steps: 0 };
    }
    return { source: leaf, value: leaf === 'x' ? (x) => x : (_, y) => y, steps: 0 };
  }
  const [a, drawn] = [
    expression(rng, depth - 1, literals, bitwiseLiterals),
    expression(rng, depth - 1, literals, bitwiseLiterals),
  ];
  const op = rng.pick([
    '+',
    '-',
    '*',
    '*',
    '%',
    '&',
    '|',
    '^',
    '>>',
    '<<',
    '**',
    'neg',
    '~',
    'abs',
    'min',
    'max',
    '?:',
  ] as const);
  const bitwise = op === '&' || op === '|' || op === '^';
  const negative =
    // beside a literal leaf, min/max of two literals is JavaScript's (Math.max(5, -2) is 5), not the rule's
    (op === 'min' || op === 'max') && literals?.chance(0.5) && !/^\d+$/.test(a.source)
      ? literals.pick(MIN_MAX_LITERALS)
      : bitwise && bitwiseLiterals?.chance(0.5)
        ? bitwiseLiterals.pick(MIN_MAX_LITERALS)
        : undefined;
  // the literal takes the computation dtype, as PyTorch converts a scalar operand
  const b: Node = negative ? { source: negative[0], value: (_x, _y, w) => w(negative[1]), steps: 0 } : drawn;
  const steps = a.steps + b.steps + 1;
  const binary = (f: (p: bigint, q: bigint) => bigint, source: string): Node => ({
    source,
    value: (x, y, w) => w(f(a.value(x, y, w), b.value(x, y, w))),
    steps,
    comparesNegative: comparing(a, b),
  });
  switch (op) {
    case '+':
    case '-':
    case '*':
    case '&':
    case '|':
    case '^':
      return binary(
        (p, q) =>
          op === '+'
            ? p + q
            : op === '-'
              ? p - q
              : op === '*'
                ? p * q
                : op === '&'
                  ? p & q
                  : op === '|'
                    ? p | q
                    : p ^ q,
        `(${a.source} ${op} ${b.source})`,
      );
    case '%':
      // JavaScript's truncated remainder; 0 for a divisor of 0 from data (the README's rule)
      return binary((p, q) => (q === 0n ? 0n : p % q), `(${a.source} % ${b.source})`);
    case '>>':
    case '<<':
      // shift counts within the narrowest dtype's width: counts beyond it are bitwise's (features.ts)
      return binary((p, q) => (op === '>>' ? p >> (q & 7n) : p << (q & 7n)), `(${a.source} ${op} (${b.source} & 7))`);
    case '**':
      // exponents 0..3: a power that overflows wraps at each product, as the power of the wrapped base does
      return binary((p, q) => p ** (q & 3n), `(${a.source} ** (${b.source} & 3))`);
    case 'min':
    case 'max':
      return binary(op === 'min' ? min : max, `Math.${op}(${a.source}, ${b.source})`);
    case 'neg':
      return {
        source: `(-${a.source})`,
        value: (x, y, w) => w(-a.value(x, y, w)),
        steps: a.steps + 1,
        comparesNegative: comparing(a),
      };
    case '~':
      return {
        source: `(~${a.source})`,
        value: (x, y, w) => w(~a.value(x, y, w)),
        steps: a.steps + 1,
        comparesNegative: comparing(a),
      };
    case 'abs':
      return {
        source: `Math.abs(${a.source})`,
        value: (x, y, w) => w(max(a.value(x, y, w), -a.value(x, y, w))),
        steps: a.steps + 1,
        comparesNegative: comparing(a),
      };
    case '?:': {
      // a comparison of two computed values picks one of them
      const cmp = rng.pick(['<', '<=', '>', '>=', '===', '!=='] as const);
      const holds = (p: bigint, q: bigint) =>
        cmp === '<'
          ? p < q
          : cmp === '<='
            ? p <= q
            : cmp === '>'
              ? p > q
              : cmp === '>='
                ? p >= q
                : cmp === '==='
                  ? p === q
                  : p !== q;
      return {
        source: `(${a.source} ${cmp} ${b.source} ? ${a.source} : ${b.source})`,
        value: (x, y, w) => {
          const [p, q] = [a.value(x, y, w), b.value(x, y, w)];
          return holds(p, q) ? p : q;
        },
        steps,
        // data compared with a negative literal (JavaScript's fold of literals only): the
        // elementwise README's rule refuses it over unsigned data, where min/max wrap it
        comparesNegative:
          comparing(a, b) ||
          ([a, b].some((n) => (literalValue(n) ?? 0) < 0) && [a, b].some((n) => literalValue(n) === undefined)),
      };
    }
  }
}

/** A random multi-step payload over narrow integer tensors (`seed` fixes it). */
export function narrowChainCase(seed: number, minMaxLiterals = false, bitwiseLiterals = false): IntegerCase {
  const rng = new Rng(seed ^ 0x0a77);
  const literals = minMaxLiterals ? new Rng(seed ^ 0x3b1d) : undefined;
  // negative literals beside & | ^ (feature pointwiseUnsignedBitwiseLiterals): wrapped over unsigned dtypes
  const bitwise = bitwiseLiterals ? new Rng(seed ^ 0x51a7) : undefined;
  const [tx, ty, t] = rng.pick(PAIRS);
  const data = (d: IntDType) => Array.from({ length: 12 }, () => rng.pick(edges(d)));
  const [x, y] = [data(tx), data(ty)];
  let e = expression(rng, rng.int(2, 3), literals, bitwise);
  // at least two operations, so that an intermediate result meets another operation
  while (e.steps < 2) e = expression(rng, 3, literals, bitwise);
  const w = (v: bigint) => wrap(v, t);
  return {
    source: `(x, y) => ${e.source}`,
    dtype: t,
    inputDTypes: [tx, ty],
    float: false,
    inputs: [x, y],
    // inputs are converted to the computation dtype first, as PyTorch converts them
    expected:
      e.comparesNegative && t.startsWith('u')
        ? { error: /would wrap to/ }
        : { values: x.map((a, k) => Number(w(e.value(w(a), w(y[k]), w)))) },
  };
}
