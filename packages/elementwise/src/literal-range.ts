/**
 * Integral literals that do not fit the integer dtype they take.
 *
 * A payload's whole-number literal is a weak integer (README, Payloads): beside int32 data it
 * becomes an int32, beside int8 data an int8. One the dtype cannot hold (`x + 3000000000` over
 * int32, `x + 200` over int8) would wrap or saturate, each device its own way, into a result
 * that is neither JavaScript's (3000000002) nor PyTorch's, which refuses it ("value cannot be
 * converted to type int32 without overflow"). So it is a LoomError before anything runs,
 * naming the literal, with a caret under it when the payload was a function.
 *
 * The rule is PyTorch's (c10's `overflows`): a literal fits a signed dtype within its range;
 * an unsigned dtype also takes negative literals down to minus its maximum, which wrap as
 * two's complement does (`x + -1` over uint8 is `x - 1`, as in PyTorch). Beside bool data a
 * literal takes int32 (the core's integer for a bool meeting a weak int).
 */
import {
  combineTypes,
  expr,
  exprTypes,
  isInteger,
  LoomError,
  type DType,
  type Expr,
  type ExprType,
  type SourceSpan,
} from '@loom/core';

/** The smallest and largest value of each integer dtype a literal may take, exactly. */
const RANGES: Readonly<Partial<Record<DType, readonly [bigint, bigint]>>> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [-(2n ** 8n - 1n), 2n ** 8n - 1n],
  uint16: [-(2n ** 16n - 1n), 2n ** 16n - 1n],
  uint32: [-(2n ** 32n - 1n), 2n ** 32n - 1n],
  uint64: [-(2n ** 64n - 1n), 2n ** 64n - 1n],
};

/** Whether the whole number `value` fits integer `dtype` by PyTorch's rule (above); any value fits other dtypes. */
export function literalFits(value: number | bigint, dtype: DType): boolean {
  const range = RANGES[dtype];
  if (range === undefined) return true;
  if (typeof value === 'number' && !Number.isInteger(value)) return false;
  const v = BigInt(value);
  return v >= range[0] && v <= range[1];
}

/**
 * Refuses a whole-number scalar argument that does not fit the integer dtype it is passed in
 * (a weak one takes the computation's, as a literal does; PyTorch refuses it alike): it would
 * wrap (3000000000 as int32 is -1294967296). `what` names the argument.
 */
export function checkScalarFits(value: number | bigint, dtype: DType, what: string, declared: boolean): void {
  if (literalFits(value, dtype)) return;
  const how = declared
    ? 'the dtype declared for it in dtypes'
    : 'the dtype of the integer computation it joins (a whole number is a weak integer, as in PyTorch)';
  throw new LoomError(
    `${what} is ${value}, which does not fit ${dtype}, ${how}: declare it 'float' in dtypes, or make the tensors ${wider(dtype)}`,
  );
}

/** What the check needs: the dtypes of names, and where a literal was written (if known). */
export interface LiteralContext {
  readonly typeOf: (name: string) => DType | undefined;
  readonly spanOf: (literal: Expr) => SourceSpan | undefined;
}

/**
 * Throws a LoomError for the first integer literal in `e` that meets integer data it does not
 * fit; `storedAs` is the dtype `e` is stored in (an output's), which a weak `e` takes.
 */
export function checkLiteralRanges(e: Expr, context: LiteralContext, storedAs?: DType): void {
  const typeOf = exprTypes(context.typeOf);
  if (storedAs !== undefined && typeOf(e).weak) checkOperands([e], { dtype: storedAs, weak: false }, context, typeOf);
  // each node once: weak values shared by several uses are written out at each (lower.ts)
  const seen = new Set<Expr>();
  const stack = [e];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    const operands = combined(node);
    if (operands !== undefined) checkOperands(operands, operands.map(typeOf).reduce(combineTypes), context, typeOf);
    if (operands !== undefined) checkUnsignedOrder(node, operands.map(typeOf).reduce(combineTypes), context, typeOf);
    stack.push(...expr.children(node));
  }
}

/** The operands of `node` that the core converts to one type (their join), or undefined for other nodes. */
function combined(node: Expr): readonly Expr[] | undefined {
  switch (node.kind) {
    case 'binary':
    case 'compare':
      return [node.left, node.right];
    case 'if':
      return [node.then, node.otherwise];
    case 'call':
      // a call with its dtype resolved converts nothing; the others join their arguments
      return node.dtype === undefined && node.args.length > 0 ? node.args : undefined;
    default:
      return undefined;
  }
}

/** Checks the literals of the weak operands among `operands` against `joined`, when that is a (strong) integer type. */
function checkOperands(
  operands: readonly Expr[],
  joined: ExprType,
  context: LiteralContext,
  typeOf: (e: Expr) => ExprType,
): void {
  if (joined.weak || !isInteger(joined.dtype)) return;
  for (const operand of operands) {
    if (!typeOf(operand).weak) continue;
    for (const { value, node } of valueLiterals(operand)) {
      if (literalFits(value, joined.dtype)) continue;
      throw new LoomError(
        `the literal ${Number.isSafeInteger(value) ? value : BigInt(value)} does not fit ${joined.dtype}, the dtype it takes here: a whole-number literal is a weak integer, which takes the dtype ` +
          `of the integer data it meets (int32 beside bool) or of the integer output it is stored in, and PyTorch refuses it too. To compute with it, ` +
          `make the data ${wider(joined.dtype)} (tensor(values, shape, { dtype: '${wider(joined.dtype)}' })), or pass the number as a scalar argument declared 'float' in dtypes`,
        context.spanOf(node),
      );
    }
  }
}

/**
 * Refuses a negative literal that an unsigned comparison or shift count would take wrapped
 * (README: beside unsigned data `-2` is `2^bits - 2`). The targets disagree there: C compares
 * uint8 data with -2 in int (false for `5 < -2`), JavaScript too, while C's uint32 comparison
 * and the documented rule give true; and a wrapped shift count is past the width, which each
 * target shifts its own way. Saying which value is meant is left to the author.
 */
function checkUnsignedOrder(
  node: Expr,
  joined: ExprType,
  context: LiteralContext,
  typeOf: (e: Expr) => ExprType,
): void {
  if (joined.weak || !joined.dtype.startsWith('u') || !isInteger(joined.dtype)) return;
  const shift = node.kind === 'binary' && (node.op === '<<' || node.op === '>>');
  if (node.kind !== 'compare' && !shift) return;
  const candidates = shift ? [(node as Extract<Expr, { kind: 'binary' }>).right] : combined(node)!;
  for (const operand of candidates) {
    if (!typeOf(operand).weak) continue;
    for (const { value, node: literal } of valueLiterals(operand)) {
      if (value >= 0) continue;
      const wrapped = wrapUnsigned(value, joined.dtype);
      // a literal past 2^53 reads as a double (uint64's 2^64 - 2 is 2^64): not one to suggest
      const writable = wrapped <= BigInt(Number.MAX_SAFE_INTEGER);
      const what = shift
        ? `the shift count ${value} beside ${joined.dtype} data`
        : `the literal ${value} compared with ${joined.dtype} data`;
      throw new LoomError(
        `${what} would wrap to ${wrapped} under the promotion rule (a negative literal beside unsigned data wraps, as in PyTorch), where JavaScript ` +
          `and the devices ${shift ? 'shift' : 'compare'} by ${value}: ${writable ? `write ${wrapped} if that is meant, or ` : ''}convert the data to a signed dtype (tensor(values, shape, { dtype: 'int64' }))`,
        context.spanOf(literal),
      );
    }
  }
}

/** Bits of each unsigned integer dtype. */
const UNSIGNED_BITS: Readonly<Partial<Record<DType, bigint>>> = { uint8: 8n, uint16: 16n, uint32: 32n, uint64: 64n };

/** Whole number `value` wrapped into unsigned integer `dtype`, as two's complement does (-2 as uint8 is 254). */
export function wrapUnsigned(value: number, dtype: DType): bigint {
  return BigInt.asUintN(Number(UNSIGNED_BITS[dtype]), BigInt(value));
}

/**
 * Weak `e` with its negative integer literals wrapped into unsigned `dtype` (README: `-2` beside
 * uint8 is 254), so that no target computes with the negative value: C and JavaScript would
 * compute `x | -2` over uint8 in int as -1, where the rule gives 255. A value past 2^53
 * (uint64) is a conversion, as a double cannot spell it.
 */
export function wrapNegativeLiterals(e: Expr, dtype: DType): Expr {
  switch (e.kind) {
    case 'int':
    case 'neg': {
      const value = e.kind === 'int' ? e.value : e.operand.kind === 'int' ? -e.operand.value : undefined;
      if (value === undefined || value >= 0) return e;
      const wrapped = wrapUnsigned(value, dtype);
      return wrapped <= BigInt(Number.MAX_SAFE_INTEGER) ? expr.int(Number(wrapped)) : expr.cast(dtype, expr.int(value));
    }
    case 'if':
      return expr.ifThenElse(
        e.condition,
        wrapNegativeLiterals(e.then, dtype),
        wrapNegativeLiterals(e.otherwise, dtype),
      );
    default:
      return e;
  }
}

/** The dtype to suggest instead of integer `dtype`: int64 where it is wider, else float64. */
function wider(dtype: DType): DType {
  return dtype === 'int64' || dtype === 'uint64' ? 'float64' : 'int64';
}

/**
 * The integer literals whose values a weak expression takes on some elements: itself, the
 * branches of a conditional between literals, a negated literal. (Folding leaves no other
 * arithmetic between literals.)
 */
function valueLiterals(e: Expr): { value: number; node: Expr }[] {
  switch (e.kind) {
    case 'int':
      return [{ value: e.value, node: e }];
    case 'neg':
      return valueLiterals(e.operand).map(({ value, node }) => ({ value: -value, node }));
    case 'if':
      return [...valueLiterals(e.then), ...valueLiterals(e.otherwise)];
    case 'binary':
      return [...valueLiterals(e.left), ...valueLiterals(e.right)];
    case 'call':
      return e.args.flatMap(valueLiterals);
    default:
      return [];
  }
}
