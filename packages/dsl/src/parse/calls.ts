/**
 * Calls of other kernels read at the type level: each line of a literal instruction block
 * written in loopy's call syntax gives the callee's name, and the names passed and assigned,
 * in order:
 *
 *   CallFacts<'[j]: y[i, j] = twice([j]: x[j, i], n)'>
 *     = { callee: 'twice'; args: ['x', 'n']; results: ['y'] }
 *
 * A line is a call when its right side is one call and the line has a colon, as loopy's
 * sub-array references (`[j]: x[j]`) and slices (`x[:, 2]`) have; an operand that is no
 * name (`2*n`, `x[0] + 1`) is `'#'`. What this cannot read gives no fact, and the program
 * built at run time checks every call again.
 */
import type { Lines, WithoutAttributes, WithoutComment } from './instructions.ts';
import type { Digit, IdentifierChar, Trim } from './scan.ts';

/** One call as written: the callee, then the names its arguments and results refer to. */
export interface CallFact {
  /** The kernel called. */
  readonly callee: string;
  /** What each argument refers to: an array or value's name, or `'#'`. */
  readonly args: readonly string[];
  /** The array or variable each result is written to, or `'#'`. */
  readonly results: readonly string[];
}

/** Whether `S` is an identifier. */
type IsName<S extends string> = S extends '' | `${Digit}${string}` ? false : AllNameChars<S>;
type AllNameChars<S extends string> = S extends `${infer C}${infer R}`
  ? C extends IdentifierChar
    ? AllNameChars<R>
    : false
  : true;

/**
 * `a, [j]: b[i, j], f(c, d)` → `['a', '[j]: b[i, j]', 'f(c, d)']`: the commas outside brackets
 * separate. An unbalanced closing bracket (`a) + g(b`: not one call) gives `never`.
 */
type SplitOperands<
  S extends string,
  Current extends string = '',
  Depth extends string = '',
  Found extends string[] = [],
> = S extends `${infer C}${infer Rest}`
  ? C extends '[' | '('
    ? SplitOperands<Rest, `${Current}${C}`, `${Depth}x`, Found>
    : C extends ']' | ')'
      ? Depth extends `x${infer Less}`
        ? SplitOperands<Rest, `${Current}${C}`, Less, Found>
        : never
      : C extends ','
        ? Depth extends ''
          ? SplitOperands<Rest, '', '', [...Found, Trim<Current>]>
          : SplitOperands<Rest, `${Current}${C}`, Depth, Found>
        : SplitOperands<Rest, `${Current}${C}`, Depth, Found>
  : Trim<Current> extends ''
    ? Found
    : [...Found, Trim<Current>];

/** `[j]: x[j, i]`, `x[:, 2]`, `x`, `n` → the name referred to; anything else `'#'`. */
type OperandName<O extends string> = O extends `[${string}]:${infer Ref}` ? RefName<Trim<Ref>> : RefName<O>;
type RefName<R extends string> = R extends `${infer Name}[${string}`
  ? IsName<Trim<Name>> extends true
    ? Trim<Name>
    : '#'
  : IsName<R> extends true
    ? R
    : '#';
type Names<Operands extends string[]> = { [K in keyof Operands]: OperandName<Operands[K]> };

type CallOf<Lhs extends string, Rhs extends string> = Rhs extends `${infer Callee}(${infer Inner})`
  ? IsName<Trim<Callee>> extends true
    ? [SplitOperands<Inner>, SplitOperands<Lhs>] extends [infer A extends string[], infer R extends string[]]
      ? { readonly callee: Trim<Callee>; readonly args: Names<A>; readonly results: Names<R> }
      : never
    : never
  : never;

type LineCall<L extends string> = L extends `${string}:=${string}`
  ? never
  : L extends `${string}:${string}`
    ? L extends `${infer Lhs}=${infer Rhs}`
      ? CallOf<Trim<Lhs>, Trim<Rhs>>
      : never
    : never;

type LineCalls<L extends string> = L extends unknown ? LineCall<Trim<WithoutAttributes<WithoutComment<L>>>> : never;

/** The calls of an instruction block (a string, or a list of strings joined by lines), one fact per call. */
export type CallFacts<X> = X extends readonly string[]
  ? LineCalls<Lines<X[number]>>
  : X extends string
    ? LineCalls<Lines<X>>
    : never;
