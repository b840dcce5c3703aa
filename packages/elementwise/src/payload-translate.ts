/**
 * A payload function's body, as acorn parsed it (ESTree nodes), turned into IR expressions:
 * the statements a body may hold, the operators and `Math` members JavaScript offers and what
 * each one becomes. Everything else fails at its node (the caller draws the caret).
 */
import type {
  BinaryExpression,
  BlockStatement,
  CallExpression,
  Expression,
  Identifier,
  Literal,
  LogicalExpression,
  Node,
  ReturnStatement,
  UnaryExpression,
  VariableDeclaration,
} from 'acorn';
import { expr, MATH_FUNCTIONS as CORE_FUNCTIONS, nameTable, type Expr, type MathFunction } from '@loom/core';
import { foldLiterals, numberLiteral } from './fold.ts';

const { binary, bitnot, bool, call, cast, compare, float, ifThenElse, int, logical, neg, not, variable } = expr;

/** Throws the LoomError for `node` (never returns). */
export type Fail = (node: Node, message: string) => never;

/** Functions the payload may call besides the core's: JS semantics and complex numbers. */
export const PAYLOAD_FUNCTIONS: Readonly<Record<string, number>> = Object.freeze({
  truediv: 2,
  jspow: 2,
  jsround: 1,
  jshypot: 0,
  jsstricteq: 2,
  jsstrictne: 2,
  real: 1,
  imag: 1,
  conj: 1,
  complex: 2,
});
/** The payload functions a payload may call by name (the others stand for JS operators and Math functions). */
const CALLABLE = new Set(['real', 'imag', 'conj', 'complex']);

/** How a JS `Math` function reads in the IR: its arity and the expression it builds. */
interface MathTranslation {
  readonly arity: number | 'variadic';
  readonly build: (args: Expr[]) => Expr;
}

/**
 * JS `Math` functions and how each reads in the IR: every function of core's table that is
 * `Math.<name>` on doubles (its `js` mark) is itself, and the rest of `Math` that Loom can
 * express is spelled by JavaScript's own rules. No prototype: `Math.constructor` is no function.
 */
const MATH_FUNCTIONS: Readonly<Record<string, MathTranslation>> = nameTable({
  ...Object.fromEntries(
    (Object.entries(CORE_FUNCTIONS) as [string, MathFunction][])
      .filter(([, f]) => f.js === true)
      .map(([name, f]): [string, MathTranslation] => [name, { arity: f.arity, build: (args) => call(name, args) }]),
  ),
  // C's pow(1, NaN) is 1, JavaScript's NaN
  pow: { arity: 2, build: ([a, b]) => call('jspow', [a, b]) },
  // JS rounds halves towards +infinity (C's round goes away from zero)
  round: { arity: 1, build: ([x]) => call('jsround', [x]) },
  sign: {
    arity: 1,
    build: ([x]) => ifThenElse(compare('>', x, int(0)), int(1), ifThenElse(compare('<', x, int(0)), int(-1), x)),
  },
  // JavaScript's takes any number of arguments, C's two
  hypot: { arity: 'variadic', build: (args) => call('jshypot', args) },
  fround: { arity: 1, build: ([x]) => cast('float32', x) },
});

const MATH_CONSTANTS: Readonly<Record<string, number>> = {
  PI: Math.PI,
  E: Math.E,
  LN2: Math.LN2,
  LN10: Math.LN10,
  LOG2E: Math.LOG2E,
  LOG10E: Math.LOG10E,
  SQRT2: Math.SQRT2,
  SQRT1_2: Math.SQRT1_2,
};

/** JavaScript's binary operators that have a meaning in a payload, and that meaning. */
const BINARY: Readonly<Record<string, (l: Expr, r: Expr) => Expr>> = {
  '+': (l, r) => binary('+', l, r),
  '-': (l, r) => binary('-', l, r),
  '*': (l, r) => binary('*', l, r),
  '**': (l, r) => call('jspow', [l, r]),
  '/': (l, r) => call('truediv', [l, r]),
  '%': (l, r) => call('fmod', [l, r]),
  '<': (l, r) => compare('<', l, r),
  '<=': (l, r) => compare('<=', l, r),
  '>': (l, r) => compare('>', l, r),
  '>=': (l, r) => compare('>=', l, r),
  '==': (l, r) => compare('==', l, r),
  // strict: a bool never equals a number (`(x > 0) === 1` is false), decided once typed (lower.ts)
  '===': (l, r) => call('jsstricteq', [l, r]),
  '!=': (l, r) => compare('!=', l, r),
  '!==': (l, r) => call('jsstrictne', [l, r]),
  '&&': (l, r) => logical('and', l, r),
  '||': (l, r) => logical('or', l, r),
  // on integers, as the kernel language (and PyTorch) define them; floats are refused when typed
  '&': (l, r) => binary('&', l, r),
  '|': (l, r) => binary('|', l, r),
  '^': (l, r) => binary('^', l, r),
  '<<': (l, r) => binary('<<', l, r),
  '>>': (l, r) => binary('>>', l, r),
};

/** Walks a function's body, turning ESTree nodes into IR expressions. */
export class PayloadTranslator {
  /** `const` names of the body, each standing for its initializer. */
  readonly #locals = new Map<string, Expr>();
  /** How many `expression` calls are open: the depth of the tree being built. */
  #depth = 0;

  constructor(
    private readonly params: ReadonlySet<string>,
    private readonly fail: Fail,
    /** The source text of a node, for messages. */
    private readonly textOf: (node: Node) => string,
    /** Told of each integer literal made and the node it was written as (for carets under literals found wrong once typed). */
    private readonly noteLiteral: (literal: Expr, node: Node) => void = () => {},
  ) {}

  /** A block body: `const` declarations, then one `return`. Returns the returned expression. */
  block(body: BlockStatement): Expression {
    const { fail } = this;
    const statements = body.body;
    statements.forEach((s, k) => {
      const last = k === statements.length - 1;
      if (s.type === 'ReturnStatement') {
        if (!last) fail(statements[k + 1], 'code after the return cannot run');
        return;
      }
      if (s.type !== 'VariableDeclaration') {
        fail(
          s,
          s.type === 'IfStatement'
            ? 'if statements are not supported in a payload; write a conditional expression (c ? a : b)'
            : 'a payload body may hold only const declarations and a final return',
        );
      }
      const declaration = s as VariableDeclaration;
      if (declaration.kind !== 'const' && declaration.kind !== 'let') fail(s, 'declare payload locals with const');
      for (const d of declaration.declarations) {
        if (d.id.type !== 'Identifier') fail(d.id, 'payload locals must be plain names (no destructuring)');
        if (!d.init) fail(d, 'a payload local needs a value');
        const name = (d.id as Identifier).name;
        if (this.#locals.has(name) || this.params.has(name)) fail(d.id, `'${name}' is already defined`);
        this.#locals.set(name, this.expression(d.init!));
      }
    });
    const last = statements[statements.length - 1];
    if (!last || last.type !== 'ReturnStatement' || !last.argument)
      fail(last ?? body, 'the payload must end with a return of its output(s)');
    return (last as ReturnStatement).argument!;
  }

  /**
   * The IR for `node`. The translation recurses once per level, so the depth is bounded here
   * by the bound every Loom expression keeps (a flat sum of thousands of terms is that deep).
   */
  expression(node: Expression): Expr {
    if (this.#depth >= expr.MAX_EXPRESSION_DEPTH) {
      this.fail(
        node,
        `the payload is nested deeper than ${expr.MAX_EXPRESSION_DEPTH} levels (a chain of operators counts a level per operator)`,
      );
    }
    this.#depth++;
    try {
      const e = foldLiterals(this.translate(node));
      if (e.kind === 'int') this.noteLiteral(e, node);
      return e;
    } finally {
      this.#depth--;
    }
  }

  private translate(e: Expression): Expr {
    const { fail } = this;
    switch (e.type) {
      case 'Literal':
        return this.literal(e);
      case 'Identifier':
        return this.name(e);
      case 'UnaryExpression':
        return this.unary(e);
      case 'UpdateExpression':
        return fail(e, 'increments and decrements cannot appear in a payload (it computes values; it assigns nothing)');
      case 'BinaryExpression':
      case 'LogicalExpression':
        return this.binaryExpression(e);
      case 'ConditionalExpression':
        return ifThenElse(this.expression(e.test), this.expression(e.consequent), this.expression(e.alternate));
      case 'CallExpression':
        return this.callExpression(e);
      case 'MemberExpression':
        if (
          isMath(e.object) &&
          !e.computed &&
          e.property.type === 'Identifier' &&
          Object.hasOwn(MATH_CONSTANTS, e.property.name)
        ) {
          return float(MATH_CONSTANTS[e.property.name]);
        }
        return fail(e, `'${this.textOf(e)}' cannot be read in a payload (only parameters, locals and Math constants)`);
      case 'ArrayExpression':
        return fail(e, 'an array can only be the returned list of outputs');
      default:
        return fail(e, `${this.describe(e)} cannot be translated to a Loom expression`);
    }
  }

  private literal(e: Literal): Expr {
    if (typeof e.value === 'number') return numberLiteral(e.value);
    if (typeof e.value === 'bigint') return int(Number(e.value));
    if (typeof e.value === 'boolean') return bool(e.value);
    return this.fail(e, `${this.describe(e)} cannot be translated to a Loom expression`);
  }

  private name(e: Identifier): Expr {
    const name = e.name;
    if (this.params.has(name)) return variable(name);
    const local = this.#locals.get(name);
    if (local) return local;
    if (name === 'Infinity') return float(Infinity);
    if (name === 'NaN') return float(NaN);
    return this.fail(e, `'${name}' is neither a parameter nor a local of the payload`);
  }

  private unary(e: UnaryExpression): Expr {
    switch (e.operator) {
      case '-': {
        const operand = this.expression(e.argument);
        // -2 is folded into a literal (by `expression`), so it prints (and types) as one
        return neg(operand);
      }
      case '+':
        return this.expression(e.argument);
      case '!':
        return not(this.expression(e.argument));
      case '~':
        return bitnot(this.expression(e.argument));
      default:
        return this.fail(e, `${this.describe(e)} cannot be translated to a Loom expression`);
    }
  }

  private binaryExpression(e: BinaryExpression | LogicalExpression): Expr {
    const build = BINARY[e.operator];
    if (build) return build(this.expression(e.left as Expression), this.expression(e.right));
    // ESTree keeps no node for the operator itself: its caret goes under its text, between the operands
    const operator = this.operatorNode(e);
    if (e.operator === '>>>')
      return this.fail(operator, "'>>>' has no counterpart in Loom expressions: shift an unsigned integer with '>>'");
    return this.fail(operator, `the operator '${e.operator}' cannot be translated to a Loom expression`);
  }

  /** Where `e`'s operator is written: its first occurrence after the left operand. */
  private operatorNode(e: BinaryExpression | LogicalExpression): Node {
    const at = this.textOf({ ...e, start: e.left.end, end: e.right.start }).indexOf(e.operator);
    if (at < 0) return e;
    return { ...e, start: e.left.end + at, end: e.left.end + at + e.operator.length };
  }

  private callExpression(e: CallExpression): Expr {
    const { fail } = this;
    const callee = e.callee as Expression;
    const args = () =>
      e.arguments.map((a) =>
        a.type === 'SpreadElement' ? fail(a, 'spread arguments cannot be translated') : this.expression(a),
      );
    const member =
      callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier'
        ? callee.property.name
        : undefined;
    if (callee.type === 'MemberExpression' && isMath(callee.object) && member !== undefined) {
      const fn = MATH_FUNCTIONS[member];
      if (!fn) return fail(callee, `Math.${member} has no counterpart in Loom expressions`);
      const given = args();
      if (fn.arity === 'variadic' ? given.length === 0 : given.length !== fn.arity) {
        return fail(
          e,
          `Math.${member} takes ${fn.arity === 'variadic' ? 'at least one argument' : `${fn.arity} argument(s)`}, got ${given.length}`,
        );
      }
      return fn.build(given);
    }
    // real(z), imag(z), conj(z), complex(re, im): by name, however they were imported
    const name = callee.type === 'Identifier' ? callee.name : member;
    if (name && CALLABLE.has(name)) {
      const given = args();
      if (given.length !== PAYLOAD_FUNCTIONS[name])
        fail(e, `${name} takes ${PAYLOAD_FUNCTIONS[name]} argument(s), got ${given.length}`);
      return call(name, given);
    }
    return fail(
      callee,
      `cannot call '${this.textOf(callee)}' in a payload: only Math functions and real, imag, conj, complex`,
    );
  }

  /** `'x ?? y' (logical expression)`: the node's text and what it is, for messages. */
  private describe(node: Node): string {
    const kind = node.type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
    return `'${this.textOf(node)}' (${kind})`;
  }
}

function isMath(e: Node): boolean {
  return e.type === 'Identifier' && (e as Identifier).name === 'Math';
}
