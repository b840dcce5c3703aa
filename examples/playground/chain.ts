/**
 * The playground's transformation chain: text in the builder's own syntax, read without
 * ever evaluating it.
 *
 *   .split('i', 128, { outer: 'g.0', inner: 'l.0' })
 *   .dtypes({ a: 'float32' })      // comments run to the end of the line
 *
 * The grammar is small: a chain is a list of calls, a call is `.verb(value, ...)`, and a
 * value is a JSON-like literal — a string in single or double quotes, a number, `true`,
 * `false`, `null`, an array, or an object whose keys may go unquoted. `applyChain` then
 * calls the builder's method of that name, and only for the verbs listed in `VERBS`:
 * nothing else of the builder (or of JavaScript) can be reached from the text.
 *
 * Mistakes are `LoomError`s whose message ends with the line and a caret under the spot.
 */
import { LoomError } from '@loom/core';
import type { KernelBuilder, LooseSignature } from '@loom/dsl';

export type Literal = string | number | boolean | null | readonly Literal[] | { readonly [key: string]: Literal };

export interface Call {
  readonly verb: string;
  readonly args: readonly Literal[];
  /** Where the verb's name is in the text, for errors found when the call is applied. */
  readonly at: number;
}

/** The builder verbs a chain may use, each with the most arguments it takes. */
export const VERBS: Readonly<Record<string, number>> = {
  split: 3,
  tile: 5,
  tag: 1,
  prioritize: 1,
  prefetch: 3,
  precompute: 3,
  dup: 2,
  rename: 3,
  join: 3,
  fix: 1,
  assume: 1,
  dtypes: 1,
  options: 1,
  space: 2,
  layout: 2,
  nosync: 4,
  saveReload: 0,
};

/** Text past these sizes is refused: the page must stay responsive whatever is pasted into it. */
const MAX_LENGTH = 20_000;
const MAX_NESTING = 16;

export type Builder = KernelBuilder<string, LooseSignature>;

/** Applies the calls of `chain` to `builder`, one verb after the other. */
export function applyChain(builder: Builder, chain: string): Builder {
  return parseChain(chain).reduce((b, call) => {
    try {
      const method = b[call.verb as keyof Builder] as (...args: readonly Literal[]) => Builder;
      return method.apply(b, [...call.args]);
    } catch (error) {
      // an error with a caret of its own points into the domain or the instructions
      if (error instanceof LoomError && error.span) throw error;
      throw new LoomError(`.${call.verb}(): ${(error as Error).message}`, {
        text: chain,
        start: call.at,
        end: call.at + call.verb.length,
      });
    }
  }, builder);
}

/** The calls of a chain, checked against `VERBS`. */
export function parseChain(text: string): Call[] {
  if (text.length > MAX_LENGTH)
    throw new LoomError(`a chain of ${text.length} characters is too long (at most ${MAX_LENGTH})`);
  const reader = new Reader(text);
  const calls: Call[] = [];
  while (!reader.atEnd()) calls.push(reader.call());
  return calls;
}

/** A JSON-like literal (as in a call's arguments): `{ outer: 'g.0' }`, `[1, 2]`, `'i'`. */
export function parseLiteral(text: string): Literal {
  if (text.length > MAX_LENGTH)
    throw new LoomError(`a literal of ${text.length} characters is too long (at most ${MAX_LENGTH})`);
  const reader = new Reader(text);
  const value = reader.value(0);
  if (!reader.atEnd()) reader.fail('expected the end of the text');
  return value;
}

const NAME = /[A-Za-z_$][\w$]*/y;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
const BLANKS = /(\s+|\/\/[^\n]*)*/y;

/** A cursor over the text that reads one construct of the grammar per method. */
class Reader {
  #at = 0;

  constructor(readonly text: string) {}

  atEnd(): boolean {
    this.#skipBlanks();
    return this.#at >= this.text.length;
  }

  /** `.verb(arg, ...)` */
  call(): Call {
    this.#expect('.');
    this.#skipBlanks();
    const at = this.#at;
    const verb = this.#name();
    if (!Object.hasOwn(VERBS, verb))
      this.fail(`'${verb}' is not a transformation (known: ${Object.keys(VERBS).join(', ')})`, at, verb.length);
    this.#expect('(');
    const args = this.#list(')', 0);
    if (args.length > VERBS[verb])
      this.fail(
        `.${verb}() takes at most ${VERBS[verb]} argument${VERBS[verb] === 1 ? '' : 's'}, got ${args.length}`,
        at,
        verb.length,
      );
    return { verb, args, at };
  }

  value(depth: number): Literal {
    if (depth > MAX_NESTING) this.fail(`literals nest at most ${MAX_NESTING} deep`);
    this.#skipBlanks();
    const c = this.text[this.#at];
    if (c === "'" || c === '"') return this.#string();
    if (c === '[') {
      this.#at++;
      return this.#list(']', depth + 1);
    }
    if (c === '{') return this.#object(depth + 1);
    if (c === '-' || (c >= '0' && c <= '9')) return this.#number();
    const start = this.#at;
    const word = this.#match(NAME);
    if (word === 'true' || word === 'false' || word === 'null') return word === 'null' ? null : word === 'true';
    return this.fail(
      word
        ? `'${word}' is not a value: write strings in quotes`
        : 'expected a value (a string, number, true, false, null, array or object)',
      start,
      word?.length,
    );
  }

  fail(message: string, at = this.#at, length = 1): never {
    throw new LoomError(message, { text: this.text, start: at, end: at + Math.max(1, length) });
  }

  /** Values separated by commas up to `close` (a trailing comma is fine). */
  #list(close: string, depth: number): Literal[] {
    const values: Literal[] = [];
    while (!this.#take(close)) {
      values.push(this.value(depth));
      if (!this.#take(',')) {
        this.#expect(close);
        break;
      }
    }
    return values;
  }

  #object(depth: number): Literal {
    this.#expect('{');
    const entries: [string, Literal][] = [];
    while (!this.#take('}')) {
      this.#skipBlanks();
      const key = this.text[this.#at] === "'" || this.text[this.#at] === '"' ? this.#string() : this.#name();
      this.#expect(':');
      entries.push([key, this.value(depth)]);
      if (!this.#take(',')) {
        this.#expect('}');
        break;
      }
    }
    // fromEntries defines own properties: a key "__proto__" is a plain key, not a prototype
    return Object.fromEntries(entries);
  }

  #string(): string {
    const start = this.#at;
    const quote = this.text[this.#at++];
    let value = '';
    for (;;) {
      const c = this.text[this.#at++];
      if (c === undefined || c === '\n') return this.fail('unterminated string', start);
      if (c === quote) return value;
      value += c === '\\' ? this.#escape() : c;
    }
  }

  #escape(): string {
    const c = this.text[this.#at++];
    const simple: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', "'": "'", '"': '"' };
    if (Object.hasOwn(simple, c)) return simple[c];
    return this.fail(`unknown escape '\\${c ?? ''}' (known: \\n \\t \\\\ \\' \\")`, this.#at - 2, 2);
  }

  #number(): number {
    const digits = this.#match(NUMBER);
    return digits === undefined ? this.fail('expected a number') : Number(digits);
  }

  #name(): string {
    this.#skipBlanks();
    return this.#match(NAME) ?? this.fail('expected a name');
  }

  #expect(token: string): void {
    if (!this.#take(token)) this.fail(`expected '${token}'`);
  }

  #take(token: string): boolean {
    this.#skipBlanks();
    if (!this.text.startsWith(token, this.#at)) return false;
    this.#at += token.length;
    return true;
  }

  /** Whitespace and `//` comments. */
  #skipBlanks(): void {
    this.#match(BLANKS);
  }

  /** What a sticky pattern matches here, stepped over; `undefined` (and no step) when nothing does. */
  #match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.#at;
    const found = pattern.exec(this.text)?.[0];
    if (found) this.#at += found.length;
    return found || undefined;
  }
}
