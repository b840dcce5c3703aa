/**
 * Predicates (Reikna's algorithms.predicates): an associative operation on two values `a`
 * and `b`, written in Loom's expression language, and its empty value (the one that
 * changes nothing it is combined with). Reduce and Scan take them.
 *
 *   predicate('a + b', 0)          predicateSum('float32')
 *   predicate('max(a, b)', -1e30)  predicateMax('int32')
 *
 * A predicate may also say that it is commutative (`predicate('a + b', 0, { commutative:
 * true })`, as the four below are): a scan may then combine a block's elements in any order
 * (its totals pass reads them coalesced, without staging them in local memory), and a reduce
 * combines elements a work-group apart. Without it, the order of the elements is kept
 * everywhere.
 */
import {
  LoomError,
  checkOptionKeys,
  expr,
  isFloat,
  optionKeys,
  parseExpression,
  type DType,
  type Expr,
} from '@loom/core';

/** An associative operation and its neutral element, for `reduce` and `scan` (Reikna's `Predicate`). */
export interface Predicate {
  /** `a` and `b` are the two values combined. */
  readonly operation: string;
  /** The neutral element: `a op empty` is `a`. */
  readonly empty: number;
  /** `a op b` is `b op a` (default false: only associativity is assumed). */
  readonly commutative: boolean;
}

/** Options of `predicate`. */
export interface PredicateOptions {
  /** `a op b` is `b op a` (default false: only associativity is assumed). */
  readonly commutative?: boolean;
}

const PREDICATE_OPTIONS = optionKeys<PredicateOptions>()(['commutative']);

/**
 * A predicate from an expression in `a` and `b` and its neutral element.
 * ```ts
 * const sum = predicate('a + b', 0, { commutative: true });
 * ```
 */
export function predicate(operation: string, empty: number, options: PredicateOptions = {}): Predicate {
  checkOptionKeys('predicate', options, PREDICATE_OPTIONS);
  const names = [...expr.freeVariables(parseExpression(operation))];
  const unknown = names.filter((n) => n !== 'a' && n !== 'b');
  if (unknown.length)
    throw new LoomError(`predicate '${operation}': it may name only 'a' and 'b', not '${unknown.join("', '")}'`);
  if (typeof empty !== 'number' || Number.isNaN(empty))
    throw new LoomError(`predicate '${operation}': the empty value must be a number`);
  return Object.freeze({ operation, empty, commutative: options.commutative ?? false });
}

const COMMUTATIVE = { commutative: true };
/** Addition, neutral 0. */
export const predicateSum = (_dtype?: DType): Predicate => predicate('a + b', 0, COMMUTATIVE);
/** Multiplication, neutral 1. */
export const predicateProduct = (_dtype?: DType): Predicate => predicate('a * b', 1, COMMUTATIVE);
/** Maximum, neutral the lowest value of `dtype`. */
export const predicateMax = (dtype: DType): Predicate => predicate('max(a, b)', lowest(dtype), COMMUTATIVE);
/** Minimum, neutral the highest value of `dtype`. */
export const predicateMin = (dtype: DType): Predicate => predicate('min(a, b)', highest(dtype), COMMUTATIVE);

const RANGES: Partial<Record<DType, readonly [number, number]>> = {
  float16: [-65504, 65504],
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-2147483648, 2147483647],
  bool: [0, 1],
  uint8: [0, 255],
  uint16: [0, 65535],
  uint32: [0, 4294967295],
};

function range(dtype: DType): readonly [number, number] {
  const r = RANGES[dtype];
  if (!r)
    throw new LoomError(
      `predicateMax/predicateMin: no ${dtype} (64-bit integers are beyond a JavaScript number's exact range)`,
    );
  return r;
}
/** The lowest finite value of a dtype: the empty value of max. */
const lowest = (dtype: DType) => range(dtype)[0];
/** The highest: the empty value of min. */
const highest = (dtype: DType) => range(dtype)[1];

/** `op(x, y)` as an expression, in the dtype. */
export function combine(p: Predicate, x: string, y: string): string {
  return expr.printExpr(
    expr.substitute(
      parseExpression(p.operation),
      new Map<string, Expr>([
        ['a', parseExpression(`(${x})`)],
        ['b', parseExpression(`(${y})`)],
      ]),
    ),
  );
}

/** The empty value as a literal of the dtype. */
export function emptyLiteral(p: Predicate, dtype: DType): string {
  const v = p.empty;
  // -2^31 is written as -(2^31 - 1) - 1: the literal 2^31 would not fit an int32
  if (v === -2147483648) return `${dtype}(-2147483647 - 1)`;
  const text =
    Number.isInteger(v) && !isFloat(dtype)
      ? String(v)
      : Number.isInteger(v) && Math.abs(v) < 1e21
        ? `${v}.0`
        : String(v);
  return `${dtype}(${text})`;
}
