/**
 * The parsers under fuzzing, and the inputs we feed them. Shared by the quick fuzzers in
 * `npm test` (test/security-fuzz.test.ts, fixed seeds) and the long runs of bench/fuzz.ts
 * (fresh seeds, minutes per parser).
 *
 * The property is the same everywhere: whatever the text, a parser either succeeds or throws
 * a `LoomError` (a message with a caret for the user); any other exception (`TypeError`,
 * `RangeError`, a stack overflow) is a bug, and so is taking longer than a time bound.
 *
 * Inputs come in two kinds. Arbitrary strings find crashes in the tokenizers; but most of
 * them die at the first odd character, so the interesting paths of a parser are reached by
 * *grammar-aware mutations*: a valid input (from the corpus below) with a few tokens of the
 * language inserted, deleted, duplicated or swapped, which gives inputs that are almost right.
 */
import fc from 'fast-check';
import { BasicSet, LoomError, makeKernel, parseInstructions } from '@loom/core';
import { domain, insn, kernel } from '@loom/dsl';
import { readPayload } from '@loom/elementwise';

export interface FuzzTarget {
  readonly name: string;
  /** Runs the parser on one input; its result is ignored, only what it throws matters. */
  readonly run: (input: string) => unknown;
  /** Valid inputs, the starting points of mutations. */
  readonly corpus: readonly string[];
  /** Pieces of the language that mutations insert. */
  readonly vocabulary: readonly string[];
}

const DOMAINS = [
  '{ [i]: 0<=i<n }',
  '[n, m] -> { [i, j]: 0 <= i < n and 0 <= j < m }',
  '{ [i, k]: 0<=i<n and 0<=k<4 }',
  '{ [i]: 0<=i<n and i mod 3 = 0 }',
  '{ [i]: 0<=i<n and (exists l: i = 2*l) }',
  '{ [i, j]: 0<=j<=i<n and floor((i + 1)/2) >= ceil(j/3) }',
  '{ : n >= 1 and n mod 16 = 0 }',
  '{ [i]: exists (l, m: i = 3l + 2(m + 1) and 0 <= l, m < 5) }',
];

const INSTRUCTIONS = [
  'out[i] = 2*a[i]',
  'y[i] = sum(k, A[i,k]*x[k])',
  '<> t = a[i] + 1 {id=first}\nout[i] = t*t {dep=first}',
  'for i\n  if a[i] > 0\n    out[i] = sqrt(a[i])\n  else\n    out[i] = -a[i]\n  end\nend',
  'f(x, y) := x*y + 1\nout[i] = f(a[i], 2.0) ** 2 // 3 % 4',
  'out[i] = max((i, j), a[i, j]) + if(i < 3 and not j > 2, 1.5e3, .5)',
  '<float32> acc = a[i] ? b[i] : -c[i] {priority=2, tags=x:y}\nout[i] = acc',
  '... gbarrier {id=b1}\n... nop {dep=*b1}\n... lbarrier',
];

const PAYLOADS = [
  '(x, y, alpha) => x + y * alpha',
  '(abs, angle) => [abs * Math.cos(angle), abs * Math.sin(angle)]',
  'function relu(x) { const zero = 0; return x > zero ? x : zero; }',
  '(x) => { const a = x + x; let b = a * a; return Math.max(b, 1) ** 2 / 3 % 4; }',
  '(x, y) => !(x > 0) || (y <= 1 && x !== y)',
  'x + y*alpha',
  'if(x > 0, sqrt(x), -x) + float32(y)',
];

const ISL_WORDS = [
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '->',
  ':',
  ',',
  'and',
  'or',
  'not',
  'exists',
  'mod',
  'floor',
  'ceil',
  'true',
  'false',
  '<',
  '<=',
  '=',
  '==',
  '>=',
  '-',
  '+',
  '*',
  '/',
  'i',
  'n',
  '0',
  '1',
  '3',
  '99999999999999999999',
  '4294967296*',
  '9007199254740991',
  '9007199254740991*i + ',
  ' + 9007199254740991',
  ' ',
];
const EXPR_WORDS = [
  '(',
  ')',
  '[',
  ']',
  ',',
  '+',
  '-',
  '*',
  '/',
  '//',
  '%',
  '**',
  '?',
  ':',
  '<',
  '==',
  'and',
  'or',
  'not',
  'sum(k,',
  'max(',
  'if(',
  'float32(',
  'a[i]',
  'i',
  'x',
  '2',
  '2.0',
  '.5',
  '1e400',
  '99999999999999999999',
  'true',
  ' ',
];
const INSN_WORDS = [
  ...EXPR_WORDS,
  '\n',
  '=',
  ':=',
  '<>',
  '<float32>',
  '{',
  '}',
  'id=',
  'dep=',
  'dep=*',
  'if=',
  'nosync=',
  'priority=',
  'atomic',
  'tags=',
  'for i',
  'if',
  'elif',
  'else',
  'end',
  '...',
  '... nop',
  '#',
  'f(x) :=',
];
const PAYLOAD_WORDS = [
  ...EXPR_WORDS,
  '=>',
  '{',
  '}',
  'const',
  'let',
  'return',
  ';',
  'Math.',
  'sqrt',
  'PI',
  '!',
  '&&',
  '||',
  '===',
  '...',
  '`',
  "'",
  'function',
  'x =>',
  'async',
  '*',
  '[',
  ']',
  '?.',
  'new',
  '123n',
  '0x1F',
];

/** A fragment from plain text, as a tag called with one piece and no values would make. */
const templateOf = (text: string): TemplateStringsArray => Object.assign([text], { raw: [text] });

export const FUZZ_TARGETS: readonly FuzzTarget[] = [
  { name: 'domain', run: (text) => BasicSet.parse(text), corpus: DOMAINS, vocabulary: ISL_WORDS },
  {
    name: 'instructions',
    // makeKernel too: it reads what the parser made (names, attributes, rules) and may trip on it.
    run: (text) => {
      parseInstructions(text);
      return makeKernel('{ [i, j, k]: 0<=i,j,k<n }', text);
    },
    corpus: INSTRUCTIONS,
    vocabulary: INSN_WORDS,
  },
  {
    name: 'dsl',
    // The text is split at a `|` into a domain and instructions, each through its template tag.
    run: (text) => {
      const bar = text.indexOf('|');
      const [d, i] = bar < 0 ? ['{ [i]: 0<=i<n }', text] : [text.slice(0, bar), text.slice(bar + 1)];
      return kernel(domain(templateOf(d)), insn(templateOf(i)));
    },
    corpus: DOMAINS.flatMap((d, k) => [`${d}|${INSTRUCTIONS[k % INSTRUCTIONS.length]}`]),
    vocabulary: [...ISL_WORDS, ...INSN_WORDS, '|'],
  },
  { name: 'payload', run: (text) => readPayload(text), corpus: PAYLOADS, vocabulary: PAYLOAD_WORDS },
];

/** One edit of a text: at a position (a fraction of its length), something happens. */
const mutation = (vocabulary: readonly string[]) =>
  fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      word: fc.constantFrom(...vocabulary),
    }),
    fc.record({
      kind: fc.constant('delete' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      length: fc.integer({ min: 1, max: 8 }),
    }),
    fc.record({
      kind: fc.constant('duplicate' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      length: fc.integer({ min: 1, max: 20 }),
    }),
    fc.record({
      kind: fc.constant('char' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      char: fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
    }),
  );
type Mutation = typeof mutation extends (v: readonly string[]) => fc.Arbitrary<infer M> ? M : never;

function applyMutation(text: string, m: Mutation): string {
  const at = Math.floor(m.at * text.length);
  switch (m.kind) {
    case 'insert':
      return text.slice(0, at) + m.word + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + m.length);
    case 'duplicate':
      return text.slice(0, at + m.length) + text.slice(at, at + m.length) + text.slice(at + m.length);
    case 'char':
      return text.slice(0, at) + m.char + text.slice(at + 1);
  }
}

/** Inputs for `target`: arbitrary strings, words of the language strung together, and mutated corpus entries. */
export function inputsFor(target: FuzzTarget): fc.Arbitrary<string> {
  const words = fc.array(fc.constantFrom(...target.vocabulary), { maxLength: 30 }).map((w) => w.join(''));
  const mutated = fc
    .tuple(fc.constantFrom(...target.corpus), fc.array(mutation(target.vocabulary), { maxLength: 6 }))
    .map(([text, edits]) => edits.reduce(applyMutation, text));
  return fc.oneof(
    { arbitrary: fc.string({ maxLength: 60, unit: 'binary' }), weight: 1 },
    { arbitrary: fc.string({ maxLength: 60, unit: fc.constantFrom(...'{}[]()<>=:,+-*/%?!.;#\n i0n1ae') }), weight: 1 },
    { arbitrary: words, weight: 2 },
    { arbitrary: mutated, weight: 6 },
  );
}

/** What one input did: nothing to report, or the foreign exception / the time it took too long. */
export type Finding =
  | { readonly kind: 'exception'; readonly error: unknown }
  | { readonly kind: 'slow'; readonly ms: number };

/** Runs `target` on `input`; a finding when it threw something other than a LoomError or took over `limitMs`. */
export function check(target: FuzzTarget, input: string, limitMs: number): Finding | undefined {
  const start = performance.now();
  try {
    target.run(input);
  } catch (error) {
    if (!(error instanceof LoomError)) return { kind: 'exception', error };
  }
  const ms = performance.now() - start;
  return ms > limitMs ? { kind: 'slow', ms } : undefined;
}
