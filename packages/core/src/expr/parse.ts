/**
 * Reading expressions: `parseExpression('sum(k, a[i, k]*b[k, j])')`.
 *
 * Two steps: the tokenizer (`tokens.ts`) checks the characters and splits the text into tokens
 * with positions; the parser (`parser.ts`) reads them into our IR, with a caret under the token
 * at fault for every error. Then the bounds every expression keeps (`limits.ts`) are checked.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import type { Expr } from './nodes.ts';
import { parseTokens } from './parser.ts';
import { errorAt, tokenize, type SourceSlice, type Token } from './tokens.ts';
import { checkExpressionBounds } from './limits.ts';

/** The options parseExpression reads; any other key is an error. */
const PARSE_EXPRESSION_OPTIONS = optionKeys<ParseOptions>()(['atomicFetch', 'inames', 'offset', 'source', 'structs']);

/**
 * The deepest nesting of brackets read. Each level costs the parser some ten stack frames and
 * a level of the expression tree; the bound keeps well clear of the depth the passes after it
 * can take, and says so at the bracket that goes too deep.
 */
export const MAX_BRACKET_NESTING = 128;

/** Options of `parseExpression`. */
export interface ParseOptions {
  /**
   * The expression is a slice of a larger text (an instruction line in a block) starting at
   * `offset` in `source`: errors point into `source`.
   */
  readonly offset?: number;
  /** The larger text the expression is a slice of (see `offset`). */
  readonly source?: string;
  /** The kernel's inames, to tell the reduction `max(k, e)` from the function `max(a, b)`. */
  readonly inames?: ReadonlySet<string>;
  /** The arrays whose elements are structs: `a[i].x` is then the field `x`, not a vector component. */
  readonly structs?: ReadonlySet<string>;
  /**
   * The expression is an assignment's right-hand side, which may be one atomic fetch as a whole
   * (`atomicAdd(counter[0], 1)`); without it, or anywhere else in the expression, a fetch is refused.
   */
  readonly atomicFetch?: boolean;
}

/**
 * Parses an expression of Loom's instruction language; a syntax error is a `LoomError` with a caret under it.
 * ```ts
 * const e = parseExpression('2*a[i] + 1');
 * ```
 */
export function parseExpression(text: string, options: ParseOptions = {}): Expr {
  checkOptionKeys('parseExpression', options, PARSE_EXPRESSION_OPTIONS);
  const slice: SourceSlice = { source: options.source ?? text, offset: options.offset ?? 0 };
  const tokens = tokenize(text, slice);
  if (tokens.length === 0) throw errorAt(slice, 0, Math.max(text.length, 1), 'empty expression');
  checkBracketNesting(tokens, slice);
  const e = parseTokens(tokens, slice, {
    inames: options.inames,
    structs: options.structs,
    atomicFetch: options.atomicFetch,
  });
  checkExpressionBounds(e, 'the expression', {
    text: slice.source,
    start: slice.offset,
    end: slice.offset + Math.max(1, text.length),
  });
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
