/**
 * The expression IR: small immutable nodes, one discriminated union.
 *
 * Integers and floats are kept apart (`2` and `2.0` are different literals: the
 * first does not widen a float32 computation, the second is a float literal whose
 * type is decided by promotion). Arrays are always referenced by name.
 * Passes over the IR are written as functions with a `switch (e.kind)` (see
 * `visit.ts` for the generic mapper); nodes are never mutated.
 */

import { LoomError } from '../errors.ts';
import { DTYPES, isDType, type RealDType } from '../dtypes.ts';
import { MATH_FUNCTIONS, type MathFunction } from './math-functions.ts';

/** Arithmetic operators (`//` floor division, `**` power). */
export type ArithmeticOp = '+' | '-' | '*' | '/' | '//' | '%' | '**';
/** Bitwise operators, on integers only (Python's and C's meaning; `>>` is arithmetic on signed types). */
export type BitwiseOp = '&' | '|' | '^' | '<<' | '>>';
/** The operators of `Binary` nodes: arithmetic and bitwise. */
export type BinaryOp = ArithmeticOp | BitwiseOp;
/** The operators of `Compare` nodes. */
export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
/** The operators of `Logical` nodes. */
export type LogicalOp = 'and' | 'or';
/**
 * The name of a reduction operation: a built-in (`sum`, `product`, `max`, `min`, `any`, `all`,
 * `argmax`, `argmin`, `segmented(sum)`, `segmented(product)`) or one added with
 * `registerReduction` (../reduction/operations.ts says what each does).
 */
export type ReductionOp = string;

/** An integer literal. */
export interface IntLit {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'int';
  /** The integer (a safe integer; -0 is stored as 0). */
  readonly value: number;
}
/**
 * A float literal. Written plainly (`2.0`) it is weak: it takes the type of what it meets.
 * Written with a size (`2.0f`, `2.0d`, as loopy reads them) it is a float32 or float64 value
 * of its own, as strong as a variable of that type.
 */
export interface FloatLit {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'float';
  /** The number (already rounded to float32 for a float32 literal). */
  readonly value: number;
  /** `float32` (`2.0f`) or `float64` (`2.0d`); absent: a weak literal. */
  readonly dtype?: 'float32' | 'float64';
}
/**
 * An imaginary literal: `5j` (weak, complex128 alone), `5jf` (a complex64 value), `5jd` (complex128).
 * Complex values are lowered to pairs of reals before code generation (kernel/complex.ts).
 */
export interface ImagLit {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'imag';
  /** The imaginary part (the literal is `value`·i). */
  readonly value: number;
  /** `complex64` (`5jf`) or `complex128` (`5jd`); absent: a weak literal. */
  readonly dtype?: 'complex64' | 'complex128';
}
/** A boolean literal. */
export interface BoolLit {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'bool';
  /** The truth value. */
  readonly value: boolean;
}
/** A name: an iname, an argument, a temporary or a parameter. */
export interface Var {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'var';
  /** The name. */
  readonly name: string;
}
/**
 * `a[i, j]`: an element of the array named `array`. `linear`: loopy's `a[[k]]`, one index
 * into the array's storage, whatever its shape (`makeKernel` turns it into a multi-index).
 */
export interface Subscript {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'subscript';
  /** The array's name. */
  readonly array: string;
  /** One index per axis (one in all when `linear`). */
  readonly indices: readonly Expr[];
  /** Loopy's `a[[k]]`: one index into the array's storage. */
  readonly linear?: true;
  /**
   * Loopy's tagged read `G$x[...]`: names this use of the array, so that `addPrefetch(knl,
   * 'G$x[...]')` fetches only the reads tagged `x`. Nothing else looks at it, and no target prints it.
   */
  readonly tag?: string;
  /** `a[i].f.g`: a field inside the element, which is a struct (structs/). */
  readonly field?: FieldRef;
}
/**
 * The path to a real value inside a struct element: field names and, in array fields, element
 * indices. The front end resolves it against the array's struct dtype (`dtype`, `offset`),
 * so that no later pass needs the struct to type or place it.
 */
export interface FieldRef {
  /** Field names and constant array-field indices, outermost first. */
  readonly path: readonly (string | number)[];
  /** The dtype of the value reached, once resolved. */
  readonly dtype?: RealDType;
  /** Its byte offset from the struct's start, once resolved. */
  readonly offset?: number;
}
/** Arithmetic negation `-operand`. */
export interface Neg {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'neg';
  /** The value negated. */
  readonly operand: Expr;
}
/** `~a`: the bitwise complement of an integer. */
export interface BitNot {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'bitnot';
  /** The integer complemented. */
  readonly operand: Expr;
}
/** An arithmetic or bitwise operation `left op right`. */
export interface Binary {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'binary';
  /** The operator. */
  readonly op: BinaryOp;
  /** The left operand. */
  readonly left: Expr;
  /** The right operand. */
  readonly right: Expr;
}
/** A comparison `left op right`, a boolean. */
export interface Compare {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'compare';
  /** The comparison. */
  readonly op: CompareOp;
  /** The left operand. */
  readonly left: Expr;
  /** The right operand. */
  readonly right: Expr;
}
/** `left and right`, `left or right`. */
export interface Logical {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'logical';
  /** `and` or `or`. */
  readonly op: LogicalOp;
  /** The left operand. */
  readonly left: Expr;
  /** The right operand. */
  readonly right: Expr;
}
/** Logical negation `not operand`. */
export interface Not {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'not';
  /** The condition negated. */
  readonly operand: Expr;
}
/** `if(c, a, b)`: a value-level conditional (C's `c ? a : b`). */
export interface If {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'if';
  /** The condition. */
  readonly condition: Expr;
  /** The value where the condition holds. */
  readonly then: Expr;
  /** The value where it does not. */
  readonly otherwise: Expr;
}
/**
 * A call of a known function (`sin`, `min`, ...), of a registered user function, or of a
 * substitution rule. `tag`: loopy's tagged call `g$two(x)`, which names this use of rule `g`
 * (the tag does not change what is called).
 */
export interface Call {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'call';
  /** The function, user function or rule called. */
  readonly fn: string;
  /** The arguments, in order. */
  readonly args: readonly Expr[];
  /** Loopy's call tag (`g$two(x)`): names this use of a rule. */
  readonly tag?: string;
  /** A call of a user function, resolved once types are known: its result dtype (functions/). */
  readonly dtype?: string;
}
/**
 * `sum(k, e)`, `max((i, j), e)`, `argmax(i, abs(a[i]), i)`, `reduce(segmented(sum), j, x[j], f[j])`:
 * a reduction over `inames` of one value per point (`operands`: one expression for most
 * operations, two for `argmax` and the segmented ones).
 */
export interface Reduce {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'reduce';
  /** The reduction operation (`sum`, `max`, `argmax`, a registered one...). */
  readonly op: ReductionOp;
  /** The inames reduced over. */
  readonly inames: readonly string[];
  /** The values reduced: one for most operations, two for `argmax` and the segmented ones. */
  readonly operands: readonly Expr[];
  /**
   * Written `simul_reduce(...)`: loopy refuses an iname reduced over by two reductions unless
   * they say so. Loom accepts both spellings alike (its linearizer says when an order is
   * impossible); the flag keeps the spelling for printing.
   */
  readonly simultaneous: boolean;
}
/** A conversion inserted by type inference or written by the user (`float32(x)`). */
export interface Cast {
  /** The node kind, which tells the `Expr` union apart. */
  readonly kind: 'cast';
  /** The dtype converted to. */
  readonly dtype: string;
  /** The value converted. */
  readonly operand: Expr;
}

/** An expression of Loom's language: immutable nodes, told apart by `kind` (pymbolic's expressions in loopy). */
export type Expr =
  | IntLit
  | FloatLit
  | ImagLit
  | BoolLit
  | Var
  | Subscript
  | Neg
  | BitNot
  | Binary
  | Compare
  | Logical
  | Not
  | If
  | Call
  | Reduce
  | Cast;

// Constructors: the only way nodes are built, so every node is frozen.

/** An integer literal node. */
export const int = (value: number): IntLit => {
  if (!Number.isInteger(value)) throw new RangeError(`int literal must be an integer, got ${value}`);
  return Object.freeze({ kind: 'int', value: value === 0 ? 0 : value });
};
/** A float literal node (float32 or float64; none: a weak literal that takes its context's type). */
export const float = (value: number, dtype?: 'float32' | 'float64'): FloatLit =>
  Object.freeze(
    dtype === undefined
      ? { kind: 'float', value }
      : { kind: 'float', value: dtype === 'float32' ? Math.fround(value) : value, dtype },
  );
/** An imaginary literal node (`value` times i). */
export const imag = (value: number, dtype?: 'complex64' | 'complex128'): ImagLit =>
  Object.freeze(
    dtype === undefined
      ? { kind: 'imag', value }
      : { kind: 'imag', value: dtype === 'complex64' ? Math.fround(value) : value, dtype },
  );
/** A boolean literal node. */
export const bool = (value: boolean): BoolLit => Object.freeze({ kind: 'bool', value });
/** A name node. */
export const variable = (name: string): Var => Object.freeze({ kind: 'var', name });
/** An array access node `array[indices]` (`linear`: one flat index; `tag`: loopy's `array$tag[...]`). */
export const subscript = (
  array: string,
  indices: readonly Expr[],
  linear?: boolean,
  tag?: string,
  field?: FieldRef,
): Subscript =>
  Object.freeze({
    kind: 'subscript',
    array,
    indices: Object.freeze([...indices]),
    ...(linear ? { linear: true as const } : {}),
    ...(tag !== undefined ? { tag } : {}),
    ...(field !== undefined ? { field } : {}),
  });
/** A negation node. */
export const neg = (operand: Expr): Neg => Object.freeze({ kind: 'neg', operand });
/** A bitwise-not node. */
export const bitnot = (operand: Expr): BitNot => Object.freeze({ kind: 'bitnot', operand });
/** A binary operation node. */
export const binary = (op: BinaryOp, left: Expr, right: Expr): Binary =>
  Object.freeze({ kind: 'binary', op, left, right });
/** A comparison node. */
export const compare = (op: CompareOp, left: Expr, right: Expr): Compare =>
  Object.freeze({ kind: 'compare', op, left, right });
/** An `and`/`or` node. */
export const logical = (op: LogicalOp, left: Expr, right: Expr): Logical =>
  Object.freeze({ kind: 'logical', op, left, right });
/** A logical-not node. */
export const not = (operand: Expr): Not => Object.freeze({ kind: 'not', operand });
/** A conditional node `condition ? then : otherwise`. */
export const ifThenElse = (condition: Expr, then: Expr, otherwise: Expr): If =>
  Object.freeze({ kind: 'if', condition, then, otherwise });
/** A function call node. */
export const call = (fn: string, args: readonly Expr[], tag?: string, dtype?: string): Call =>
  Object.freeze({
    kind: 'call',
    fn,
    args: Object.freeze([...args]),
    ...(tag === undefined ? {} : { tag }),
    ...(dtype === undefined ? {} : { dtype }),
  });
/** A reduction of one expression (`body`) or of several (`argmax`: value and index). */
export const reduce = (
  op: ReductionOp,
  inames: readonly string[],
  body: Expr | readonly Expr[],
  simultaneous = false,
): Reduce =>
  Object.freeze({
    kind: 'reduce',
    op,
    inames: Object.freeze([...inames]),
    operands: Object.freeze(isExprList(body) ? [...body] : [body]),
    simultaneous,
  });

function isExprList(x: Expr | readonly Expr[]): x is readonly Expr[] {
  return Array.isArray(x);
}
/** What a refused cast names: `'float4'`, `the struct 'bbhit'`, or the object as JSON. */
function describeCastTarget(dtype: unknown): string {
  if (typeof dtype === 'string') return `'${dtype}'`;
  const struct = dtype as { kind?: unknown; name?: unknown } | null;
  // a struct's fields are assigned one by one (`result[i].hit = ...`), never cast to as a whole
  if (struct?.kind === 'struct' && typeof struct.name === 'string') return `the struct '${struct.name}'`;
  return JSON.stringify(dtype);
}

/**
 * A cast node: `operand` converted to `dtype`, which must be one of Loom's dtypes: a cast to
 * anything else (a struct, a vector, a misspelling) would only fail, or worse, in some target's
 * code, so it is refused here, where it is made.
 */
export function cast(dtype: string, operand: Expr): Cast {
  if (typeof dtype !== 'string' || !isDType(dtype)) {
    const what = describeCastTarget(dtype);
    throw new LoomError(`cast: ${what} is no dtype a value can be cast to (dtypes: ${DTYPES.join(', ')})`);
  }
  return Object.freeze({ kind: 'cast', dtype, operand });
}

/** `a + b`. */
export const add = (a: Expr, b: Expr) => binary('+', a, b);
/** `a - b`. */
export const sub = (a: Expr, b: Expr) => binary('-', a, b);
/** `a * b`. */
export const mul = (a: Expr, b: Expr) => binary('*', a, b);

/**
 * The functions the expression language knows, with their arity (`undefined` = variadic >= 1),
 * from the table of known functions (math-functions.ts).
 */
export const KNOWN_FUNCTIONS: Readonly<Record<string, number | undefined>> = Object.freeze(
  Object.fromEntries(
    Object.entries(MATH_FUNCTIONS).map(([name, f]: [string, MathFunction]) => [
      name,
      f.arity === 'variadic' ? undefined : f.arity,
    ]),
  ),
);
