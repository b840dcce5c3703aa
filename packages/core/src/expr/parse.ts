/**
 * Reading expressions: `parseExpression('sum(k, a[i, k]*b[k, j])')`.
 *
 * Three steps: our tokenizer (`tokens.ts`) checks the characters and respells the text for
 * mathjs; mathjs's `parse` builds a tree (precedence, nesting, syntax errors); the converter
 * (`from-mathjs.ts`) turns that tree into our IR. mathjs nodes never leave this module.
 */
import { parse as mathjsParse } from 'mathjs';
import type { Expr } from './nodes.ts';
import { convertMathjs, type MathjsNode } from './from-mathjs.ts';
import { errorAt, spellForMathjs, tokenize, type MathjsText, type SourceSlice, type Token } from './tokens.ts';
import { checkExpressionBounds, MAX_EXPRESSION_DEPTH } from './limits.ts';

/**
 * The deepest nesting of brackets read. mathjs's parser spends some thirty stack frames on
 * each bracket level, so it overflows the stack a little beyond 256 levels; this bound keeps
 * well clear of that, and of the far smaller depth the passes after it can take.
 */
export const MAX_BRACKET_NESTING = 128;

export interface ParseOptions {
  /**
   * The expression is a slice of a larger text (an instruction line in a block) starting at
   * `offset` in `source`: errors point into `source`.
   */
  readonly offset?: number;
  readonly source?: string;
  /** The kernel's inames, to tell the reduction `max(k, e)` from the function `max(a, b)`. */
  readonly inames?: ReadonlySet<string>;
}

export function parseExpression(text: string, options: ParseOptions = {}): Expr {
  const slice: SourceSlice = { source: options.source ?? text, offset: options.offset ?? 0 };
  const tokens = tokenize(text, slice);
  if (tokens.length === 0) throw errorAt(slice, 0, Math.max(text.length, 1), 'empty expression');

  checkBracketNesting(tokens, slice);

  const spelled = spellForMathjs(text, tokens);
  let tree: MathjsNode;
  try {
    tree = mathjsParse(spelled.text) as unknown as MathjsNode;
  } catch (err) {
    // Other nestings than brackets (`- - - x`, `a ** b ** c ...`, `c ? a : c ? ...`) recurse in
    // mathjs too; running out of stack there is the user's nesting, and is said so.
    if (err instanceof RangeError && /call stack/i.test(err.message)) throw tooDeep(text, slice);
    throw syntaxError(err, spelled, text, tokens, slice);
  }
  let e: Expr;
  try {
    e = convertMathjs(tree, tokens, slice, { inames: options.inames });
  } catch (err) {
    // mathjs reads a run of prefix operators (`- - - ... x`) in a loop, our converter recursively.
    if (err instanceof RangeError && /call stack/i.test(err.message)) throw tooDeep(text, slice);
    throw err;
  }
  checkExpressionBounds(e, 'the expression', spanOfAll(text, slice));
  return e;
}

function checkBracketNesting(tokens: readonly Token[], slice: SourceSlice): void {
  let depth = 0;
  for (const t of tokens) {
    if (t.text === '(' || t.text === '[') depth++;
    else if (t.text === ')' || t.text === ']') depth--;
    if (depth > MAX_BRACKET_NESTING) {
      throw errorAt(slice, t.start, t.end, `expression nested deeper than ${MAX_BRACKET_NESTING} levels of brackets`);
    }
  }
}

function tooDeep(text: string, slice: SourceSlice) {
  return errorAt(slice, 0, text.length, `expression nested deeper than ${MAX_EXPRESSION_DEPTH} levels`);
}

function spanOfAll(text: string, slice: SourceSlice) {
  return { text: slice.source, start: slice.offset, end: slice.offset + Math.max(1, text.length) };
}

/**
 * mathjs's syntax error, retold: its `(char N)` (1-based, in the respelled text) becomes a
 * caret in the original text, and its wording, which quotes the respelled text, gives way
 * to ours, which quotes the original tokens.
 */
function syntaxError(err: unknown, spelled: MathjsText, text: string, tokens: readonly Token[], slice: SourceSlice): Error {
  if (!(err instanceof Error)) return new Error(String(err));
  const reported = (err as { char?: unknown }).char;
  const charNumber = typeof reported === 'number' ? reported : Number(/\(char (\d+)\)/.exec(err.message)?.[1]);
  if (!Number.isFinite(charNumber)) return err; // not a syntax error of the text: a real failure

  const pos = spelled.originOf(Math.max(charNumber - 1, 0));
  const token = tokens.find((t) => t.start <= pos && pos < t.end) ?? tokens.find((t) => t.start >= pos);
  const found = token ? `'${token.text}'` : 'the end';
  const message = err.message.replace(/\s*\(char \d+\)\s*$/, '');
  let detail: string;
  if (/end of expression/i.test(message)) detail = 'unexpected end of expression';
  else if (/^Value expected/.test(message)) detail = `expected a value, found ${found}`;
  else if (/^(Parenthesis|End of matrix) . expected/.test(message)) {
    detail = `expected '${closerOfInnermostOpen(tokens, pos)}', found ${found}`;
  } else if (/conditional expression expected/.test(message)) detail = `expected ':' and the 'otherwise' part of '? :', found ${found}`;
  else detail = token ? `unexpected '${token.text}'` : 'unexpected end of expression';
  const start = token ? token.start : text.length;
  const end = token ? token.end : text.length + 1;
  return errorAt(slice, start, end, `syntax error: ${detail}`);
}

/**
 * The closer the innermost bracket still open at `pos` needs. (mathjs may name the other
 * kind: it sees a tuple's `(` as `[`.)
 */
function closerOfInnermostOpen(tokens: readonly Token[], pos: number): string {
  const open: string[] = [];
  for (const t of tokens) {
    if (t.start >= pos) break;
    if (t.text === '(' || t.text === '[') open.push(t.text);
    else if (t.text === ')' || t.text === ']') open.pop();
  }
  return open[open.length - 1] === '[' ? ']' : ')';
}
