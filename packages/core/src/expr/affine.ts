/**
 * The affine view of an expression: `16*i_outer + i_inner - 1` as the linear form
 * `16·i_outer + i_inner - 1` (`Linear`, shared with the integer-set library), and back.
 *
 * Variables are taken to be integers here: the callers ask about index expressions and
 * loop bounds, which are.
 */
import { CoefficientRangeError } from '../errors.ts';
import { floorDiv, Linear } from '../linear.ts';
import { add, int, mul, neg, sub, variable, type BinaryOp, type Expr } from './nodes.ts';

/**
 * `e` as a linear form, or `undefined` when it is not affine: a product of two non-constant
 * factors (`n*i`), a division, `//` or `%` of a non-constant, a float, an array element, a
 * call. Constant sub-expressions are evaluated (`2**3`, `7 // 2`), with integer semantics.
 */
export function toLinear(e: Expr): Linear | undefined {
  try {
    return linearOf(e);
  } catch (err) {
    if (err instanceof CoefficientRangeError) return undefined; // a coefficient beyond safe integers: not affine for Loom
    throw err;
  }
}

function linearOf(e: Expr): Linear | undefined {
  switch (e.kind) {
    case 'int':
      return Linear.constant(e.value);
    case 'var':
      return Linear.variable(e.name);
    case 'neg':
      return linearOf(e.operand)?.negate();
    case 'binary': {
      const left = linearOf(e.left);
      const right = left && linearOf(e.right);
      if (!left || !right) return undefined;
      switch (e.op) {
        case '+':
          return left.add(right);
        case '-':
          return left.sub(right);
        case '*':
          if (left.isConstant) return right.scale(left.constant);
          if (right.isConstant) return left.scale(right.constant);
          return undefined;
        default: {
          const value =
            left.isConstant && right.isConstant ? foldInteger(e.op, left.constant, right.constant) : undefined;
          return value === undefined ? undefined : Linear.constant(value);
        }
      }
    }
    default:
      return undefined;
  }
}

/**
 * The value of `a op b` on integers, with the IR's (Python's) meaning: `//` rounds down and
 * `%` takes the divisor's sign. `undefined` where the result is no safe integer: `/` (a true
 * division), division by zero, a negative power, an overflow.
 */
export function foldInteger(op: BinaryOp, a: number, b: number): number | undefined {
  let value: number;
  switch (op) {
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>':
      return undefined; // their value depends on the integer type's width
    case '+':
      value = a + b;
      break;
    case '-':
      value = a - b;
      break;
    case '*':
      value = a * b;
      break;
    case '//':
      if (b === 0) return undefined;
      value = floorDiv(a, b);
      break;
    case '%':
      if (b === 0) return undefined;
      value = a - b * floorDiv(a, b);
      break;
    case '**':
      if (b < 0) return undefined;
      value = a ** b;
      break;
    case '/':
      return undefined;
  }
  return Number.isSafeInteger(value) ? (value === 0 ? 0 : value) : undefined;
}

/** Where `name` stands in `order` (after all of it when absent). */
function rankIn(order: readonly string[], name: string): number {
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}

/**
 * A readable expression for a linear form: variables in `order` (the others after them, in
 * the form's own order), the constant last, a coefficient of one left out and a negative
 * term written as a subtraction: `n - 1`, `16*i_outer + i_inner`, `-i + n`.
 */
export function fromLinear(l: Linear, order: readonly string[] = []): Expr {
  const names = order.length === 0 ? l.variables : l.variables.sort((a, b) => rankIn(order, a) - rankIn(order, b));

  let result: Expr | undefined;
  for (const name of names) {
    const c = l.coeff(name);
    const magnitude = Math.abs(c) === 1 ? variable(name) : mul(int(Math.abs(c)), variable(name));
    if (result === undefined) result = c > 0 ? magnitude : c === -1 ? neg(variable(name)) : mul(int(c), variable(name));
    else result = c > 0 ? add(result, magnitude) : sub(result, magnitude);
  }
  if (result === undefined) return int(l.constant);
  if (l.constant > 0) return add(result, int(l.constant));
  if (l.constant < 0) return sub(result, int(-l.constant));
  return result;
}
