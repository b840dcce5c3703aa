/**
 * Printed C expressions and their binding strength: what the printer builds expressions
 * from, so that parentheses are placed by the tree, never by taste.
 */

/**
 * Binding strength, higher binds tighter (C's precedence table). Parentheses follow the
 * tree, never arithmetic: every binary operator here is left-associative, so a right
 * operand of the same strength keeps its parentheses (`c + (a - b)`, `a / (b * c)`):
 * in floats (and for `-` and `/` everywhere) regrouping changes the result.
 */
export const PRECEDENCE = {
  ternary: 1,
  or: 2,
  and: 3,
  bitOr: 4,
  bitXor: 5,
  bitAnd: 6,
  equality: 7,
  relational: 8,
  shift: 9,
  additive: 10,
  multiplicative: 11,
  unary: 12,
  postfix: 13,
  atom: 14,
} as const;

/** A printed expression: its text and how tightly it binds. */
export interface Printed {
  /** The C text. */
  readonly text: string;
  /** Its binding strength (`PRECEDENCE`). */
  readonly precedence: number;
  /**
   * A wrapping signed operation: the same value still in the unsigned type, before the cast
   * back, so that `a + b*c` on data is one cast around unsigned arithmetic, not one per node.
   */
  readonly unsigned?: Printed;
}

/** `text` that binds as tightly as anything (a name, a literal). */
export function atom(text: string): Printed {
  return { text, precedence: PRECEDENCE.atom };
}

/**
 * A literal as a dialect spells it: `2.0f` and `NAN` are atoms, but `-1`, `-INFINITY` and
 * `(half) 2.0f` are unary expressions, which `-(-1)` and casts of them must know.
 */
export function literal(text: string): Printed {
  return /^[0-9A-Za-z]/.test(text) ? atom(text) : { text, precedence: PRECEDENCE.unary };
}

/** `-x`, `!x`, `~x`: never `--x` or `- -x` glued into C's decrement. */
export function prefix(op: '-' | '!' | '~', p: Printed): Printed {
  const glued = op === '-' && p.text.startsWith('-');
  return { text: `${op}${glued ? `(${p.text})` : paren(p, PRECEDENCE.unary)}`, precedence: PRECEDENCE.unary };
}

/** A call `fn(args...)`. */
export function call(fn: string, args: readonly string[]): Printed {
  return { text: `${fn}(${args.join(', ')})`, precedence: PRECEDENCE.postfix };
}

/** `p` as an operand that needs at least precedence `needed`. */
export function paren(p: Printed, needed: number): string {
  return p.precedence < needed ? `(${p.text})` : p.text;
}

/** A left-associative binary operator: the right operand must bind strictly tighter. */
export function infix(l: Printed, op: string, r: Printed, precedence: number): Printed {
  return { text: `${paren(l, precedence)} ${op} ${paren(r, precedence + 1)}`, precedence };
}
