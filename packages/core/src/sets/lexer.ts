/**
 * Tokens of the ISL set syntax, and the bracket check that runs before parsing so that
 * an unbalanced bracket is reported as such (not as a confusing error further on).
 */
import { LoomError } from '../errors.ts';

export type TokenKind = 'int' | 'ident' | 'keyword' | 'punct' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** Offsets into the source: [start, end). */
  readonly start: number;
  readonly end: number;
  /** A number in exponent form (`1e3`, `1e+21`): read by the parser (`exponentForm`). */
  readonly exponent?: ExponentForm;
}

/**
 * `1e3` is the integer 1000, but ISL also writes a coefficient against a name (`3e0` is 3
 * times the existential `e0`): the parser knows which names are in scope, so the lexer
 * keeps both readings and the parser picks.
 */
export interface ExponentForm {
  /** The integer it denotes, in decimal; undefined when it is not an exact integer in range. */
  readonly value?: string;
  /** Why it is not (the message for a caret under it). */
  readonly error?: string;
  /** The coefficient-and-name reading of an unsigned form: `3e0` → 3 and `e0`. */
  readonly coefficient?: string;
  readonly name?: string;
}

export const KEYWORDS: ReadonlySet<string> = new Set([
  'and',
  'or',
  'not',
  'exists',
  'mod',
  'floor',
  'ceil',
  'true',
  'false',
]);

/** Longest first, so `<=` is not read as `<` then `=`. */
const PUNCTUATION = [
  '->',
  '<=',
  '>=',
  '==',
  '!=',
  '[',
  ']',
  '{',
  '}',
  '(',
  ')',
  ',',
  ':',
  '+',
  '-',
  '*',
  '/',
  '<',
  '>',
  '=',
];

/** Characters that are not ISL but whose intent is clear enough to suggest the ISL spelling. */
const MISTAKES: ReadonlyArray<readonly [string, string]> = [
  ['&&', "'&&' is not ISL syntax: write 'and'"],
  ['||', "disjunction ('||', 'or') is not supported: loop domains must be convex"],
  ['%', "'%' is not ISL syntax: write 'mod' (as in 'i mod 3 = 0')"],
];

export function fail(text: string, start: number, end: number, message: string): never {
  throw new LoomError(message, { text, start, end });
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(ch)) {
      while (i < text.length && /[0-9]/.test(text[i]!)) i++;
      // exponent digits end at a letter-free boundary: `2e3x` stays 2 times the name `e3x`
      const exponent = /^[eE][+-]?[0-9]+(?![A-Za-z0-9_])/.exec(text.slice(i, i + 24));
      if (exponent) {
        const digitsEnd = i;
        i += exponent[0].length;
        const written = text.slice(start, i);
        const form = exponentForm(written);
        const signed = /[+-]/.test(exponent[0]);
        const exponentToken = signed ? form : { ...form, coefficient: text.slice(start, digitsEnd), name: exponent[0] };
        tokens.push({ kind: 'int', text: written, start, end: i, exponent: exponentToken });
        continue;
      }
      tokens.push({ kind: 'int', text: text.slice(start, i), start, end: i });
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
      const word = text.slice(start, i);
      tokens.push({ kind: KEYWORDS.has(word) ? 'keyword' : 'ident', text: word, start, end: i });
      continue;
    }
    const punct = PUNCTUATION.find((p) => text.startsWith(p, i));
    if (punct) {
      i += punct.length;
      tokens.push({ kind: 'punct', text: punct, start, end: i });
      continue;
    }
    const mistake = MISTAKES.find(([p]) => text.startsWith(p, i));
    if (mistake) fail(text, start, start + mistake[0].length, mistake[1]);
    fail(text, start, start + 1, `unexpected character '${ch}'`);
  }
  tokens.push({ kind: 'eof', text: '', start: text.length, end: text.length });
  return tokens;
}

/**
 * `1e3`, `25e-1`... (what JavaScript prints for large numbers: `${1e21}` is `1e+21`) as the
 * integer they denote, when it is exact and within the integers sets compute with exactly.
 */
function exponentForm(written: string): ExponentForm {
  const [mantissa, power] = written.toLowerCase().split('e') as [string, string];
  const exp = Number(power);
  let value: bigint | undefined;
  if (exp >= 0 && exp <= 32) value = BigInt(mantissa) * 10n ** BigInt(exp);
  else if (exp < 0 && -exp <= 32) {
    const divisor = 10n ** BigInt(-exp);
    if (BigInt(mantissa) % divisor !== 0n)
      return { error: `${written} is not an integer: set constraints hold integers only` };
    value = BigInt(mantissa) / divisor;
  }
  if (value === undefined || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    return {
      error: `${written} is beyond ${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest integer Loom's sets compute with exactly`,
    };
  }
  return { value: String(value) };
}

const CLOSER: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/**
 * Checks that brackets nest properly; returns, for each opening bracket's token index,
 * the index of its closing bracket.
 */
export function matchBrackets(text: string, tokens: readonly Token[]): Map<number, number> {
  const match = new Map<number, number>();
  const open: number[] = [];
  tokens.forEach((t, k) => {
    if (t.kind !== 'punct') return;
    if (CLOSER[t.text]) {
      open.push(k);
    } else if (t.text === ')' || t.text === ']' || t.text === '}') {
      const top = open.pop();
      if (top === undefined)
        fail(text, t.start, t.end, `unbalanced brackets: '${t.text}' has no matching opening bracket`);
      const opener = tokens[top]!;
      if (CLOSER[opener.text] !== t.text) {
        const want = CLOSER[opener.text];
        fail(
          text,
          t.start,
          t.end,
          `unbalanced brackets: found '${t.text}' where '${want}' was expected (to close '${opener.text}')`,
        );
      }
      match.set(top, k);
    }
  });
  const unclosed = open.pop();
  if (unclosed !== undefined) {
    const t = tokens[unclosed]!;
    fail(text, t.start, t.end, `unbalanced brackets: this '${t.text}' is never closed`);
  }
  return match;
}
