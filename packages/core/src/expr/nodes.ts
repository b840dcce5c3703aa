/**
 * The expression IR: small immutable nodes, one discriminated union.
 *
 * Integers and floats are kept apart (`2` and `2.0` are different literals: the
 * first does not widen a float32 computation, the second is a float literal whose
 * type is decided by promotion). Arrays are always referenced by name.
 * Passes over the IR are written as functions with a `switch (e.kind)` (see
 * `visit.ts` for the generic mapper); nodes are never mutated.
 */

export type BinaryOp = '+' | '-' | '*' | '/' | '//' | '%' | '**';
export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type LogicalOp = 'and' | 'or';
/**
 * The name of a reduction operation: a built-in (`sum`, `product`, `max`, `min`, `any`, `all`,
 * `argmax`, `argmin`, `segmented(sum)`, `segmented(product)`) or one added with
 * `registerReduction` (../reduction/operations.ts says what each does).
 */
export type ReductionOp = string;

export interface IntLit { readonly kind: 'int'; readonly value: number }
export interface FloatLit { readonly kind: 'float'; readonly value: number }
export interface BoolLit { readonly kind: 'bool'; readonly value: boolean }
export interface Var { readonly kind: 'var'; readonly name: string }
/** `a[i, j]`: an element of the array named `array`. */
export interface Subscript { readonly kind: 'subscript'; readonly array: string; readonly indices: readonly Expr[] }
export interface Neg { readonly kind: 'neg'; readonly operand: Expr }
export interface Binary { readonly kind: 'binary'; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr }
export interface Compare { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
export interface Logical { readonly kind: 'logical'; readonly op: LogicalOp; readonly left: Expr; readonly right: Expr }
export interface Not { readonly kind: 'not'; readonly operand: Expr }
/** `if(c, a, b)`: a value-level conditional (C's `c ? a : b`). */
export interface If { readonly kind: 'if'; readonly condition: Expr; readonly then: Expr; readonly otherwise: Expr }
/** A call of a known function (`sin`, `min`, ...) or of a substitution rule. */
export interface Call { readonly kind: 'call'; readonly fn: string; readonly args: readonly Expr[] }
/**
 * `sum(k, e)`, `max((i, j), e)`, `argmax(i, abs(a[i]), i)`, `reduce(segmented(sum), j, x[j], f[j])`:
 * a reduction over `inames` of one value per point (`operands`: one expression for most
 * operations, two for `argmax` and the segmented ones).
 */
export interface Reduce {
  readonly kind: 'reduce';
  readonly op: ReductionOp;
  readonly inames: readonly string[];
  readonly operands: readonly Expr[];
  /**
   * Written `simul_reduce(...)`: loopy refuses an iname reduced over by two reductions unless
   * they say so. Loom accepts both spellings alike (its linearizer says when an order is
   * impossible); the flag keeps the spelling for printing.
   */
  readonly simultaneous: boolean;
}
/** A conversion inserted by type inference or written by the user (`float32(x)`). */
export interface Cast { readonly kind: 'cast'; readonly dtype: string; readonly operand: Expr }

export type Expr =
  | IntLit
  | FloatLit
  | BoolLit
  | Var
  | Subscript
  | Neg
  | Binary
  | Compare
  | Logical
  | Not
  | If
  | Call
  | Reduce
  | Cast;

// Constructors: the only way nodes are built, so every node is frozen.

export const int = (value: number): IntLit => {
  if (!Number.isInteger(value)) throw new RangeError(`int literal must be an integer, got ${value}`);
  return Object.freeze({ kind: 'int', value: value === 0 ? 0 : value });
};
export const float = (value: number): FloatLit => Object.freeze({ kind: 'float', value });
export const bool = (value: boolean): BoolLit => Object.freeze({ kind: 'bool', value });
export const variable = (name: string): Var => Object.freeze({ kind: 'var', name });
export const subscript = (array: string, indices: readonly Expr[]): Subscript =>
  Object.freeze({ kind: 'subscript', array, indices: Object.freeze([...indices]) });
export const neg = (operand: Expr): Neg => Object.freeze({ kind: 'neg', operand });
export const binary = (op: BinaryOp, left: Expr, right: Expr): Binary => Object.freeze({ kind: 'binary', op, left, right });
export const compare = (op: CompareOp, left: Expr, right: Expr): Compare =>
  Object.freeze({ kind: 'compare', op, left, right });
export const logical = (op: LogicalOp, left: Expr, right: Expr): Logical =>
  Object.freeze({ kind: 'logical', op, left, right });
export const not = (operand: Expr): Not => Object.freeze({ kind: 'not', operand });
export const ifThenElse = (condition: Expr, then: Expr, otherwise: Expr): If =>
  Object.freeze({ kind: 'if', condition, then, otherwise });
export const call = (fn: string, args: readonly Expr[]): Call => Object.freeze({ kind: 'call', fn, args: Object.freeze([...args]) });
/** A reduction of one expression (`body`) or of several (`argmax`: value and index). */
export const reduce = (op: ReductionOp, inames: readonly string[], body: Expr | readonly Expr[], simultaneous = false): Reduce =>
  Object.freeze({
    kind: 'reduce', op, inames: Object.freeze([...inames]),
    operands: Object.freeze(isExprList(body) ? [...body] : [body]), simultaneous,
  });

function isExprList(x: Expr | readonly Expr[]): x is readonly Expr[] {
  return Array.isArray(x);
}
export const cast = (dtype: string, operand: Expr): Cast => Object.freeze({ kind: 'cast', dtype, operand });

export const add = (a: Expr, b: Expr) => binary('+', a, b);
export const sub = (a: Expr, b: Expr) => binary('-', a, b);
export const mul = (a: Expr, b: Expr) => binary('*', a, b);

/** The functions the expression language knows, with their arity (`undefined` = variadic >= 1). */
export const KNOWN_FUNCTIONS: Readonly<Record<string, number | undefined>> = Object.freeze({
  sin: 1, cos: 1, tan: 1, asin: 1, acos: 1, atan: 1, atan2: 2,
  sinh: 1, cosh: 1, tanh: 1,
  exp: 1, log: 1, log2: 1, log10: 1, sqrt: 1, rsqrt: 1, cbrt: 1,
  abs: 1, fabs: 1, floor: 1, ceil: 1, round: 1, trunc: 1,
  min: undefined, max: undefined, pow: 2, fmod: 2, erf: 1,
});
