/**
 * The payload of a pointwise function — what one element of each output is, given
 * one element of each input — read into the core's expression IR.
 *
 * A payload is either a JS/TS function, read from its source text with the
 * TypeScript parser:
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
import { createRequire } from 'node:module';
import { expr, LoomError, parseExpression, type Expr, type SourceSpan } from '@loom/core';
import type { ts as TS } from 'ts-morph';

const { binary, bool, call, cast, compare, float, ifThenElse, int, logical, neg, not, variable } = expr;

export interface Payload {
  /** A name for kernels (the function's name, when it has one). */
  readonly name: string;
  /** The parameters, one per input, in order. */
  readonly params: readonly string[];
  /** One expression per output, in the parameters. */
  readonly outputs: readonly Expr[];
  /** The text the payload was read from, for error messages. */
  readonly source: string;
}

/** Functions the payload may call besides the core's: JS semantics and complex numbers. */
export const PAYLOAD_FUNCTIONS: Readonly<Record<string, number>> = Object.freeze({
  truediv: 2, jspow: 2, jsround: 1, jshypot: 0, real: 1, imag: 1, conj: 1, complex: 2,
});
/** The payload functions a payload may call by name (the others stand for JS operators and Math functions). */
const CALLABLE = new Set(['real', 'imag', 'conj', 'complex']);

export type PayloadSource = string | readonly string[] | ((...args: never[]) => unknown);

export function readPayload(payload: PayloadSource, params?: readonly string[]): Payload {
  if (typeof payload === 'function') return fromFunctionSource(payload.toString(), payload.name);
  if (typeof payload === 'string' && /=>|^\s*function\b/.test(payload)) return fromFunctionSource(payload, '');
  if (typeof payload === 'string' || Array.isArray(payload)) return fromExpressions(typeof payload === 'string' ? [payload] : payload, params);
  throw new LoomError(`a pointwise payload is a function or an expression string, not ${typeof payload}`);
}

// ---------------------------------------------------------------------------
// Expression strings

function fromExpressions(texts: readonly string[], params: readonly string[] | undefined): Payload {
  if (texts.length === 0) throw new LoomError('a pointwise payload needs at least one output expression');
  const outputs = texts.map((t) => parseExpression(t));
  const source = texts.join('; ');
  const found: string[] = [];
  const visit = (text: string) => (e: Expr): void => {
    if (e.kind === 'var' && !found.includes(e.name)) found.push(e.name);
    if (e.kind === 'subscript' || e.kind === 'reduce') throw new LoomError(`a pointwise payload works on single elements: ${e.kind === 'subscript' ? 'subscripts' : 'reductions'} are not allowed`, spanOf(text, e));
    if (e.kind === 'call' && !isKnownFunction(e.fn)) throw new LoomError(`unknown function '${e.fn}' in a pointwise payload`, spanOf(text, e));
  };
  outputs.forEach((o, k) => expr.walk(o, visit(texts[k])));
  const names = params ?? found;
  outputs.forEach((o, k) => {
    for (const v of expr.freeVariables(o)) {
      if (!names.includes(v)) throw new LoomError(`'${v}' is not a parameter of the payload (parameters: ${names.join(', ')})`, spanOf(texts[k], variable(v)));
    }
  });
  return { name: 'pointwise', params: names, outputs, source };
}

export function isKnownFunction(name: string): boolean {
  return Object.hasOwn(expr.KNOWN_FUNCTIONS, name) || Object.hasOwn(PAYLOAD_FUNCTIONS, name) || name === 'complex64' || name === 'complex128';
}

/** Where a node's text appears in `text` (found by printing it; the whole text when it cannot be). */
function spanOf(text: string, e: Expr): SourceSpan {
  const name = e.kind === 'call' ? e.fn : e.kind === 'var' ? e.name : e.kind === 'subscript' ? e.array : '';
  const at = name ? text.search(new RegExp(`\\b${name.replace(/[^\w]/g, '')}\\b`)) : -1;
  return at >= 0 ? { text, start: at, end: at + name.length } : { text, start: 0, end: Math.max(1, text.length) };
}

// ---------------------------------------------------------------------------
// Functions

let tsModule: typeof TS | undefined;

/** The TypeScript compiler that ts-morph bundles, loaded on first use (it takes a moment). */
function typescript(): typeof TS {
  return (tsModule ??= (createRequire(import.meta.url)('ts-morph') as { ts: typeof TS }).ts);
}

type FunctionNode = TS.ArrowFunction | TS.FunctionExpression | TS.MethodDeclaration;

function fromFunctionSource(source: string, name: string): Payload {
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source)) throw new LoomError(`the payload ${name || 'function'} is native code, whose source cannot be read`);
  const found = parseFunction(source);
  const { fn, shift } = found;
  const ts = typescript();
  const at = (node: TS.Node): SourceSpan => {
    const start = Math.max(0, node.getStart() - shift);
    return { text: source, start, end: Math.max(start + 1, node.getEnd() - shift) };
  };
  const fail = (node: TS.Node, message: string): never => {
    throw new LoomError(message, at(node));
  };

  if (fn.asteriskToken) fail(fn, 'a generator cannot be a pointwise payload');
  if (fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) fail(fn, 'an async function cannot be a pointwise payload');
  const params = fn.parameters.map((p) => {
    if (!ts.isIdentifier(p.name)) fail(p, 'payload parameters must be plain names (no destructuring)');
    if (p.dotDotDotToken) fail(p, 'payload parameters cannot be rest parameters');
    if (p.initializer) fail(p, 'payload parameters cannot have default values');
    return (p.name as TS.Identifier).text;
  });

  const translator = new Translator(ts, new Set(params), fail);
  const body = fn.body;
  if (!body) fail(fn, 'the payload has no body');
  let result: TS.Expression;
  if (ts.isBlock(body!)) {
    result = translator.block(body);
  } else {
    result = body as TS.Expression;
  }
  const returned = skipParentheses(ts, result);
  const outputs = ts.isArrayLiteralExpression(returned)
    ? returned.elements.map((e) => (ts.isSpreadElement(e) ? fail(e, 'spread elements cannot be payload outputs') : translator.expression(e)))
    : [translator.expression(returned)];
  if (outputs.length === 0) fail(returned, 'the payload returns no outputs');
  // Locals are shared, not copied (`const b = a + a` points at `a`'s node twice), so reading
  // is linear; but the kernel's passes walk trees, whose size a chain of locals can double at
  // each step. The bounds refuse what they could not walk, before they try.
  for (const o of outputs) expr.checkExpressionBounds(o, 'the payload', { text: source, start: 0, end: Math.max(1, source.length) });
  return { name: name || (fn.name && ts.isIdentifier(fn.name) ? fn.name.text : 'pointwise'), params, outputs, source };
}

/** The function in `source`: an arrow function or function expression, or a method (`f(x) { ... }`). */
function parseFunction(source: string): { fn: FunctionNode; shift: number } {
  const ts = typescript();
  const attempt = (prefix: string, suffix: string): FunctionNode | undefined => {
    let file: TS.SourceFile;
    try {
      file = ts.createSourceFile('payload.ts', prefix + source + suffix, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    } catch (err) {
      // TypeScript's parser recurses on nesting (thousands of brackets overflow it): the
      // user's nesting, said so, rather than a RangeError from inside the compiler.
      if (err instanceof RangeError && /call stack/i.test(err.message)) {
        throw new LoomError(`the payload is nested deeper than ${expr.MAX_EXPRESSION_DEPTH} levels`, { text: source, start: 0, end: Math.max(1, source.length) });
      }
      throw err;
    }
    if ((file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length > 0 || file.statements.length !== 1) return undefined;
    const statement = file.statements[0];
    if (!ts.isExpressionStatement(statement)) return undefined;
    const e = skipParentheses(ts, statement.expression);
    if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return e;
    if (ts.isObjectLiteralExpression(e) && e.properties.length === 1 && ts.isMethodDeclaration(e.properties[0])) return e.properties[0];
    return undefined;
  };
  const asExpression = attempt('(', ')');
  if (asExpression) return { fn: asExpression, shift: 1 };
  const asMethod = attempt('({', '})');
  if (asMethod) return { fn: asMethod, shift: 2 };
  throw new LoomError('the pointwise payload must be an arrow function, a function expression or a method', { text: source, start: 0, end: Math.max(1, source.length) });
}

function skipParentheses(ts: typeof TS, e: TS.Expression): TS.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e) || ts.isTypeAssertionExpression(e)) {
    e = e.expression;
  }
  return e;
}

/** JS `Math` functions and how each reads in the IR. */
const MATH_FUNCTIONS: Readonly<Record<string, { arity: number | 'variadic'; build: (args: Expr[]) => Expr }>> = {
  ...Object.fromEntries(
    ['abs', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'exp', 'log', 'log2', 'log10', 'sqrt', 'cbrt', 'floor', 'ceil', 'trunc']
      .map((f) => [f, { arity: 1, build: (args: Expr[]) => call(f, args) }]),
  ),
  atan2: { arity: 2, build: (args) => call('atan2', args) },
  min: { arity: 'variadic', build: (args) => call('min', args) },
  max: { arity: 'variadic', build: (args) => call('max', args) },
  pow: { arity: 2, build: ([a, b]) => call('jspow', [a, b]) },
  // JS rounds halves towards +infinity (C's round goes away from zero)
  round: { arity: 1, build: ([x]) => call('jsround', [x]) },
  sign: { arity: 1, build: ([x]) => ifThenElse(compare('>', x, int(0)), int(1), ifThenElse(compare('<', x, int(0)), int(-1), x)) },
  hypot: { arity: 'variadic', build: (args) => call('jshypot', args) },
  fround: { arity: 1, build: ([x]) => cast('float32', x) },
};

const MATH_CONSTANTS: Readonly<Record<string, number>> = {
  PI: Math.PI, E: Math.E, LN2: Math.LN2, LN10: Math.LN10, LOG2E: Math.LOG2E, LOG10E: Math.LOG10E, SQRT2: Math.SQRT2, SQRT1_2: Math.SQRT1_2,
};

/** Walks a function's body, turning TypeScript nodes into IR expressions. */
class Translator {
  /** `const` names of the body, each standing for its initializer. */
  readonly #locals = new Map<string, Expr>();

  constructor(
    private readonly ts: typeof TS,
    private readonly params: ReadonlySet<string>,
    private readonly fail: (node: TS.Node, message: string) => never,
  ) {}

  /** A block body: `const` declarations, then one `return`. Returns the returned expression. */
  block(body: TS.Block): TS.Expression {
    const { ts, fail } = this;
    const statements = body.statements;
    statements.forEach((s, k) => {
      const last = k === statements.length - 1;
      if (ts.isReturnStatement(s)) {
        if (!last) fail(statements[k + 1], 'code after the return cannot run');
        return;
      }
      if (!ts.isVariableStatement(s)) {
        fail(s, ts.isIfStatement(s)
          ? 'if statements are not supported in a payload; write a conditional expression (c ? a : b)'
          : 'a payload body may hold only const declarations and a final return');
      }
      const list = (s as TS.VariableStatement).declarationList;
      if (!(list.flags & ts.NodeFlags.Const) && !(list.flags & ts.NodeFlags.Let)) fail(s, 'declare payload locals with const');
      for (const d of list.declarations) {
        if (!ts.isIdentifier(d.name)) fail(d.name, 'payload locals must be plain names (no destructuring)');
        if (!d.initializer) fail(d, 'a payload local needs a value');
        const name = (d.name as TS.Identifier).text;
        if (this.#locals.has(name) || this.params.has(name)) fail(d.name, `'${name}' is already defined`);
        this.#locals.set(name, this.expression(d.initializer!));
      }
    });
    const last = statements[statements.length - 1];
    if (!last || !ts.isReturnStatement(last) || !last.expression) fail(last ?? body, 'the payload must end with a return of its output(s)');
    return (last as TS.ReturnStatement).expression!;
  }

  /** How many `expression` calls are open: the depth of the tree being built. */
  #depth = 0;

  /**
   * The IR for `node`. The translation recurses once per level, so the depth is bounded here
   * by the bound every Loom expression keeps (a flat sum of thousands of terms is that deep).
   */
  expression(node: TS.Expression): Expr {
    if (this.#depth >= expr.MAX_EXPRESSION_DEPTH) {
      this.fail(node, `the payload is nested deeper than ${expr.MAX_EXPRESSION_DEPTH} levels (a chain of operators counts a level per operator)`);
    }
    this.#depth++;
    try {
      return this.translate(node);
    } finally {
      this.#depth--;
    }
  }

  private translate(node: TS.Expression): Expr {
    const { ts, fail } = this;
    const e = skipParentheses(ts, node);
    if (ts.isNumericLiteral(e)) return numberLiteral(Number(e.text));
    if (ts.isBigIntLiteral(e)) return int(Number(e.text.slice(0, -1)));
    if (e.kind === ts.SyntaxKind.TrueKeyword) return bool(true);
    if (e.kind === ts.SyntaxKind.FalseKeyword) return bool(false);
    if (ts.isIdentifier(e)) return this.name(e);
    if (ts.isPrefixUnaryExpression(e)) return this.prefix(e);
    if (ts.isBinaryExpression(e)) return this.binaryExpression(e);
    if (ts.isConditionalExpression(e)) return ifThenElse(this.expression(e.condition), this.expression(e.whenTrue), this.expression(e.whenFalse));
    if (ts.isCallExpression(e)) return this.callExpression(e);
    if (ts.isPropertyAccessExpression(e)) {
      if (isMath(ts, e.expression) && Object.hasOwn(MATH_CONSTANTS, e.name.text)) return float(MATH_CONSTANTS[e.name.text]);
      return fail(e, `'${e.getText()}' cannot be read in a payload (only parameters, locals and Math constants)`);
    }
    if (ts.isArrayLiteralExpression(e)) return fail(e, 'an array can only be the returned list of outputs');
    return fail(e, `${describe(ts, e)} cannot be translated to a Loom expression`);
  }

  private name(e: TS.Identifier): Expr {
    const name = e.text;
    if (this.params.has(name)) return variable(name);
    const local = this.#locals.get(name);
    if (local) return local;
    if (name === 'Infinity') return float(Infinity);
    if (name === 'NaN') return float(NaN);
    return this.fail(e, `'${name}' is neither a parameter nor a local of the payload`);
  }

  private prefix(e: TS.PrefixUnaryExpression): Expr {
    const { ts, fail } = this;
    const operand = this.expression(e.operand);
    switch (e.operator) {
      case ts.SyntaxKind.MinusToken:
        // fold -2 into a literal, so it prints (and types) as one; -0 is a float, as integers have no -0
        if (operand.kind === 'int' || operand.kind === 'float') return operand.kind === 'int' && operand.value !== 0 ? int(-operand.value) : float(-operand.value);
        return neg(operand);
      case ts.SyntaxKind.PlusToken:
        return operand;
      case ts.SyntaxKind.ExclamationToken:
        return not(operand);
      case ts.SyntaxKind.TildeToken:
        return fail(e, 'bitwise operators have no counterpart in Loom expressions');
      default:
        return fail(e, 'increments and decrements cannot appear in a payload (it computes values; it assigns nothing)');
    }
  }

  private binaryExpression(e: TS.BinaryExpression): Expr {
    const { ts, fail } = this;
    const op = e.operatorToken.kind;
    const K = ts.SyntaxKind;
    const both = () => [this.expression(e.left), this.expression(e.right)] as const;
    switch (op) {
      case K.PlusToken: return binary('+', ...both());
      case K.MinusToken: return binary('-', ...both());
      case K.AsteriskToken: return binary('*', ...both());
      case K.AsteriskAsteriskToken: return call('jspow', [...both()]);
      case K.SlashToken: return call('truediv', both());
      case K.PercentToken: return call('fmod', both());
      case K.LessThanToken: return compare('<', ...both());
      case K.LessThanEqualsToken: return compare('<=', ...both());
      case K.GreaterThanToken: return compare('>', ...both());
      case K.GreaterThanEqualsToken: return compare('>=', ...both());
      case K.EqualsEqualsToken: case K.EqualsEqualsEqualsToken: return compare('==', ...both());
      case K.ExclamationEqualsToken: case K.ExclamationEqualsEqualsToken: return compare('!=', ...both());
      case K.AmpersandAmpersandToken: return logical('and', ...both());
      case K.BarBarToken: return logical('or', ...both());
      case K.AmpersandToken: case K.BarToken: case K.CaretToken:
      case K.LessThanLessThanToken: case K.GreaterThanGreaterThanToken: case K.GreaterThanGreaterThanGreaterThanToken:
        return fail(e.operatorToken, 'bitwise operators have no counterpart in Loom expressions');
      default:
        return fail(e.operatorToken, `the operator '${e.operatorToken.getText()}' cannot be translated to a Loom expression`);
    }
  }

  private callExpression(e: TS.CallExpression): Expr {
    const { ts, fail } = this;
    const callee = skipParentheses(ts, e.expression);
    const args = () => e.arguments.map((a) => (ts.isSpreadElement(a) ? fail(a, 'spread arguments cannot be translated') : this.expression(a)));
    if (ts.isPropertyAccessExpression(callee) && isMath(ts, callee.expression)) {
      const fn = MATH_FUNCTIONS[callee.name.text];
      if (!fn) return fail(callee, `Math.${callee.name.text} has no counterpart in Loom expressions`);
      const given = args();
      if (fn.arity === 'variadic' ? given.length === 0 : given.length !== fn.arity) {
        return fail(e, `Math.${callee.name.text} takes ${fn.arity === 'variadic' ? 'at least one argument' : `${fn.arity} argument(s)`}, got ${given.length}`);
      }
      return fn.build(given);
    }
    // real(z), imag(z), conj(z), complex(re, im): by name, however they were imported
    const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
    if (name && CALLABLE.has(name)) {
      const given = args();
      if (given.length !== PAYLOAD_FUNCTIONS[name]) fail(e, `${name} takes ${PAYLOAD_FUNCTIONS[name]} argument(s), got ${given.length}`);
      return call(name, given);
    }
    return fail(callee, `cannot call '${callee.getText()}' in a payload: only Math functions and real, imag, conj, complex`);
  }
}

function isMath(ts: typeof TS, e: TS.Expression): boolean {
  return ts.isIdentifier(e) && e.text === 'Math';
}

/** A number as an IR literal: whole numbers in int32 range are (weak) integers. */
function numberLiteral(value: number): Expr {
  return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? int(value) : float(value);
}

function describe(ts: typeof TS, node: TS.Node): string {
  const kind = ts.SyntaxKind[node.kind].replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `'${node.getText()}' (${kind})`;
}
