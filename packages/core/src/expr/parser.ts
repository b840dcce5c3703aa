/**
 * The expression grammar, read from our tokens (`tokens.ts`) straight into the IR.
 *
 * A recursive-descent parser with precedence climbing for the binary operators. The levels,
 * loosest first:
 *
 *     c ? a : b, a if c else b  right-associative (`a ? b : c ? d : e`)
 *     or
 *     and
 *     not                       prefix; see below
 *     == != < <= > >=           one per chain: `a < b < c` is refused
 *     |
 *     ^                         bitwise exclusive or (as in Python and pymbolic, not a power)
 *     &
 *     << >>
 *     + -
 *     * / // %
 *     - + ~                     prefix: `-a*b` is `(-a)*b`
 *     **                        right-associative; `-a**2` is `-(a**2)`, `a**-2` allowed
 *     f(...)  a[...]  a[[k]]    calls and subscripts, on names only (`g$tag(x)`: a tagged call)
 *
 * `not` reads as in Python (and loopy): it covers the arithmetic and comparisons after it,
 * so `not a + 1 < b` is `not (a + 1 < b)`, but never an `and` or `or`. Where it stands as the
 * operand of a tighter operator (`a + not b * c`), it covers what that operand would have
 * covered (`b * c`).
 *
 * Juxtaposition is always an error: `2 i`, `(a)(b)` and `a b` say "missing operator" (the
 * language has no implicit multiplication). Every error is a LoomError with a caret under a
 * token; recursion is bounded by `MAX_EXPRESSION_DEPTH` levels of nesting (brackets, prefix
 * operators, powers, conditionals), so no input can overflow the stack.
 */
import { isDType } from '../dtypes.ts';
import type { LoomError } from '../errors.ts';
import {
  binary,
  bitnot,
  bool,
  call,
  cast,
  compare,
  float,
  ifThenElse,
  imag,
  int,
  KNOWN_FUNCTIONS,
  logical,
  neg,
  not,
  reduce,
  subscript,
  variable,
  type BinaryOp,
  type CompareOp,
  type Expr,
  type ReductionOp,
} from './nodes.ts';
import { freeVariables } from './analysis.ts';
import { MAX_EXPRESSION_DEPTH } from './limits.ts';
import { isSubgroupFunction, SUBGROUP_FUNCTIONS } from './subgroup-functions.ts';
import { ATOMIC_FUNCTIONS, isAtomicFunction } from './atomic-functions.ts';
import { errorAt, type SourceSlice, type Token } from './tokens.ts';
import { findReductionOperation, isReductionName, reductionNames } from '../reduction/registry.ts';

/** Binding strength of the binary operators (a higher level binds tighter). */
const OR = 1;
const AND = 2;
const COMPARISON = 3;
const BIT_OR = 4;
const BIT_XOR = 5;
const BIT_AND = 6;
const SHIFT = 7;
const SUM = 8;
const PRODUCT = 9;
/** The operand of a prefix operator: nothing binary but `**` (which `power` reads). */
const PREFIX = 10;

const arithmetic = (level: number, ops: BinaryOp[]) =>
  Object.fromEntries(ops.map((op) => [op, { level, build: (l: Expr, r: Expr) => binary(op, l, r) }]));

const BINARY: Readonly<Record<string, { readonly level: number; readonly build: (l: Expr, r: Expr) => Expr }>> = {
  or: { level: OR, build: (l, r) => logical('or', l, r) },
  and: { level: AND, build: (l, r) => logical('and', l, r) },
  ...Object.fromEntries(
    (['==', '!=', '<', '<=', '>', '>='] as CompareOp[]).map((op) => [
      op,
      { level: COMPARISON, build: (l: Expr, r: Expr) => compare(op, l, r) },
    ]),
  ),
  ...arithmetic(BIT_OR, ['|']),
  ...arithmetic(BIT_XOR, ['^']),
  ...arithmetic(BIT_AND, ['&']),
  ...arithmetic(SHIFT, ['<<', '>>']),
  ...arithmetic(SUM, ['+', '-']),
  ...arithmetic(PRODUCT, ['*', '/', '//', '%']),
};

export interface ParserOptions {
  /** The kernel's inames: decides whether `max(k, e)` is a reduction or the function. */
  readonly inames?: ReadonlySet<string>;
  /** The arrays whose elements are structs: after one of their elements, `.x` is a field, not a vector component. */
  readonly structs?: ReadonlySet<string>;
  /**
   * The expression is the right-hand side of an assignment, which may be one atomic fetch
   * (`atomicAdd(counter[0], 1)`, atomic-functions.ts) as a whole. Elsewhere (a condition, a
   * rule, an index, inside a larger expression) a fetch is refused, at its name.
   */
  readonly atomicFetch?: boolean;
}

/** Reads `tokens` (all of them) as one expression. */
export function parseTokens(tokens: readonly Token[], slice: SourceSlice, options: ParserOptions = {}): Expr {
  const parser = new Parser(tokens, slice, options);
  const e = parser.conditional();
  parser.expectEnd();
  parser.checkAtomicFetches(e);
  return e;
}

/** One argument of a call as written: a bare name and a tuple of names can be a reduction's inames. */
interface Argument {
  readonly first: Token;
  readonly value?: Expr;
  /** Set when the argument is one name, nothing else. */
  readonly bareName?: Token;
  /** Set when the argument is `(i, j)` or `[i, j]` (a tuple, only meaningful as inames). */
  readonly tuple?: readonly Token[];
}

class Parser {
  private pos = 0;
  /** Levels of nesting open now, bounded by MAX_EXPRESSION_DEPTH. */
  private depth = 0;
  /** Whether a `:` at this bracket level ends the `then` part of a `? :` being read (else it would be a range). */
  private inThenBranch = false;
  /** What the last operand read was: a number, a prefix or power (`-a`, `a**2`) or anything else. */
  private lastOperand: 'literal' | 'operator' | 'other' = 'other';
  /** The tokens `(` and `)` of tuples: parentheses with a comma directly inside, as an argument. */
  private readonly tupleParentheses: ReadonlySet<number>;
  /** The atomic fetches read, each with its name's token (see `checkAtomicFetches`). */
  private readonly atomicFetches: { readonly token: Token; readonly call: Expr }[] = [];

  constructor(
    private readonly tokens: readonly Token[],
    private readonly slice: SourceSlice,
    private readonly options: ParserOptions,
  ) {
    this.tupleParentheses = findTupleParentheses(tokens);
  }

  /** `c ? a : b`, `a if c else b`, or anything looser-bound than them. */
  conditional(): Expr {
    const condition = this.binary(OR);
    const token = this.peek();
    if (token?.text === ':' && !this.inThenBranch) throw this.error(token, "ranges ('a:b') are not supported");
    if (token?.kind === 'name' && token.text === 'if') return this.pythonConditional(condition);
    if (token?.text !== '?') return condition;
    this.pos++;
    return this.nested(() => {
      const outer = this.inThenBranch;
      this.inThenBranch = true;
      const then = this.conditional();
      this.inThenBranch = outer;
      const colon = this.peek();
      if (colon?.text !== ':')
        throw this.syntaxError(colon, `expected ':' and the 'otherwise' part of '? :', found ${this.found(colon)}`);
      this.pos++;
      return ifThenElse(condition, then, this.conditional());
    });
  }

  /** `then if c else otherwise` (Python's, as loopy reads it), `then` read already. */
  private pythonConditional(then: Expr): Expr {
    this.pos++; // `if`
    return this.nested(() => {
      const condition = this.binary(OR);
      const keyword = this.peek();
      if (keyword?.kind !== 'name' || keyword.text !== 'else') {
        throw this.syntaxError(
          keyword,
          `expected 'else' and the 'otherwise' part of 'a if c else b', found ${this.found(keyword)}`,
        );
      }
      this.pos++;
      return ifThenElse(condition, then, this.conditional());
    });
  }

  /**
   * Binary operators of level `min` and tighter, by precedence climbing. A chain of one level is
   * read in a loop, left-associative (`a - b - c` is `(a - b) - c`), so a long sum costs no stack.
   */
  private binary(min: number): Expr {
    let left = this.unary(min);
    let comparison: Token | undefined;
    for (;;) {
      const token = this.peek();
      const op = token && (token.kind === 'op' || token.kind === 'word') ? BINARY[token.text] : undefined;
      if (!op) {
        this.refuseJuxtaposition(token);
        return left;
      }
      if (op.level < min) return left;
      if (op.level === COMPARISON) {
        if (comparison) throw this.error(token, "chained comparisons are not supported (write 'a < b and b < c')");
        comparison = token;
      }
      this.pos++;
      left = op.build(left, this.binary(op.level + 1));
    }
  }

  /** `2 i`, `(a)(b)`, `a b`: a value right after a value, which other languages read as a product. */
  private refuseJuxtaposition(token: Token | undefined): void {
    if (!token) return;
    if (token.kind === 'name' && (token.text === 'if' || token.text === 'else')) return; // `a if c else b`
    // after a number or an operator, a number is a plain syntax error (`1 2`), reported at the end
    const value =
      token.kind === 'name' ||
      token.text === '(' ||
      ((token.kind === 'number' || token.kind === 'bool') && this.lastOperand === 'other');
    if (value) throw this.error(token, `missing operator before '${token.text}'`);
  }

  /** Prefix operators, then a power. `min` is the level of the operand being read (see `not`). */
  private unary(min: number): Expr {
    const token = this.peek();
    if (token?.text === '-' || token?.text === '+' || token?.text === '~') {
      this.pos++;
      const start = this.pos;
      const operand = this.nested(() => this.unary(PREFIX));
      this.lastOperand = 'operator';
      if (token.text === '+') return operand;
      if (token.text === '~') return bitnot(operand);
      // `-1` is the literal -1 (as in Python), not the negation of 1: it prints back as `-1`.
      if (this.pos === start + 1 && this.tokens[start].kind === 'number') {
        if (operand.kind === 'int') return int(-operand.value);
        if (operand.kind === 'float') return float(-operand.value, operand.dtype);
        if (operand.kind === 'imag') return imag(-operand.value, operand.dtype);
      }
      return neg(operand);
    }
    if (token?.text === 'not') {
      this.pos++;
      const operand = this.nested(() => this.binary(Math.max(min, COMPARISON)));
      this.lastOperand = 'operator';
      return not(operand);
    }
    return this.power();
  }

  /** `base ** exponent`: right-associative, and the exponent may carry a sign (`a ** -2`). */
  private power(): Expr {
    const base = this.postfix();
    const token = this.peek();
    if (token?.text !== '**') return base;
    this.pos++;
    const exponent = this.nested(() => this.unary(PREFIX));
    this.lastOperand = 'operator';
    return binary('**', base, exponent);
  }

  /** A value, with the calls and subscripts that follow it. */
  private postfix(): Expr {
    const token = this.peek();
    if (token === undefined) throw this.syntaxError(undefined, 'unexpected end of expression');
    this.lastOperand = 'other';
    if (token.kind === 'number' || token.kind === 'bool') {
      this.pos++;
      this.lastOperand = 'literal';
      return this.literal(token);
    }
    if (token.kind === 'name') {
      if (token.text === 'else' || (token.text === 'if' && this.tokens[this.pos + 1]?.text !== '(')) {
        throw this.syntaxError(token, `expected a value, found '${token.text}'`);
      }
      this.pos++;
      const next = this.peek();
      if (token.text.includes('$') && next?.text !== '(' && next?.text !== '[') {
        throw this.error(
          token,
          `a tag ('${token.text}') is only allowed on a call of a substitution rule or on an array read, as in g$tag(x) or a$tag[i]`,
        );
      }
      const plain =
        next?.text === '(' ? this.call(token) : next?.text === '[' ? this.subscript(token) : variable(token.text);
      const member = this.peek()?.kind;
      const value = member === 'component' || member === 'field' ? this.member(plain) : plain;
      if (value.kind === 'var') return value;
      const after = this.peek();
      if (after?.text === '[')
        throw this.error(after, 'only an array, by its name, can be subscripted (write a[i, j], not a[i][j])');
      if (after?.text === '(' && value.kind === 'subscript')
        throw this.error(after, 'only a function, by its name, can be called');
      return value; // a `(` after a call is a missing operator, said by `binary`
    }
    if (token.text === '(' && !this.tupleParentheses.has(this.pos)) {
      this.pos++;
      const inner = this.bracketed(() => this.conditional());
      this.close(')');
      this.lastOperand = 'other';
      const after = this.peek();
      if (after?.text === '[')
        throw this.error(after, 'only an array, by its name, can be subscripted (write a[i, j], not a[i][j])');
      return inner;
    }
    if (token.text === '(' || token.text === '[')
      throw this.error(token, 'a tuple is only allowed as the inames of a reduction, as in sum((i, j), e)');
    if (token.text === ':') throw this.error(token, "ranges ('a:b') are not supported");
    throw this.syntaxError(token, `expected a value, found '${token.text}'`);
  }

  private literal(token: Token): Expr {
    if (token.kind === 'bool') return bool(token.text === 'true');
    // Integer and float literals are different things (an int does not widen a float32
    // computation), told apart by how they are written: `2` versus `2.0`, `2.`, `.5`, `1e3`.
    const [, digits, suffix] = /^(.*?)(jf|jd|j|f|d)?$/.exec(token.text)!;
    const value = Number(digits);
    if (suffix === undefined && /^\d+$/.test(digits)) {
      if (!Number.isSafeInteger(value)) throw this.error(token, `integer literal ${token.text} is too large`);
      return int(value);
    }
    const single = suffix === 'f' || suffix === 'jf';
    if (!Number.isFinite(value) || (single && !Number.isFinite(Math.fround(value)))) {
      throw this.error(token, `float literal ${token.text} is out of range`);
    }
    switch (suffix) {
      case 'f':
        return float(value, 'float32');
      case 'd':
        return float(value, 'float64');
      case 'j':
        return imag(value);
      case 'jf':
        return imag(value, 'complex64');
      case 'jd':
        return imag(value, 'complex128');
      default:
        return float(value);
    }
  }

  /**
   * What follows an element: `a[i].f.g[2]`, a path into a struct (a field token, or any
   * `.name` after an element of a struct array), or `a[i].y`, a vector component.
   */
  private member(value: Expr): Expr {
    const token = this.peek()!;
    const struct =
      value.kind === 'subscript' && !value.linear && (token.kind === 'field' || this.options.structs?.has(value.array));
    if (!struct) {
      if (token.kind === 'field')
        throw this.error(
          token,
          `unexpected '${token.text}' (a vector component is one of .x .y .z .w .s0 ... .sf; a struct field follows an element of a struct array, as in a[i]${token.text})`,
        );
      const lane = this.component(value, this.next());
      const after = this.peek();
      if (after?.kind === 'field' || after?.kind === 'component')
        throw this.error(after, `'${after.text}' follows a vector component`);
      return lane;
    }
    const path: (string | number)[] = [];
    for (;;) {
      const next = this.peek();
      if (next?.kind === 'field' || next?.kind === 'component') {
        this.pos++;
        path.push(next.text.slice(1));
      } else if (next?.text === '[' && path.length) {
        // an element of an array field: a constant index, so that the field's place is known
        this.pos++;
        const index = this.peek();
        if (index?.kind !== 'number' || !/^\d+$/.test(index.text))
          throw this.error(index ?? next, 'an array field is indexed by an integer constant, as in a[i].v[2]');
        this.pos++;
        this.close(']');
        path.push(Number(index.text));
      } else break;
    }
    const s = value as Extract<Expr, { kind: 'subscript' }>;
    return subscript(s.array, s.indices, false, s.tag, { path });
  }

  /**
   * `a[i].y`, `v.s3`: one component of a vector, which is one lane of the array's last axis,
   * its `vec` axis (`a[i, 1]`, `v[3]`); loopy's vector types read the same way in OpenCL C.
   */
  private component(value: Expr, token: Token): Expr {
    const name = token.text.slice(1);
    const lane = 'xyzw'.includes(name) ? 'xyzw'.indexOf(name) : Number.parseInt(name.slice(1), 16);
    if (value.kind === 'var') return subscript(value.name, [int(lane)]);
    if (value.kind === 'subscript' && !value.linear)
      return subscript(value.array, [...value.indices, int(lane)], false, value.tag);
    throw this.error(
      token,
      `a component ('${token.text}') follows an array element or a vector name, not ${value.kind === 'call' ? 'a call' : 'a linear subscript'}`,
    );
  }

  /** `a[i, j]`, `a[[k]]`, and loopy's tagged read `a$tag[i, j]` (the tag names this use of `a`: addPrefetch). */
  private subscript(token: Token): Expr {
    const [array, tag] = token.text.split('$') as [string, string | undefined];
    this.pos++; // `[`
    // `a[[k]]`: loopy's linear subscript, one index into the storage (a list is no index here)
    const open = this.peek();
    if (open?.text === '[') {
      this.pos++;
      const index = this.bracketed(() => this.conditional());
      this.close(']');
      this.close(']');
      return subscript(array, [index], true, tag);
    }
    const indices = this.bracketed(() => this.list(']', () => this.conditional()));
    this.close(']');
    return subscript(array, indices, false, tag); // `a[]`: the one element of a scalar array
  }

  private call(nameToken: Token): Expr {
    this.pos++; // `(`
    const dollar = nameToken.text.indexOf('$');
    if (dollar >= 0) {
      // `g$tag(x)`: a call of rule `g`, tagged (loopy's TaggedVariable); never a reduction or a built-in
      const args = this.bracketed(() => this.list(')', () => this.conditional()));
      this.close(')');
      return call(nameToken.text.slice(0, dollar), args, nameToken.text.slice(dollar + 1));
    }
    const name = nameToken.text;
    // where a tuple of inames may stand: first in `sum((i, j), e)`, second in `reduce(op, (i, j), e)`
    const inamesAt = name === 'reduce' || name === 'simul_reduce' ? 1 : isReductionName(name) ? 0 : -1;
    const args = this.bracketed(() => this.list(')', (index) => this.argument(index === inamesAt)));
    this.close(')');
    return this.meaning(nameToken, args);
  }

  /** One argument; a tuple only where a reduction's inames may stand (`tupleAllowed`). */
  private argument(tupleAllowed: boolean): Argument {
    const first = this.peek()!;
    if (first?.text === '[' || (first?.text === '(' && this.tupleParentheses.has(this.pos))) {
      if (!tupleAllowed)
        throw this.error(first, 'a tuple is only allowed as the inames of a reduction, as in sum((i, j), e)');
      return { first, tuple: this.tuple() };
    }
    const start = this.pos;
    const value = this.conditional();
    return { first, value, bareName: this.pos === start + 1 && first.kind === 'name' ? first : undefined };
  }

  /**
   * An atomic fetch stands only as the whole right-hand side of an assignment (`atomicFetch`):
   * it returns the element's old value to the one work-item that updated it, which a larger
   * expression, a condition or an index would use, or drop, in ways no target can spell as one
   * indivisible step.
   */
  checkAtomicFetches(whole: Expr): void {
    for (const { token, call: fetch } of this.atomicFetches) {
      if (this.options.atomicFetch && fetch === whole) continue;
      const where = this.options.atomicFetch
        ? 'it cannot be part of a larger expression'
        : 'it cannot stand in a condition, a substitution rule or an index';
      throw this.error(
        token,
        `${token.text}() updates an element atomically and returns its old value: it must be the whole right-hand side of an assignment to a private temporary (as in '<int32> old = ${token.text}(counter[0], ...)'); ${where}`,
      );
    }
  }

  /** `(i, j)` or `[i, j]`: names only. */
  private tuple(): Token[] {
    const closer = this.next().text === '[' ? ']' : ')';
    const names = this.list(closer, () => {
      const name = this.peek();
      const after = this.tokens[this.pos + 1];
      if (name?.kind !== 'name' || (after?.text !== ',' && after?.text !== closer))
        throw this.error(name, 'expected an iname');
      this.pos++;
      return name;
    });
    this.close(closer);
    return names;
  }

  /** What a call means: a reduction, a conditional, a cast, a known function, or a call of a rule. */
  private meaning(nameToken: Token, args: readonly Argument[]): Expr {
    const name = nameToken.text;
    const arityError = (expected: string) =>
      this.error(nameToken, `${name}() takes ${expected}, got ${args.length} argument${args.length === 1 ? '' : 's'}`);
    const inamesOf = (a: Argument) => (a.tuple ? a.tuple : a.bareName ? [a.bareName] : undefined);

    if (name === 'reduce' || name === 'simul_reduce') return this.generalReduction(nameToken, args);
    if ((name === 'max' || name === 'min') && args.length === 2 && inamesOf(args[0]) && args[1].value) {
      const body = args[1].value;
      if (args[0].tuple || this.isReduction(args[0].bareName!.text, body)) {
        return reduce(name as ReductionOp, this.checkedInames(inamesOf(args[0])!, args[0].first), body);
      }
    }
    const op = name === 'max' || name === 'min' ? undefined : findReductionOperation(name);
    if (op) {
      const values = `${op.arity === 1 ? 'an expression' : `${op.arity} expressions`}`;
      if (args.length !== op.arity + 1 && !this.isNestedTuple(name, args.slice(1)))
        throw arityError(`an iname (or a tuple of inames) and ${values}`);
      const inames = inamesOf(args[0]);
      if (!inames)
        throw this.error(args[0].first, `expected the iname (or a tuple of inames) that ${name}() reduces over`);
      return reduce(name, this.checkedInames(inames, args[0].first), this.values(args.slice(1)));
    }
    const tuple = args.find((a) => a.tuple);
    if (tuple)
      throw this.error(tuple.first, 'a tuple is only allowed as the inames of a reduction, as in sum((i, j), e)');

    const values = args.map((a) => a.value!);
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
    if (isSubgroupFunction(name)) {
      const { arity } = SUBGROUP_FUNCTIONS[name];
      if (values.length !== arity) throw arityError(`${arity} argument${arity === 1 ? '' : 's'}`);
    }
    if (isAtomicFunction(name)) {
      const { arity } = ATOMIC_FUNCTIONS[name];
      if (values.length !== arity) throw arityError(`${arity} arguments`);
      if (values[0].kind !== 'subscript')
        throw this.error(
          args[0].first,
          `${name}() takes first the array element it updates atomically (as in ${name}(counter[0], ...)), not ${describeValue(values[0])}`,
        );
      const fetch = call(name, values);
      this.atomicFetches.push({ token: nameToken, call: fetch });
      return fetch;
    }
    // Any other name is a call too: it may be a substitution rule, which the kernel checks.
    return call(name, values);
  }

  /**
   * `reduce(op, inames, e...)` and `simul_reduce(...)` (loopy's spellings of any reduction): the
   * operation by name (`sum`, `argmax`, `segmented(sum)`, a registered one), then its inames as
   * a name, `(i, j)` or `[i, j]` (`[]`: none), then its values.
   */
  private generalReduction(nameToken: Token, args: readonly Argument[]): Expr {
    const name = nameToken.text;
    if (args.length < 3)
      throw this.error(
        nameToken,
        `${name}() takes an operation, its inames and the values it reduces, got ${args.length} argument${args.length === 1 ? '' : 's'}`,
      );
    const opName = operationName(args[0].value);
    if (opName === undefined)
      throw this.error(
        args[0].first,
        `expected the name of a reduction operation (sum, product, max, min, any, all, argmax, argmin, segmented(sum), ...)`,
      );
    const op = findReductionOperation(opName);
    if (!op)
      throw this.error(
        args[0].first,
        `unknown reduction '${opName}' (known: ${reductionNames().join(', ')}; add one with registerReduction)`,
      );
    if (args.length !== op.arity + 2 && !this.isNestedTuple(opName, args.slice(2)))
      throw this.error(
        nameToken,
        `${name}(${opName}, ...) takes its inames and ${op.arity} value${op.arity === 1 ? '' : 's'}, got ${args.length - 1} argument${args.length === 2 ? '' : 's'} after the operation`,
      );
    const inames = args[1].tuple ?? (args[1].bareName ? [args[1].bareName] : undefined);
    if (!inames)
      throw this.error(args[1].first, `expected the iname (or a tuple of inames) that ${name}() reduces over`);
    return reduce(
      opName,
      this.checkedInames(inames, args[1].first, true),
      this.values(args.slice(2)),
      name === 'simul_reduce',
    );
  }

  /**
   * Whether the values of a reduction of several values are one reduction of the same
   * operation, whose results are the values (`reduce(argmax, i, reduce(argmax, j, a[i, j], j))`:
   * an argmax over i of the argmax over j), as type inference and realization read such a nest.
   */
  private isNestedTuple(opName: string, values: readonly Argument[]): boolean {
    const [only] = values;
    return (
      values.length === 1 &&
      only.value?.kind === 'reduce' &&
      only.value.op === opName &&
      findReductionOperation(opName)!.arity > 1
    );
  }

  /** The values of arguments (tuples are refused). */
  private values(args: readonly Argument[]): Expr[] {
    const tuple = args.find((a) => a.tuple);
    if (tuple)
      throw this.error(tuple.first, 'a tuple is only allowed as the inames of a reduction, as in sum((i, j), e)');
    return args.map((a) => a.value!);
  }

  /**
   * `max(k, e)` is a reduction, not the function of two values, when `k` is an iname: the
   * kernel's inames when it told us, otherwise when `k` is used in `e` (the function's first
   * argument would hardly be a bare name that the second one also uses).
   */
  private isReduction(name: string, body: Expr): boolean {
    return this.options.inames ? this.options.inames.has(name) : freeVariables(body).has(name);
  }

  /** `none`: whether no inames at all is allowed (`reduce(op, [], e)`: no reduction, the values as they are). */
  private checkedInames(names: readonly Token[], first: Token, none = false): string[] {
    if (names.length === 0 && !none) throw this.error(first, 'a reduction needs at least one iname');
    const seen = new Set<string>();
    for (const token of names) {
      if (seen.has(token.text)) throw this.error(token, `iname '${token.text}' is listed twice`);
      seen.add(token.text);
    }
    return names.map((t) => t.text);
  }

  /** Comma-separated items up to (not including) `closer`; none when the closer comes first. */
  private list<T>(closer: string, item: (index: number) => T): T[] {
    const items: T[] = [];
    if (this.peek()?.text === closer) return items;
    for (;;) {
      items.push(item(items.length));
      if (this.peek()?.text !== ',') return items;
      this.pos++;
    }
  }

  /** Inside brackets a `:` is no longer the end of a `then` part, and a level of nesting is open. */
  private bracketed<T>(read: () => T): T {
    const outer = this.inThenBranch;
    this.inThenBranch = false;
    try {
      return this.nested(read);
    } finally {
      this.inThenBranch = outer;
    }
  }

  /** One more level of nesting, refused beyond the bound (before the stack could overflow). */
  private nested<T>(read: () => T): T {
    if (++this.depth > MAX_EXPRESSION_DEPTH) {
      throw errorAt(this.slice, 0, this.textLength(), `expression nested deeper than ${MAX_EXPRESSION_DEPTH} levels`);
    }
    try {
      return read();
    } finally {
      this.depth--;
    }
  }

  private close(closer: string): void {
    const token = this.peek();
    if (token?.text !== closer) throw this.syntaxError(token, `expected '${closer}', found ${this.found(token)}`);
    this.pos++;
  }

  expectEnd(): void {
    const token = this.peek();
    if (token) throw this.syntaxError(token, `unexpected '${token.text}'`);
  }

  // The token cursor and errors.

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private next(): Token {
    return this.tokens[this.pos++];
  }

  private found(token: Token | undefined): string {
    return token ? `'${token.text}'` : 'the end';
  }

  private textLength(): number {
    return this.tokens.length > 0 ? this.tokens[this.tokens.length - 1].end : 0;
  }

  /** A syntax error at `token`, or just past the end of the text when there is none. */
  private syntaxError(token: Token | undefined, detail: string): LoomError {
    if (!token) detail = detail.startsWith('expected a value') ? 'unexpected end of expression' : detail;
    return this.error(token, `syntax error: ${detail}`);
  }

  private error(token: Token | undefined, message: string): LoomError {
    const end = this.textLength();
    return token ? errorAt(this.slice, token.start, token.end, message) : errorAt(this.slice, end, end + 1, message);
  }
}

/** `sum` or `segmented(sum)` as the first argument of `reduce(...)`: the operation's name. */
function operationName(e: Expr | undefined): string | undefined {
  if (e?.kind === 'var') return e.name;
  if (e?.kind === 'call' && e.args.length === 1 && e.args[0].kind === 'var') return `${e.fn}(${e.args[0].name})`;
  return undefined;
}

/**
 * Indices of the parentheses of tuples: `(i, j)` as an argument, the only place a tuple means
 * something (the inames of a reduction, `sum((i, j), e)`); elsewhere a comma inside
 * parentheses is a syntax error.
 */
function findTupleParentheses(tokens: readonly Token[]): Set<number> {
  const tuples = new Set<number>();
  const open: { index: number; hasComma: boolean }[] = [];
  tokens.forEach((t, index) => {
    if (t.text === '(' || t.text === '[') open.push({ index, hasComma: false });
    else if (t.text === ',' && open.length > 0) open[open.length - 1].hasComma = true;
    else if (t.text === ')' || t.text === ']') {
      const opener = open.pop();
      if (opener === undefined || tokens[opener.index].text !== '(' || !opener.hasComma) return;
      const before = tokens[opener.index - 1];
      if (before !== undefined && (before.text === '(' || before.text === ',')) {
        tuples.add(opener.index);
        tuples.add(index);
      }
    }
  });
  return tuples;
}

/** How an atomic fetch's first argument is named in its error: what it is instead of an element. */
function describeValue(e: Expr): string {
  switch (e.kind) {
    case 'var':
      return `the name '${e.name}' (an element is written with its index, as in ${e.name}[0])`;
    case 'int':
    case 'float':
    case 'imag':
    case 'bool':
      return 'a literal';
    default:
      return 'a computed value';
  }
}
