/**
 * The payload of a pointwise function — what one element of each output is, given
 * one element of each input — read into the core's expression IR.
 *
 * A payload is either a JS/TS function, read from its source text (`payload-function.ts`):
 *
 *     (x, y, alpha) => x + y * alpha
 *     (abs, angle) => [abs * Math.cos(angle), abs * Math.sin(angle)]    // two outputs
 *     function relu(x) { const zero = 0; return x > zero ? x : zero; }
 *
 * or an expression in the core's own language (`'x + y*alpha'`, a list of them for
 * several outputs), whose parameters are `options.params` or else its free names in
 * order of appearance.
 *
 * A function means what JavaScript means, element by element: `/` divides exactly
 * (integers included), `%` is the truncated remainder, `Math.round` rounds halves up,
 * `**` is NaN for a NaN exponent, `Math.hypot` does not overflow, `&&` and `||` give an
 * operand and NaN is false. Those become pseudo-functions (`truediv`, `fmod`, `jspow`,
 * `jsround`, `jshypot`) and JavaScript truthiness, which the kernel builder resolves
 * once the dtypes are known (`lower.ts`, `js-semantics.ts`). JavaScript does not keep `2.0`
 * apart from `2` (and bundlers print both as `2`), so a literal with an integral value
 * is an integer — a weak one, which never widens a float computation. What has no
 * counterpart in the IR (bitwise operators, loops, calls of other functions) is a
 * LoomError at `pointwise()` time with a caret under the construct.
 */
import { expr, LoomError, parseExpression, type Expr, type SourceSpan } from '@loom/core';
import { fromFunctionSource } from './payload-function.ts';
import { PAYLOAD_FUNCTIONS } from './payload-translate.ts';

export { PAYLOAD_FUNCTIONS };
const { variable } = expr;

/** A pointwise function's body, read: its parameters and expression(s). */
export interface Payload {
  /** A name for kernels (the function's name, when it has one). */
  readonly name: string;
  /** The parameters, one per input, in order. */
  readonly params: readonly string[];
  /** One expression per output, in the parameters. */
  readonly outputs: readonly Expr[];
  /** The text the payload was read from, for error messages. */
  readonly source: string;
  /** Where each integer literal of `outputs` was written, when the payload is a function (for carets under literals refused once typed). */
  readonly literalSpans?: ReadonlyMap<Expr, SourceSpan>;
}

/** A pointwise body: Loom expression text, several, or a JavaScript arrow function. */
export type PayloadSource = string | readonly string[] | ((...args: never[]) => unknown);

/** Reads a pointwise body into a `Payload`. */
export function readPayload(payload: PayloadSource, params?: readonly string[]): Payload {
  if (typeof payload === 'function') return fromFunctionSource(payload.toString(), payload.name);
  if (typeof payload === 'string' && /=>|^\s*function\b/.test(payload)) return fromFunctionSource(payload, '');
  if (typeof payload === 'string' || Array.isArray(payload))
    return fromExpressions(typeof payload === 'string' ? [payload] : payload, params);
  throw new LoomError(`a pointwise payload is a function or an expression string, not ${typeof payload}`);
}

// ---------------------------------------------------------------------------
// Expression strings

function fromExpressions(texts: readonly string[], params: readonly string[] | undefined): Payload {
  if (texts.length === 0) throw new LoomError('a pointwise payload needs at least one output expression');
  const outputs = texts.map((t) => parseExpression(t));
  const source = texts.join('; ');
  const found: string[] = [];
  const visit =
    (text: string) =>
    (e: Expr): void => {
      if (e.kind === 'var' && !found.includes(e.name)) found.push(e.name);
      if (e.kind === 'subscript' || e.kind === 'reduce')
        throw new LoomError(
          `a pointwise payload works on single elements: ${e.kind === 'subscript' ? 'subscripts' : 'reductions'} are not allowed`,
          spanOf(text, e),
        );
      if (e.kind === 'call' && !isKnownFunction(e.fn))
        throw new LoomError(`unknown function '${e.fn}' in a pointwise payload`, spanOf(text, e));
    };
  outputs.forEach((o, k) => expr.walk(o, visit(texts[k])));
  const names = params ?? found;
  outputs.forEach((o, k) => {
    for (const v of expr.freeVariables(o)) {
      if (!names.includes(v))
        throw new LoomError(
          `'${v}' is not a parameter of the payload (parameters: ${names.join(', ')})`,
          spanOf(texts[k], variable(v)),
        );
    }
  });
  return { name: 'pointwise', params: names, outputs, source };
}

export function isKnownFunction(name: string): boolean {
  return (
    Object.hasOwn(expr.KNOWN_FUNCTIONS, name) ||
    Object.hasOwn(PAYLOAD_FUNCTIONS, name) ||
    name === 'complex64' ||
    name === 'complex128'
  );
}

/** Where a node's text appears in `text` (found by printing it; the whole text when it cannot be). */
function spanOf(text: string, e: Expr): SourceSpan {
  const name = e.kind === 'call' ? e.fn : e.kind === 'var' ? e.name : e.kind === 'subscript' ? e.array : '';
  const at = name ? text.search(new RegExp(`\\b${name.replace(/[^\w]/g, '')}\\b`)) : -1;
  return at >= 0 ? { text, start: at, end: at + name.length } : { text, start: 0, end: Math.max(1, text.length) };
}
