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
}

export const KEYWORDS: ReadonlySet<string> = new Set(['and', 'or', 'not', 'exists', 'mod', 'floor', 'ceil', 'true', 'false']);

/** Longest first, so `<=` is not read as `<` then `=`. */
const PUNCTUATION = ['->', '<=', '>=', '==', '!=', '[', ']', '{', '}', '(', ')', ',', ':', '+', '-', '*', '/', '<', '>', '='];

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
      if (top === undefined) fail(text, t.start, t.end, `unbalanced brackets: '${t.text}' has no matching opening bracket`);
      const opener = tokens[top]!;
      if (CLOSER[opener.text] !== t.text) {
        const want = CLOSER[opener.text];
        fail(text, t.start, t.end, `unbalanced brackets: found '${t.text}' where '${want}' was expected (to close '${opener.text}')`);
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
