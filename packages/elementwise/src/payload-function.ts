/**
 * A payload written as a function, read from its source text into the core's IR.
 *
 * At run time a function's source (`fn.toString()`) is JavaScript, whatever it was written in
 * (TypeScript's types are gone by then), so it is read with acorn, a small JavaScript parser
 * that works in browsers as well as in Node. What can be read is a small language: parameters,
 * `const` locals, one returned expression (or an array of them, for several outputs), built
 * from arithmetic, comparisons, logic, conditionals, `Math` and the complex markers. Anything
 * else is a LoomError with a caret under the construct, in the function's own text.
 *
 * The meaning is JavaScript's, element by element (see `payload.ts`): `/`, `%`, `**`,
 * `Math.round` and `Math.hypot` become pseudo-functions the kernel builder resolves once the
 * dtypes are known.
 */
import {
  parse,
  type ArrowFunctionExpression,
  type Expression,
  type FunctionExpression,
  type Node,
  type Property,
} from 'acorn';
import { expr, LoomError, type Expr, type SourceSpan } from '@loom/core';
import { PayloadTranslator, type Fail } from './payload-translate.ts';
import type { Payload } from './payload.ts';

type FunctionNode = ArrowFunctionExpression | FunctionExpression;

/** The payload that `source`, a function's text, computes; `name` is the function's name, if it has one. */
export function fromFunctionSource(source: string, name: string): Payload {
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source))
    throw new LoomError(`the payload ${name || 'function'} is native code, whose source cannot be read`);
  const { fn, shift, methodName } = parseFunction(source);
  const at = (node: Node): SourceSpan => {
    const start = Math.max(0, node.start - shift);
    return { text: source, start, end: Math.max(start + 1, node.end - shift) };
  };
  const fail: Fail = (node, message) => {
    throw new LoomError(message, at(node));
  };
  const textOf = (node: Node) => source.slice(node.start - shift, node.end - shift);

  if (fn.generator) fail(fn, 'a generator cannot be a pointwise payload');
  if (fn.async) fail(fn, 'an async function cannot be a pointwise payload');
  const params = fn.params.map((p) => {
    if (p.type === 'RestElement') fail(p, 'payload parameters cannot be rest parameters');
    if (p.type === 'AssignmentPattern') fail(p, 'payload parameters cannot have default values');
    if (p.type !== 'Identifier') fail(p, 'payload parameters must be plain names (no destructuring)');
    return (p as { name: string }).name;
  });

  const literalSpans = new Map<Expr, SourceSpan>();
  const translator = new PayloadTranslator(new Set(params), fail, textOf, (literal, node) => {
    // where it was written: a local's literal is noted again at each use of its name
    if (!literalSpans.has(literal)) literalSpans.set(literal, at(node));
  });
  const returned = fn.body.type === 'BlockStatement' ? translator.block(fn.body) : fn.body;
  const outputs =
    returned.type === 'ArrayExpression'
      ? returned.elements.map((e) => {
          if (e === null) return fail(returned, 'an empty slot cannot be a payload output');
          return e.type === 'SpreadElement'
            ? fail(e, 'spread elements cannot be payload outputs')
            : translator.expression(e);
        })
      : [translator.expression(returned)];
  if (outputs.length === 0) fail(returned, 'the payload returns no outputs');
  // Locals are shared, not copied (`const b = a + a` points at `a`'s node twice), so reading
  // is linear, and the kernel builder gives each shared node a temporary (lower.ts): the
  // kernel grows with the payload's distinct nodes, which are bounded here, with its depth.
  checkPayloadBounds(outputs, wholeOf(source));
  return {
    name: name || (fn.type === 'FunctionExpression' && fn.id ? fn.id.name : methodName) || 'pointwise',
    params,
    outputs,
    source,
    literalSpans,
  };
}

interface FoundFunction {
  readonly fn: FunctionNode;
  /** How many characters were put before the source to parse it. */
  readonly shift: number;
  readonly methodName?: string;
}

/**
 * The function in `source`: an arrow function or function expression, read as `(source)`, or
 * a method (`f(x) { ... }`, which is what `toString()` gives for one), read as `({source})`.
 */
function parseFunction(source: string): FoundFunction {
  const asExpression = attempt(source, '(', ')');
  if ('fn' in asExpression) return asExpression;
  const asMethod = attempt(source, '({', '})');
  if ('fn' in asMethod) return asMethod;
  // Of the two readings, the one that got further says best what is wrong.
  const best = asMethod.at > asExpression.at ? asMethod : asExpression;
  const message = 'the pointwise payload must be an arrow function, a function expression or a method';
  if (best.syntax === undefined) throw new LoomError(message, wholeOf(source));
  const start = Math.min(Math.max(0, best.at), Math.max(0, source.length - 1));
  throw new LoomError(`${message} (syntax error: ${best.syntax})`, { text: source, start, end: start + 1 });
}

/** A reading of `prefix + source + suffix`: the function, or how far the parser got and why it stopped. */
function attempt(source: string, prefix: string, suffix: string): FoundFunction | { at: number; syntax?: string } {
  let program;
  try {
    program = parse(prefix + source + suffix, { ecmaVersion: 'latest', sourceType: 'script' });
  } catch (err) {
    // The parser recurses on nesting, and thousands of brackets overflow the stack (which acorn
    // reports as a SyntaxError of its own): the user's nesting, said so.
    if (
      (err instanceof RangeError && /call stack/i.test(err.message)) ||
      /not enough stack space/i.test((err as Error).message)
    ) {
      throw new LoomError(`the payload is nested deeper than ${expr.MAX_EXPRESSION_DEPTH} levels`, wholeOf(source));
    }
    if (!(err instanceof SyntaxError)) throw err;
    const raisedAt = (err as SyntaxError & { pos?: number }).pos ?? 0;
    return { at: raisedAt - prefix.length, syntax: err.message.replace(/\s*\(\d+:\d+\)$/, '') };
  }
  const statement = program.body.length === 1 ? program.body[0] : undefined;
  if (statement?.type !== 'ExpressionStatement') return { at: -1 };
  const e = statement.expression;
  if (e.type === 'ArrowFunctionExpression' || e.type === 'FunctionExpression') return { fn: e, shift: prefix.length };
  if (e.type === 'ObjectExpression' && e.properties.length === 1) {
    const method = e.properties[0] as Property;
    if (method.type === 'Property' && method.method && method.kind === 'init') {
      const key = method.key as Expression;
      return {
        fn: method.value as FunctionExpression,
        shift: prefix.length,
        methodName: key.type === 'Identifier' ? key.name : undefined,
      };
    }
  }
  return { at: -1 };
}

/**
 * The most distinct expression nodes a payload may have. Each may become a temporary, and the
 * kernel's passes are not linear in the number of instructions: ten thousand keeps a build
 * within seconds, far beyond any payload written by hand.
 */
export const MAX_PAYLOAD_NODES = 10_000;

/** Refuses payloads nested deeper than the core's bound, or with more than `MAX_PAYLOAD_NODES` distinct nodes. */
function checkPayloadBounds(outputs: readonly Expr[], span: SourceSpan): void {
  for (const o of outputs) {
    if (expr.measureExpression(o).depth > expr.MAX_EXPRESSION_DEPTH) expr.checkExpressionBounds(o, 'the payload', span);
  }
  const seen = new Set<Expr>();
  const stack = [...outputs];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (seen.has(e)) continue;
    seen.add(e);
    if (seen.size > MAX_PAYLOAD_NODES) {
      throw new LoomError(
        `the payload has more than ${MAX_PAYLOAD_NODES} distinct operations and operands; split it into several pointwise calls`,
        span,
      );
    }
    stack.push(...expr.children(e));
  }
}

function wholeOf(source: string): SourceSpan {
  return { text: source, start: 0, end: Math.max(1, source.length) };
}
