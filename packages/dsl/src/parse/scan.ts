/**
 * The type-level scanner under the literal-string parsers: it walks a string type one
 * character at a time and reports every identifier in it, marked by what follows it.
 *
 *   Scan<'out[i] = 2*a[i] + f(x)'>  =  'a:out' | 's:i' | 'a:a' | 'c:f' | 's:x'
 *
 * `a:` an identifier followed by `[` (an array), `c:` followed by `(` (a call: a function,
 * a reduction, a substitution rule), `s:` anything else (a scalar: an iname, a
 * parameter, a value). Numbers (`2`, `1e-5`, `0.5`) are not identifiers.
 *
 * Everything here is tail-recursive with accumulators, so TypeScript evaluates it as a
 * loop (up to 1000 steps per loop) instead of nesting instantiations; the parsers feed it
 * one line at a time, and it reads a line a word at a time (a single word of more than
 * 1000 characters is the one thing too long for it).
 */

type Letter =
  | 'a'
  | 'b'
  | 'c'
  | 'd'
  | 'e'
  | 'f'
  | 'g'
  | 'h'
  | 'i'
  | 'j'
  | 'k'
  | 'l'
  | 'm'
  | 'n'
  | 'o'
  | 'p'
  | 'q'
  | 'r'
  | 's'
  | 't'
  | 'u'
  | 'v'
  | 'w'
  | 'x'
  | 'y'
  | 'z'
  | 'A'
  | 'B'
  | 'C'
  | 'D'
  | 'E'
  | 'F'
  | 'G'
  | 'H'
  | 'I'
  | 'J'
  | 'K'
  | 'L'
  | 'M'
  | 'N'
  | 'O'
  | 'P'
  | 'Q'
  | 'R'
  | 'S'
  | 'T'
  | 'U'
  | 'V'
  | 'W'
  | 'X'
  | 'Y'
  | 'Z'
  | '_';
export type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
export type IdentifierChar = Letter | Digit;
type Blank = ' ' | '\t' | '\r' | '\n';

/** What a finished identifier is, judged by the first non-blank character after it. */
type Mark<Next extends string> = Next extends '[' ? 'a' : Next extends '(' ? 'c' : 's';

/** The first non-blank character of `S` ('' at the end). */
type FirstNonBlank<S extends string> = S extends `${infer C}${infer R}` ? (C extends Blank ? FirstNonBlank<R> : C) : '';

/** The entry for a finished identifier `Word`, or nothing for a number or an empty word. */
type Emit<Word extends string, Next extends string> = Word extends ''
  ? never
  : Word extends `${Digit}${string}`
    ? never
    : `${Mark<Next>}:${Word}`;

export type Scan<S extends string> = ScanWords<S>;

/**
 * Word by word (split at spaces), each word character by character: each loop then
 * stays far below TypeScript's limit of 1000 steps, even for long lines.
 */
type ScanWords<S extends string, Found extends string = never> = S extends `${infer Word} ${infer Rest}`
  ? ScanWords<Rest, Found | ScanChars<Word, FirstNonBlank<Rest>>>
  : Found | ScanChars<S, ''>;

/** The identifiers of one word; `After` is what follows the word (for `a [i]`). */
type ScanChars<
  S extends string,
  After extends string,
  Word extends string = '',
  Found extends string = never,
> = S extends `${infer C}${infer Rest}`
  ? C extends IdentifierChar
    ? ScanChars<Rest, After, `${Word}${C}`, Found>
    : ScanChars<Rest, After, '', Found | Emit<Word, C extends Blank ? FirstNonBlank<Rest> : C>>
  : Found | Emit<Word, After>;

/** The names `Scan` found with a mark: `Marked<'a:x' | 's:n', 'a'>` = `'x'`. */
export type Marked<Entries extends string, M extends string> = Entries extends `${M}:${infer Name}` ? Name : never;

/** Every identifier `Scan` found, whatever follows it. */
export type Identifiers<S extends string> = Marked<Scan<S>, string>;

/** The identifiers of `S` that are neither subscripted nor called: variables. */
export type Variables<S extends string> = Marked<Scan<S>, 's'>;

export type TrimStart<S extends string> = S extends `${Blank}${infer R}` ? TrimStart<R> : S;
export type TrimEnd<S extends string> = S extends `${infer R}${Blank}` ? TrimEnd<R> : S;
export type Trim<S extends string> = TrimEnd<TrimStart<S>>;

/** `'a, b ,c'` → `'a' | 'b' | 'c'` (empty entries dropped). */
export type SplitList<
  S extends string,
  Sep extends string = ',',
  Found extends string = never,
> = S extends `${infer Head}${Sep}${infer Rest}`
  ? SplitList<Rest, Sep, Found | Exclude<Trim<Head>, ''>>
  : Found | Exclude<Trim<S>, ''>;

/** Whether `S` is a literal string type rather than `string` itself. */
export type IsLiteral<S> = S extends string ? (string extends S ? false : true) : false;
