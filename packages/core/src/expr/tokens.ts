/**
 * The pre-tokenizer: our own reading of an expression's text, token by token, with positions.
 *
 * mathjs does the parsing (operator precedence, nesting), but its tree carries no source
 * positions, it stores every number as a plain `number` (so `2` and `2.0` look alike) and it
 * speaks a slightly different language (`^` for power, no `**`, `//` or tuples). So before
 * mathjs sees the text we tokenize it ourselves:
 *
 *  - characters and operators outside our language are rejected right here, with a caret;
 *  - every token gets a *spelling* for mathjs (`**` becomes `^ `, `//` mathjs's `./`, a name
 *    `$$$`, a number `1  `), and we record where each respelled character came from, so
 *    mathjs's `(char N)` in a syntax error maps back to the original text, and mathjs's
 *    quirks tied to particular words (`mod`, `to`, `in`, `xor`, `end`, units ...) cannot
 *    trigger;
 *  - the converter (`from-mathjs.ts`) then walks mathjs's tree in source order alongside this
 *    token list, which gives every node its position and its original text.
 */
import { LoomError, type SourceSpan } from '../errors.ts';

export type TokenKind =
  | 'number' //  2, 2.0, .5, 1e-3
  | 'bool' //    true, false
  | 'name' //    identifiers: variables, arrays, functions, inames
  | 'word' //    the word operators and, or, not
  | 'op'; //     punctuation and symbolic operators

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** Offset of the first character in the expression text. */
  readonly start: number;
  /** Offset one past the last character. */
  readonly end: number;
}

/** Where an expression's text sits: possibly a slice of a larger source (an instruction line). */
export interface SourceSlice {
  /** The whole text the caret is drawn under. */
  readonly source: string;
  /** Offset of the expression's first character in `source`. */
  readonly offset: number;
}

/** A span of the expression text [start, end), moved into the surrounding source. */
export function spanOf(slice: SourceSlice, start: number, end = start + 1): SourceSpan {
  return { text: slice.source, start: slice.offset + start, end: slice.offset + Math.max(end, start + 1) };
}

export function errorAt(slice: SourceSlice, start: number, end: number, message: string): LoomError {
  return new LoomError(message, spanOf(slice, start, end));
}

const WORD_OPERATORS = new Set(['and', 'or', 'not']);
const BOOLEANS = new Set(['true', 'false']);

/** Symbolic operators we accept, longest first. */
const OPERATORS = ['**', '//', '==', '!=', '<=', '>=', '+', '-', '*', '/', '%', '^', '<', '>', '(', ')', '[', ']', ',', '?', ':'];

/** Operators of other languages that users write by habit: what to say instead. */
const FOREIGN_OPERATORS: ReadonlyArray<readonly [string, string]> = [
  ['&&', "'&&' is not an operator here; use 'and'"],
  ['||', "'||' is not an operator here; use 'or'"],
  ['<<', "bit shifts ('<<') are not supported"],
  ['>>', "bit shifts ('>>') are not supported"],
  ['!', "'!' is not an operator here; use 'not'"],
  ['=', "'=' is not allowed in an expression (did you mean '=='?)"],
  ['&', "bitwise '&' is not supported; for logic use 'and'"],
  ['|', "bitwise '|' is not supported; for logic use 'or'"],
  ['~', "bitwise '~' is not supported; for logic use 'not'"],
  ["'", 'strings (and transposes) are not supported in expressions'],
  ['"', 'strings are not supported in expressions'],
  [';', "';' is not allowed in an expression"],
];

const NUMBER = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Splits `text` into tokens; throws a `LoomError` at the first character that is not ours. */
export function tokenize(text: string, slice: SourceSlice): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  const push = (kind: TokenKind, length: number) => {
    tokens.push({ kind, text: text.slice(pos, pos + length), start: pos, end: pos + length });
    pos += length;
  };
  while (pos < text.length) {
    const rest = text.slice(pos);
    if (/^\s/.test(rest)) {
      pos++;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number) {
      push('number', number[0].length);
      // `2a`, `2i`, `1e`, `0x1F`: mathjs would read an implicit multiplication (or a hex
      // literal); for us a number runs into a name only when an operator is missing.
      if (/^[A-Za-z0-9_.]/.test(text.slice(pos))) {
        const what = text[pos] === '.' ? "unexpected '.'" : `missing operator between the number '${tokens[tokens.length - 1].text}' and '${text[pos]}'`;
        throw errorAt(slice, pos, pos + 1, what);
      }
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      const word = name[0];
      push(WORD_OPERATORS.has(word) ? 'word' : BOOLEANS.has(word) ? 'bool' : 'name', word.length);
      // `a.b`, `a.5`: there is no attribute access (and respelled, `a.5` would run together).
      if (text[pos] === '.') throw errorAt(slice, pos, pos + 1, "unexpected '.'");
      continue;
    }
    // Operators of other languages are checked first, so that `<<` is not read as two `<`;
    // but one of ours of two characters (`!=`, `==`) wins over a foreign `!` or `=`.
    const twoCharacter = OPERATORS.find((op) => op.length === 2 && rest.startsWith(op));
    const foreign = FOREIGN_OPERATORS.find(([op]) => rest.startsWith(op));
    if (foreign && !(twoCharacter && foreign[0].length < 2)) {
      throw errorAt(slice, pos, pos + foreign[0].length, foreign[1]);
    }
    const op = twoCharacter ?? OPERATORS.find((o) => rest.startsWith(o));
    if (op) {
      push('op', op.length);
      continue;
    }
    throw errorAt(slice, pos, pos + 1, `unexpected character '${text[pos]}'`);
  }
  return tokens;
}

/**
 * Indices of the parentheses of tuples: `(i, j)` as an argument, the only place a tuple means
 * something (the inames of a reduction, `sum((i, j), e)`). mathjs has no tuples, so these
 * parentheses are spelled as brackets, `[i, j]`, which mathjs parses as an ArrayNode.
 */
function tupleParentheses(tokens: readonly Token[]): Set<number> {
  const tuples = new Set<number>();
  const open: { index: number; hasComma: boolean }[] = [];
  tokens.forEach((t, index) => {
    if (t.text === '(' || t.text === '[') open.push({ index, hasComma: false });
    else if (t.text === ',' && open.length > 0) open[open.length - 1].hasComma = true;
    else if (t.text === ')' || t.text === ']') {
      const opener = open.pop();
      if (opener === undefined || tokens[opener.index].text !== '(' || !opener.hasComma) return;
      const before = tokens[opener.index - 1];
      if (before !== undefined && (before.text === '(' || before.text === ',')) {
        tuples.add(opener.index);
        tuples.add(index);
      }
    }
  });
  return tuples;
}

/** The text mathjs parses, and where each of its characters came from. */
export interface MathjsText {
  readonly text: string;
  /** The offset in the original text of the respelled text's character at `index`. */
  originOf(index: number): number;
}

/**
 * Each token respelled (`spell`), each whitespace character between tokens as a space (a
 * newline would end a statement in mathjs).
 */
export function spellForMathjs(text: string, tokens: readonly Token[]): MathjsText {
  const tuples = tupleParentheses(tokens);
  let spelled = '';
  const origins: number[] = [];
  let pos = 0;
  tokens.forEach((t, i) => {
    for (; pos < t.start; pos++) {
      spelled += ' ';
      origins.push(pos);
    }
    const spelling = spell(t, tuples.has(i));
    spelled += spelling;
    for (let k = 0; k < spelling.length; k++) origins.push(t.start + Math.min(k, t.text.length - 1));
    pos = t.end;
  });
  return { text: spelled, originOf: (index) => origins[index] ?? text.length };
}

function spell(t: Token, inTuple: boolean): string {
  const pad = (s: string) => s.padEnd(t.text.length, ' ');
  switch (t.kind) {
    // The value and the int/float kind come from our token, never from mathjs.
    case 'number':
    case 'bool':
      return pad('1');
    case 'name':
      return '$'.repeat(t.text.length);
    case 'word':
      return t.text;
    case 'op':
      if (t.text === '**') return '^ ';
      if (t.text === '//') return './'; // mathjs's element-wise division, same precedence as '/'
      // mathjs reads a `%` that no operand follows (`50%`) as a percentage, and then invents
      // nodes (`a - 1%` is `a - a*(1/100)` to it); its `mod` is only ever the modulo.
      if (t.text === '%') return ' mod ';
      if (inTuple) return t.text === '(' ? '[' : ']';
      return t.text;
  }
}
