/**
 * mathjs's tree → our IR.
 *
 * mathjs nodes carry no positions, so the converter walks the tree in source order with a
 * cursor over our own tokens (`tokens.ts`): a binary operator is "left operand, operator
 * token, right operand", a call is "name ( arg , arg )", and so on. Consuming tokens as it
 * goes, the converter knows each node's text (numbers keep their int/float spelling) and can
 * point a caret at any token it rejects. A token that is not where the tree says it should be
 * is a bug in this walk, reported as an internal error rather than silently misread.
 */
import { isDType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import {
  binary, bool, call, cast, compare, float, ifThenElse, int, KNOWN_FUNCTIONS, logical, neg, not, reduce,
  subscript, variable,
  type BinaryOp, type CompareOp, type Expr, type LogicalOp, type ReductionOp,
} from './nodes.ts';
import { freeVariables } from './analysis.ts';
import { errorAt, type SourceSlice, type Token } from './tokens.ts';

/** The parts of mathjs's node shapes we read (its own generic typings are unwieldy). */
export type MathjsNode =
  | { readonly type: 'ConstantNode'; readonly value: unknown }
  | { readonly type: 'SymbolNode'; readonly name: string }
  | { readonly type: 'ParenthesisNode'; readonly content: MathjsNode }
  | { readonly type: 'OperatorNode'; readonly fn: string; readonly op: string; readonly args: readonly MathjsNode[]; readonly implicit: boolean }
  | { readonly type: 'FunctionNode'; readonly fn: MathjsNode; readonly args: readonly MathjsNode[] }
  | { readonly type: 'AccessorNode'; readonly object: MathjsNode; readonly index: { readonly dimensions: readonly MathjsNode[] } }
  | { readonly type: 'ArrayNode'; readonly items: readonly MathjsNode[] }
  | { readonly type: 'ConditionalNode'; readonly condition: MathjsNode; readonly trueExpr: MathjsNode; readonly falseExpr: MathjsNode }
  | { readonly type: 'RelationalNode'; readonly params: readonly MathjsNode[] }
  | { readonly type: 'RangeNode' };

type OperatorNode = Extract<MathjsNode, { type: 'OperatorNode' }>;
type FunctionNode = Extract<MathjsNode, { type: 'FunctionNode' }>;

export interface ConvertOptions {
  /** The kernel's inames: decides whether `max(k, e)` is a reduction or the function. */
  readonly inames?: ReadonlySet<string>;
}

/** mathjs's binary operators (by function name) and the token each one is written with. */
const BINARY: Readonly<Record<string, { readonly tokens: readonly string[]; readonly build: (l: Expr, r: Expr) => Expr }>> = {
  add: arithmetic('+'),
  subtract: arithmetic('-'),
  multiply: arithmetic('*'),
  divide: arithmetic('/'),
  dotDivide: arithmetic('//', ['//']), // `//` is spelled `./` for mathjs (see tokens.ts)
  mod: arithmetic('%'),
  pow: arithmetic('**', ['**', '^']),
  equal: comparison('=='),
  unequal: comparison('!='),
  smaller: comparison('<'),
  smallerEq: comparison('<='),
  larger: comparison('>'),
  largerEq: comparison('>='),
  and: logic('and'),
  or: logic('or'),
};

function arithmetic(op: BinaryOp, tokens: readonly string[] = [op]) {
  return { tokens, build: (l: Expr, r: Expr) => binary(op, l, r) };
}
function comparison(op: CompareOp) {
  return { tokens: [op], build: (l: Expr, r: Expr) => compare(op, l, r) };
}
function logic(op: LogicalOp) {
  return { tokens: [op], build: (l: Expr, r: Expr) => logical(op, l, r) };
}

/**
 * Operators that bind tighter than Python's `not` (and than ours): Python reads `not a < b`
 * as `not (a < b)`, mathjs as `(not a) < b`. See `Converter.binary`.
 */
const BINDS_TIGHTER_THAN_NOT = new Set([
  'add', 'subtract', 'multiply', 'divide', 'dotDivide', 'mod',
  'equal', 'unequal', 'smaller', 'smallerEq', 'larger', 'largerEq',
]);

export function convertMathjs(root: MathjsNode, tokens: readonly Token[], slice: SourceSlice, options: ConvertOptions): Expr {
  const converter = new Converter(tokens, slice, options);
  const e = converter.expression(root);
  converter.expectEnd();
  return e;
}

/** An iname list as written: `k` (bare, could also be a plain argument) or `(i, j)` / `[i, j]`. */
interface InameList {
  readonly names: readonly Token[];
  readonly bare: boolean;
  /** The first token: the name, or the opening bracket of a tuple. */
  readonly first: Token;
}

class Converter {
  private pos = 0;
  /** `not` nodes whose `not` a chain of operators above them has taken over (see `binary`). */
  private readonly absorbedNots = new Set<MathjsNode>();

  constructor(
    private readonly tokens: readonly Token[],
    private readonly slice: SourceSlice,
    private readonly options: ConvertOptions,
  ) {}

  expression(node: MathjsNode): Expr {
    switch (node.type) {
      case 'ParenthesisNode': {
        this.expect('(');
        const inner = this.expression(node.content);
        this.expect(')');
        return inner;
      }
      case 'ConstantNode':
        return this.literal();
      case 'SymbolNode':
        return variable(this.take('name').text);
      case 'OperatorNode':
        return node.args.length === 1 ? this.unary(node) : this.binary(node);
      case 'ConditionalNode': {
        // `c ? a : b` is mathjs syntax we keep: it means `if(c, a, b)`.
        const condition = this.expression(node.condition);
        this.expect('?');
        const then = this.expression(node.trueExpr);
        this.expect(':');
        return ifThenElse(condition, then, this.expression(node.falseExpr));
      }
      case 'FunctionNode':
        return this.call(node);
      case 'AccessorNode': {
        if (node.object.type !== 'SymbolNode') {
          this.expression(node.object);
          throw this.error(this.peek(), 'only an array, by its name, can be subscripted (write a[i, j], not a[i][j])');
        }
        const array = this.take('name').text;
        this.expect('[');
        const indices = this.list(node.index.dimensions, (d) => this.expression(d));
        this.expect(']');
        return subscript(array, indices);
      }
      case 'RelationalNode': {
        // mathjs builds this node only for chains: `a < b < c`.
        this.expression(node.params[0]);
        this.next();
        this.expression(node.params[1]);
        throw this.error(this.peek(), "chained comparisons are not supported (write 'a < b and b < c')");
      }
      case 'ArrayNode':
        throw this.error(this.peek(), 'a tuple is only allowed as the inames of a reduction, as in sum((i, j), e)');
      case 'RangeNode': {
        // mathjs may invent a range's bounds (`a[:]`), so find the colon by scanning.
        const colon = this.tokens.slice(this.pos).find((t) => t.text === ':') ?? this.peek();
        throw this.error(colon, "ranges ('a:b') are not supported");
      }
      default:
        throw this.error(this.peek(), `unsupported syntax (${(node as { type: string }).type})`);
    }
  }

  private literal(): Expr {
    const token = this.next();
    if (token.kind === 'bool') return bool(token.text === 'true');
    if (token.kind !== 'number') throw this.lostTrack(token, 'a literal');
    // Integer and float literals are different things (an int does not widen a float32
    // computation), told apart by how they are written: `2` versus `2.0`, `2.`, `.5`, `1e3`.
    const value = Number(token.text);
    if (/^\d+$/.test(token.text)) {
      if (!Number.isSafeInteger(value)) throw this.error(token, `integer literal ${token.text} is too large`);
      return int(value);
    }
    if (!Number.isFinite(value)) throw this.error(token, `float literal ${token.text} is out of range`);
    return float(value);
  }

  private unary(node: OperatorNode): Expr {
    const [operand] = node.args;
    switch (node.fn) {
      case 'unaryMinus': {
        this.expect('-');
        // `-1` is the literal -1 (as in Python), not the negation of 1: it prints back as `-1`.
        if (operand.type === 'ConstantNode' && this.peek()?.kind === 'number') {
          const literal = this.literal() as Extract<Expr, { kind: 'int' | 'float' }>;
          return literal.kind === 'int' ? int(-literal.value) : float(-literal.value);
        }
        return neg(this.expression(operand));
      }
      case 'unaryPlus':
        this.expect('+');
        return this.expression(operand);
      case 'not':
        if (this.absorbedNots.has(node)) return this.expression(operand); // see `binary`
        this.expect('not');
        return not(this.expression(operand));
      default:
        throw this.error(this.peek(), `unsupported operator '${node.op}'`);
    }
  }

  private binary(node: OperatorNode): Expr {
    // mathjs's `(not a) + b < c` is Python's (and loopy's) `not (a + b < c)`: the `not`
    // that starts a chain of arithmetic and comparisons covers all of it. So the topmost
    // operator of the chain takes the `not` over; the `not` node itself is then skipped.
    const leading = this.leadingNots(node);
    if (leading.length > 0) {
      for (const n of leading) {
        this.expect('not');
        this.absorbedNots.add(n);
      }
      return leading.reduce<Expr>((e) => not(e), this.binary(node));
    }
    // mathjs nests a chain of left-associative operators to the left: `a + b - c + d` is
    // `((a + b) - c) + d`. The chain is walked down iteratively, so that a sum of 3,000 terms
    // costs no 3,000 stack frames; its operands are converted recursively (they are nested
    // expressions, whose depth the parser bounds).
    const spine = this.leftSpine(node);
    let result = this.expression(spine[spine.length - 1].args[0]);
    for (let k = spine.length - 1; k >= 0; k--) result = this.rightOperand(spine[k], result);
    return result;
  }

  /**
   * `node` and the binary operators down its left operands, outermost first. The walk stops at
   * an operator whose text starts with `not`s that a chain must take over (see above): that
   * one is converted through `binary` again.
   */
  private leftSpine(node: OperatorNode): OperatorNode[] {
    const spine = [node];
    for (;;) {
      const left = spine[spine.length - 1].args[0];
      if (left.type !== 'OperatorNode' || left.args.length !== 2) return spine;
      // Only the topmost of a run of operators that bind tighter than `not` can take the
      // `not`s over; so a run is checked where it starts, once (not at each of its nodes).
      const startsRun = BINDS_TIGHTER_THAN_NOT.has(left.fn) && !BINDS_TIGHTER_THAN_NOT.has(spine[spine.length - 1].fn);
      if (startsRun && this.leadingNots(left).length > 0) return spine;
      spine.push(left);
    }
  }

  /** The operator token of binary `node` and its right operand, given its left operand converted. */
  private rightOperand(node: OperatorNode, left: Expr): Expr {
    if (node.implicit) {
      // mathjs reads `2a`, `2 i`, `(a)(b)` as products; we want the operator written.
      const at = this.peek();
      throw this.error(at, `missing operator before '${at?.text ?? ''}'`);
    }
    const opToken = this.next();
    const spec = BINARY[node.fn];
    if (spec === undefined) throw this.error(opToken, `unsupported operator '${opToken.text}'`);
    if (!spec.tokens.includes(opToken.text)) throw this.lostTrack(opToken, `operator ${spec.tokens.join(' or ')}`);
    return spec.build(left, this.expression(node.args[1]));
  }

  /**
   * The unparenthesized `not`s (`not not a < b` has two) that the text of `node`, a chain of
   * tighter operators, starts with.
   */
  private leadingNots(node: OperatorNode): OperatorNode[] {
    let first: MathjsNode = node;
    while (first.type === 'OperatorNode' && first.args.length === 2 && BINDS_TIGHTER_THAN_NOT.has(first.fn)) first = first.args[0];
    const nots: OperatorNode[] = [];
    while (first !== node && first.type === 'OperatorNode' && first.fn === 'not' && !this.absorbedNots.has(first)) {
      nots.push(first);
      first = first.args[0];
    }
    return nots;
  }

  private call(node: FunctionNode): Expr {
    if (node.fn.type !== 'SymbolNode') {
      this.expression(node.fn);
      throw this.error(this.peek(), 'only a function, by its name, can be called');
    }
    const nameToken = this.take('name');
    const name = nameToken.text;
    this.expect('(');
    const result = this.callBody(name, nameToken, node.args);
    this.expect(')');
    return result;
  }

  /** Everything between the call's parentheses, and what the call means. */
  private callBody(name: string, nameToken: Token, args: readonly MathjsNode[]): Expr {
    const arityError = (expected: string) =>
      this.error(nameToken, `${name}() takes ${expected}, got ${args.length} argument${args.length === 1 ? '' : 's'}`);

    if (name === 'sum' || name === 'product') {
      if (args.length !== 2) throw arityError('an iname (or a tuple of inames) and an expression');
      const inames = this.inameList(args[0]);
      if (inames === undefined) throw this.error(this.peek(), `expected the iname (or a tuple of inames) that ${name}() reduces over`);
      this.expect(',');
      return reduce(name, this.checkedInames(inames), this.expression(args[1]));
    }

    if ((name === 'max' || name === 'min') && args.length === 2) {
      const inames = this.inameList(args[0]);
      if (inames !== undefined) {
        this.expect(',');
        const body = this.expression(args[1]);
        if (this.isReduction(inames, body)) return reduce(name as ReductionOp, this.checkedInames(inames), body);
        return call(name, [variable(inames.names[0].text), body]);
      }
    }

    const values = this.list(args, (a) => this.expression(a));
    if (name === 'if') {
      if (values.length !== 3) throw arityError('3 arguments (condition, then, otherwise)');
      return ifThenElse(values[0], values[1], values[2]);
    }
    if (isDType(name)) {
      if (values.length !== 1) throw arityError('1 argument');
      return cast(name, values[0]);
    }
    if (Object.hasOwn(KNOWN_FUNCTIONS, name)) {
      const arity = KNOWN_FUNCTIONS[name];
      if (arity === undefined ? values.length === 0 : values.length !== arity) {
        throw arityError(arity === undefined ? 'at least 1 argument' : `${arity} argument${arity === 1 ? '' : 's'}`);
      }
    }
    // Any other name is a call too: it may be a substitution rule, which the kernel checks.
    return call(name, values);
  }

  /**
   * `max(k, e)` is a reduction, not the function of two values, when `k` is an iname: the
   * kernel's inames when it told us, otherwise when `k` is used in `e` (the function's first
   * argument would hardly be a bare name that the second one also uses). A tuple is always a
   * reduction's: the function takes no tuples.
   */
  private isReduction(inames: InameList, body: Expr): boolean {
    if (!inames.bare) return true;
    const name = inames.names[0].text;
    return this.options.inames ? this.options.inames.has(name) : freeVariables(body).has(name);
  }

  /** Reads `k`, `(i, j)` or `[i, j]` if that is what `node` is; otherwise consumes nothing. */
  private inameList(node: MathjsNode): InameList | undefined {
    const first = this.peek();
    if (first === undefined) return undefined;
    if (node.type === 'SymbolNode') return { names: [this.take('name')], bare: true, first };
    if (node.type !== 'ArrayNode') return undefined;
    this.next(); // `(` or `[`
    const names = this.list(node.items, (item) => {
      if (item.type !== 'SymbolNode') throw this.error(this.peek(), 'expected an iname');
      return this.take('name');
    });
    this.next(); // `)` or `]`
    return { names, bare: false, first };
  }

  private checkedInames(list: InameList): string[] {
    if (list.names.length === 0) throw this.error(list.first, 'a reduction needs at least one iname');
    const seen = new Set<string>();
    for (const token of list.names) {
      if (seen.has(token.text)) throw this.error(token, `iname '${token.text}' is listed twice`);
      seen.add(token.text);
    }
    return list.names.map((t) => t.text);
  }

  /** Converts comma-separated items, consuming the commas between them. */
  private list<T>(items: readonly MathjsNode[], convert: (item: MathjsNode) => T): T[] {
    return items.map((item, i) => {
      if (i > 0) this.expect(',');
      return convert(item);
    });
  }

  // The token cursor.

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private next(): Token {
    const token = this.tokens[this.pos];
    if (token === undefined) throw this.lostTrack(undefined, 'a token');
    this.pos++;
    return token;
  }

  private take(kind: Token['kind']): Token {
    const token = this.next();
    // mathjs reads a stray word operator (`a + and`, `and()`, `% a`, spelled `mod a`) as a
    // name; for us it is an operator out of place.
    if (kind === 'name' && (token.kind === 'word' || token.text === '%')) {
      throw this.error(token, `syntax error: expected a value, found '${token.text}'`);
    }
    if (token.kind !== kind) throw this.lostTrack(token, `a ${kind}`);
    return token;
  }

  private expect(text: string): Token {
    const token = this.next();
    if (token.text !== text) throw this.lostTrack(token, `'${text}'`);
    return token;
  }

  expectEnd(): void {
    if (this.pos < this.tokens.length) throw this.lostTrack(this.peek(), 'the end');
  }

  private error(token: Token | undefined, message: string): LoomError {
    const length = this.tokens.length > 0 ? this.tokens[this.tokens.length - 1].end : 0;
    return token ? errorAt(this.slice, token.start, token.end, message) : errorAt(this.slice, length, length + 1, message);
  }

  private lostTrack(token: Token | undefined, expected: string): LoomError {
    return this.error(token, `internal error: the expression parser expected ${expected} here (please report this)`);
  }
}
