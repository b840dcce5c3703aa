/**
 * The tokenizer: an expression's text, token by token, with positions.
 *
 * Characters and operators outside our language are rejected right here, with a caret, and
 * with advice for the operators other languages spell differently (`&&`, `!`, `=`). Numbers
 * keep their text, so the parser (`parser.ts`) can tell `2` (an integer) from `2.0` (a float).
 */
import { LoomError, type SourceSpan } from '../errors.ts';

export type TokenKind =
  | 'number' //  2, 2.0, .5, 1e-3; with loopy's suffixes 2.0f, 2d, 5j, 5jf
  | 'bool' //    true, false
  | 'name' //    identifiers: variables, arrays, functions, inames
  | 'word' //    the word operators and, or, not
  | 'component' // a vector component after an array element or a name: .x .y .z .w .s0 ... .sf
  | 'field' //   a struct field after an array element: .name (a component's spelling reads as a component)
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

/**
 * Symbolic operators we accept, longest first. `[[` opens loopy's linear subscript `a[[k]]`
 * (read only right after a name; elsewhere it is two brackets).
 */
const OPERATORS = [
  '**',
  '//',
  '==',
  '!=',
  '<=',
  '>=',
  '<<',
  '>>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '&',
  '|',
  '~',
  '<',
  '>',
  '(',
  ')',
  '[',
  ']',
  ',',
  '?',
  ':',
];

/** Operators of other languages that users write by habit: what to say instead. */
const FOREIGN_OPERATORS: ReadonlyArray<readonly [string, string]> = [
  ['&&', "'&&' is not an operator here; use 'and'"],
  ['||', "'||' is not an operator here; use 'or'"],
  ['!', "'!' is not an operator here; use 'not'"],
  ['=', "'=' is not allowed in an expression (did you mean '=='?)"],
  ["'", 'strings (and transposes) are not supported in expressions'],
  ['"', 'strings are not supported in expressions'],
  [';', "';' is not allowed in an expression"],
];

/**
 * A number, with loopy's suffixes: `f` (float32), `d` (float64), `j` (imaginary, complex128
 * when alone), `jf` / `jd` (imaginary complex64 / complex128). Hexadecimal and other letters
 * are not numbers (`0x1F`, `2i` are refused below).
 */
const NUMBER = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?:jf|jd|j|f|d)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
/** loopy's tagged name `g$two`: the rule `g`, this use of it tagged `two`. */
const TAG = /^\$[A-Za-z_][A-Za-z0-9_]*/;
/** OpenCL's names of one vector component: `.x` to `.w`, `.s0` to `.sf` (lane 0 to 15). */
const COMPONENT = /^\.(?:[xyzw]|s[0-9a-fA-F])(?![A-Za-z0-9_])/;
/** A struct field's name after an element (`a[i].hit`, `a[i].nested.v`). */
const FIELD = /^\.[A-Za-z_][A-Za-z0-9_]*/;

/** Splits `text` into tokens; throws a `LoomError` at the first character that is not ours. */
export function tokenize(text: string, slice: SourceSlice): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  const push = (kind: TokenKind, length: number) => {
    tokens.push({ kind, text: text.slice(pos, pos + length), start: pos, end: pos + length });
    pos += length;
  };
  // components and fields, as many as follow (`a[i].nested.v`)
  const pushComponent = () => {
    for (;;) {
      const rest = text.slice(pos);
      const component = COMPONENT.exec(rest);
      const field = component ? null : FIELD.exec(rest);
      if (component) push('component', component[0].length);
      else if (field) push('field', field[0].length);
      else return;
    }
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
      // `2a`, `2i`, `1e`, `0x1F`: other languages read an implicit multiplication (or a hex
      // literal); for us a number runs into a name only when an operator is missing.
      if (/^[A-Za-z0-9_.]/.test(text.slice(pos))) {
        const what =
          text[pos] === '.'
            ? "unexpected '.'"
            : `missing operator between the number '${tokens[tokens.length - 1].text}' and '${text[pos]}'`;
        throw errorAt(slice, pos, pos + 1, what);
      }
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      const word = name[0];
      const tag = WORD_OPERATORS.has(word) || BOOLEANS.has(word) ? null : TAG.exec(text.slice(pos + word.length));
      push(
        WORD_OPERATORS.has(word) ? 'word' : BOOLEANS.has(word) ? 'bool' : 'name',
        word.length + (tag ? tag[0].length : 0),
      );
      pushComponent();
      // `a.b`, `a.5`: there is no other attribute access (and respelled, `a.5` would run together).
      if (text[pos] === '.')
        throw errorAt(slice, pos, pos + 1, "unexpected '.' (a vector component is one of .x .y .z .w .s0 ... .sf)");
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
      if (op === ']') pushComponent();
      continue;
    }
    throw errorAt(slice, pos, pos + 1, `unexpected character '${text[pos]}'`);
  }
  return tokens;
}
