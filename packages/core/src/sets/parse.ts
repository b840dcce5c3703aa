/**
 * The ISL set syntax loopy uses for loop domains, read by a tokenizer and a recursive
 * descent parser:
 *
 *   set        := [ '[' names ']' '->' ] '{' ( '[' names ']' [ ':' [ formula ] ] | ':' [ formula ] ) '}'
 *
 * (no conditions: every point; `{:}`, `[] -> {[]: }`: the set of one point, a kernel without loops)
 *   formula    := atom { 'and' atom }
 *   atom       := comparison | '(' formula ')' | exists | 'true' | 'false'
 *   exists     := 'exists' names ':' formula  |  'exists' '(' names ':' formula ')'
 *   comparison := exprs { ('<' | '<=' | '>' | '>=' | '=') exprs }     (a chain: 0 <= i < n)
 *   exprs      := expr { ',' expr }                                   (0 <= i, j < n)
 *   expr       := term { ('+' | '-') term }
 *   term       := factor { ('*' | '/' | 'mod') factor }
 *   factor     := '-' factor | INT [ IDENT | '(' expr ')' ] | IDENT | '(' expr ')'
 *               | ('floor' | 'ceil') '(' expr ')'
 *
 * A division by a constant leaves a fraction, as in isl: a comparison holds over the rationals
 * (`0 <= i < n/16` is `16*i < n`), and `floor`/`ceil` bring a fraction back to the integers; `mod`
 * takes integers only. Each rejected construct (`or`, `not`, `==`, `!=`, a product of two
 * variables, a fraction taken `mod`) gets its own message, pointing at the offending text.
 */
import { Linear, gcd } from '../linear.ts';
import { CoefficientRangeError, type SourceSpan } from '../errors.ts';
import { type Constraint, FALSE, eq, ge } from './constraint.ts';
import { type Token, fail, matchBrackets, tokenize } from './lexer.ts';
import { freshName } from './names.ts';
import { type QuasiAffine, divided, isConstant, isInteger, negated, scaled, sum, value } from './quasi-affine.ts';

export interface ParsedSet {
  readonly params: readonly string[];
  readonly dims: readonly string[];
  readonly existentials: readonly string[];
  readonly constraints: readonly Constraint[];
}

/** A whole set: `[n] -> { [i] : 0 <= i < n }`. */
export function parseSet(text: string): ParsedSet {
  const p = new Parser(text, []);
  p.set();
  return p.result();
}

/** A bare condition, every identifier a parameter: `n >= 1 and n mod 16 = 0`. */
export function parseConditions(text: string, params: readonly string[] = []): ParsedSet {
  const p = new Parser(text, params);
  if (!p.at('eof')) p.formula();
  p.expectEnd("expected 'and' between two conditions");
  return p.result();
}

const COMPARISONS = new Set(['<', '<=', '>', '>=', '=']);
/** Tokens that only occur in conditions, never in arithmetic: they mark a parenthesized condition. */
const CONDITION_TOKENS = new Set([...COMPARISONS, '==', '!=', 'and', 'or', 'not', 'exists', 'true', 'false']);

class Parser {
  private readonly tokens: Token[];
  private readonly brackets: Map<number, number>;
  private pos = 0;
  private readonly params: string[];
  private readonly dims: string[] = [];
  private readonly existentials: string[] = [];
  private readonly constraints: Constraint[] = [];
  /** Innermost last: user name -> internal name of the existential. */
  private readonly scopes: Map<string, string>[] = [];

  constructor(
    private readonly text: string,
    declaredParams: readonly string[],
  ) {
    this.tokens = tokenize(text);
    this.brackets = matchBrackets(text, this.tokens);
    this.params = [...declaredParams];
  }

  result(): ParsedSet {
    return { params: this.params, dims: this.dims, existentials: this.existentials, constraints: this.constraints };
  }

  // ---- sets --------------------------------------------------------------------------

  set(): void {
    if (this.at('[')) {
      const names = this.names('a parameter name');
      for (const n of names) {
        if (this.params.includes(n.text)) this.failAt(n, `parameter '${n.text}' is listed twice`);
        this.params.push(n.text);
      }
      this.expect('->', `expected '->' after the parameter list (as in '[n] -> { [i] : 0 <= i < n }')`);
    }
    this.expect('{', `expected '{' to start the set (as in '{ [i] : 0 <= i < n }')`);
    if (this.at('[')) {
      for (const n of this.names('a set variable name')) {
        if (this.dims.includes(n.text)) this.failAt(n, `set variable '${n.text}' is listed twice`);
        if (this.params.includes(n.text))
          this.failAt(n, `'${n.text}' is declared both as a parameter and as a set variable`);
        this.dims.push(n.text);
      }
      if (this.at('}')) return this.closeSet();
      this.expect(':', `expected ':' between the set variables and the conditions (as in '{ [i] : 0 <= i < n }')`);
    } else {
      // `{ : n >= 1 }`, a set without variables, is the only other shape.
      this.expect(':', `expected '[' to start the list of set variables (as in '{ [i] : 0 <= i < n }')`);
    }
    if (!this.at('}')) this.formula();
    this.closeSet();
  }

  private closeSet(): void {
    this.expect('}', `expected 'and' between two conditions, or '}' to end the set`);
    this.expectEnd('unexpected text after the end of the set');
  }

  /** `[a, b, c]` (possibly empty): identifier tokens. */
  private names(what: string): Token[] {
    this.expect('[', `expected '['`);
    const out: Token[] = [];
    while (!this.at(']')) {
      if (out.length > 0) this.expect(',', `expected ',' or ']'`);
      const t = this.next();
      if (t.kind !== 'ident') this.failAt(t, `expected ${what}, found ${describe(t)}`);
      out.push(t);
    }
    this.next();
    return out;
  }

  // ---- conditions --------------------------------------------------------------------

  formula(): void {
    this.atom();
    while (this.atKeyword('and')) {
      this.next();
      this.atom();
    }
    if (this.atKeyword('or')) {
      this.failAt(this.peek(), "disjunction ('or') is not supported: loop domains must be convex");
    }
  }

  private atom(): void {
    const t = this.peek();
    if (t.kind === 'keyword') {
      if (t.text === 'not') this.failAt(t, "negation ('not') is not supported: loop domains must be convex");
      if (t.text === 'exists') return this.exists();
      if (t.text === 'true' || t.text === 'false') {
        this.next();
        if (t.text === 'false') this.constraints.push(FALSE);
        return;
      }
    }
    if (this.at('(') && this.isConditionGroup(this.pos)) {
      this.next();
      this.formula();
      this.expect(')', `expected 'and' or ')'`);
      return;
    }
    this.comparison();
  }

  /** Whether the parenthesized group opening at token `open` holds a condition (not arithmetic). */
  private isConditionGroup(open: number): boolean {
    const close = this.brackets.get(open)!;
    for (let k = open + 1; k < close; k++) {
      const t = this.tokens[k]!;
      if (CONDITION_TOKENS.has(t.text)) return true;
      if (this.brackets.has(k)) {
        // A group that is the whole content decides: ((i = 1)) is a condition.
        if (k === open + 1 && this.brackets.get(k) === close - 1) return this.isConditionGroup(k);
        k = this.brackets.get(k)!;
      }
    }
    return false;
  }

  /** `exists l, m: formula` or `exists (l, m: formula)`. */
  private exists(): void {
    this.next();
    const parenthesized = this.at('(');
    if (parenthesized) this.next();
    const scope = new Map<string, string>();
    for (;;) {
      const t = this.next();
      if (t.kind !== 'ident') this.failAt(t, `expected the name of an existential variable, found ${describe(t)}`);
      if (this.dims.includes(t.text)) {
        this.failAt(t, `'${t.text}' is already a set variable; an existential variable needs a name of its own`);
      }
      const internal = freshName(t.text);
      scope.set(t.text, internal);
      this.existentials.push(internal);
      if (!this.at(',')) break;
      this.next();
    }
    this.expect(':', `expected ':' after the existential variables (as in 'exists l: i = 3*l')`);
    this.scopes.push(scope);
    this.formula();
    this.scopes.pop();
    if (parenthesized) this.expect(')', `expected 'and' or ')'`);
  }

  /** A chain of comparisons between lists of expressions: `0 <= i, j < n`. */
  private comparison(): void {
    const lists: QuasiAffine[][] = [this.expressions()];
    const ops: string[] = [];
    for (;;) {
      const t = this.peek();
      if (t.text === '==')
        this.failAt(t, `'==' is not ISL syntax: equality is written with a single '=' (as in 'i = 3*j')`);
      if (t.text === '!=') this.failAt(t, "'!=' (not equal) is not supported: it would make the domain non-convex");
      if (t.kind !== 'punct' || !COMPARISONS.has(t.text)) break;
      ops.push(this.next().text);
      lists.push(this.expressions());
    }
    if (ops.length === 0) {
      const first = lists[0]![0]!;
      const last = lists[0]![lists[0]!.length - 1]!;
      this.fail(
        first.start,
        last.end,
        `expected a comparison (<, <=, >, >=, =) after '${this.text.slice(first.start, last.end)}'`,
      );
    }
    ops.forEach((op, k) => {
      for (const left of lists[k]!) for (const right of lists[k + 1]!) this.compare(left, op, right);
    });
  }

  /**
   * A comparison of two values, either of which may be a fraction (`i < n/16`): as in isl, it
   * holds over the rationals, so both sides are multiplied by their denominators' least common
   * multiple (`16*i < n`), which keeps the order and leaves integers on both sides.
   */
  private compare(left: QuasiAffine, op: string, right: QuasiAffine): void {
    this.exactly(left.start, right.end, () => this.constrain(left, op, right));
  }

  private constrain(left: QuasiAffine, op: string, right: QuasiAffine): void {
    const common = (left.den / gcd(left.den, right.den)) * right.den;
    const diff = right.lin.scale(common / right.den).sub(left.lin.scale(common / left.den)); // right - left
    switch (op) {
      case '<':
        return void this.constraints.push(ge(diff.sub(1)));
      case '<=':
        return void this.constraints.push(ge(diff));
      case '>':
        return void this.constraints.push(ge(diff.negate().sub(1)));
      case '>=':
        return void this.constraints.push(ge(diff.negate()));
      default:
        return void this.constraints.push(eq(diff));
    }
  }

  private requireInteger(v: QuasiAffine): void {
    if (isInteger(v)) return;
    const d = v.division!;
    this.fail(
      d.start,
      d.end,
      `division is only allowed inside floor(...) or ceil(...): '${this.text.slice(d.start, d.end)}' need not be an integer`,
    );
  }

  // ---- arithmetic --------------------------------------------------------------------

  private expressions(): QuasiAffine[] {
    const out = [this.expr()];
    while (this.at(',')) {
      this.next();
      out.push(this.expr());
    }
    return out;
  }

  private expr(): QuasiAffine {
    let left = this.term();
    while (this.at('+') || this.at('-')) {
      const sign = this.next().text === '+' ? 1 : -1;
      const right = this.term();
      left = this.exactly(left.start, right.end, () => sum(left, right, sign));
    }
    return left;
  }

  private term(): QuasiAffine {
    let left = this.factor();
    for (;;) {
      const a = left;
      if (this.at('*')) {
        this.next();
        left = this.product(a, this.factor());
      } else if (this.at('/')) {
        this.next();
        const b = this.factor();
        left = this.exactly(a.start, b.end, () => this.quotient(a, b));
      } else if (this.atKeyword('mod')) {
        this.next();
        const m = this.factor();
        left = this.exactly(a.start, m.end, () => this.modulo(a, m));
      } else {
        return left;
      }
    }
  }

  private factor(): QuasiAffine {
    const t = this.peek();
    if (t.text === '-' || t.text === '+') {
      this.next();
      const operand = this.factor();
      return t.text === '-'
        ? this.exactly(t.start, operand.end, () => negated(operand, t.start))
        : { ...operand, start: t.start };
    }
    if (t.kind === 'int') {
      this.next();
      const written = t.exponent;
      if (written?.name !== undefined && this.inScope(written.name)) {
        // ISL's own juxtaposition: `3e0` is 3 times the name `e0` declared here
        const split = t.start + written.coefficient!.length;
        const coefficient = value(Linear.constant(Number(written.coefficient)), t.start, split);
        return this.product(coefficient, value(Linear.variable(this.resolve(written.name)), split, t.end));
      }
      if (written?.error !== undefined) this.failAt(t, written.error);
      const n = Number(written?.value ?? t.text);
      if (!Number.isSafeInteger(n)) this.failAt(t, `integer constant ${t.text} is too large`);
      const constant = value(Linear.constant(n), t.start, t.end);
      // `3l`, `2(i + 1)`: a constant written right against what it multiplies.
      const after = this.peek();
      if (after.start === t.end && (after.kind === 'ident' || after.text === '('))
        return this.product(constant, this.factor());
      return constant;
    }
    if (t.kind === 'ident') {
      this.next();
      return value(Linear.variable(this.resolve(t.text)), t.start, t.end);
    }
    if (t.text === 'floor' || t.text === 'ceil') {
      this.next();
      this.expect('(', `expected '(' after '${t.text}'`);
      const inner = this.expr();
      const close = this.expect(')', `expected ')' to close '${t.text}('`);
      const rounded = this.exactly(t.start, close.end, () =>
        t.text === 'floor' ? this.floor(inner) : negated(this.floor(negated(inner, inner.start)), inner.start),
      );
      return { ...rounded, start: t.start, end: close.end };
    }
    if (t.text === '(') {
      this.next();
      const inner = this.expr();
      const close = this.expect(')', `expected ')'`);
      return { ...inner, start: t.start, end: close.end };
    }
    const found = t.kind === 'eof' ? 'the end of the text' : `'${t.text}'`;
    return this.failAt(t, `expected an expression, found ${found}`);
  }

  private product(a: QuasiAffine, b: QuasiAffine): QuasiAffine {
    if (isConstant(a)) return this.exactly(a.start, b.end, () => scaled(b, a, a.start, b.end));
    if (isConstant(b)) return this.exactly(a.start, b.end, () => scaled(a, b, a.start, b.end));
    const source = this.text.slice(a.start, b.end);
    return this.fail(a.start, b.end, `multiplication of non-constants (${source}) is not affine`);
  }

  private quotient(a: QuasiAffine, b: QuasiAffine): QuasiAffine {
    const source = this.text.slice(a.start, b.end);
    if (!isConstant(b) || !isInteger(b))
      this.fail(a.start, b.end, `division by a non-constant (${source}) is not affine`);
    if (b.lin.constant === 0) this.fail(b.start, b.end, `division by zero in '${source}'`);
    return divided(a, b.lin.constant, this.span(a.start, b.end));
  }

  /** `a mod m` = a - m·floor(a/m), for a positive integer constant m. */
  private modulo(a: QuasiAffine, m: QuasiAffine): QuasiAffine {
    if (!isConstant(m) || !isInteger(m) || m.lin.constant <= 0) {
      this.fail(
        m.start,
        m.end,
        `the modulus in 'mod' must be a positive integer constant, found '${this.text.slice(m.start, m.end)}'`,
      );
    }
    this.requireInteger(a);
    const k = m.lin.constant;
    const quotient = this.floor(divided(a, k, this.span(a.start, m.end)));
    return { ...sum(a, scaled(quotient, m, m.start, m.end), -1), start: a.start, end: m.end };
  }

  /** floor(lin/den) as a new existential q with den·q <= lin <= den·q + den - 1. */
  private floor(v: QuasiAffine): QuasiAffine {
    if (isInteger(v)) return v;
    const q = freshName('q');
    this.existentials.push(q);
    const rest = v.lin.sub(Linear.variable(q, v.den)); // lin - den·q, in [0, den - 1]
    this.constraints.push(ge(rest), ge(rest.negate().add(v.den - 1)));
    return value(Linear.variable(q), v.start, v.end);
  }

  /** Whether `name` is declared here or already used (an existential, a set variable, a parameter). */
  private inScope(name: string): boolean {
    return this.scopes.some((scope) => scope.has(name)) || this.dims.includes(name) || this.params.includes(name);
  }

  private resolve(name: string): string {
    for (let k = this.scopes.length - 1; k >= 0; k--) {
      const internal = this.scopes[k]!.get(name);
      if (internal) return internal;
    }
    if (!this.dims.includes(name) && !this.params.includes(name)) this.params.push(name);
    return name;
  }

  // ---- tokens ------------------------------------------------------------------------

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    const t = this.tokens[this.pos]!;
    if (t.kind !== 'eof') this.pos++;
    return t;
  }

  at(text: string): boolean {
    const t = this.peek();
    return text === 'eof' ? t.kind === 'eof' : t.kind === 'punct' && t.text === text;
  }

  private atKeyword(word: string): boolean {
    const t = this.peek();
    return t.kind === 'keyword' && t.text === word;
  }

  private expect(text: string, message: string): Token {
    if (!this.at(text)) this.failAt(this.peek(), `${message}, found ${describe(this.peek())}`);
    return this.next();
  }

  expectEnd(message: string): void {
    if (!this.at('eof')) this.failAt(this.peek(), `${message}: '${this.peek().text}'`);
  }

  /**
   * `compute`, with an overflow of the safe integers (`9007199254740991*i + 9007199254740991*i`)
   * reported under the text from `start` to `end`, where it happened.
   */
  private exactly<T>(start: number, end: number, compute: () => T): T {
    try {
      return compute();
    } catch (err) {
      if (!(err instanceof CoefficientRangeError)) throw err;
      return this.fail(
        start,
        end,
        `integer arithmetic leaves the safe range (beyond ±(2^53 - 1)) in '${this.text.slice(start, end)}'`,
      );
    }
  }

  private span(start: number, end: number): SourceSpan {
    return { text: this.text, start, end };
  }

  private fail(start: number, end: number, message: string): never {
    return fail(this.text, start, end, message);
  }

  private failAt(t: Token, message: string): never {
    return fail(this.text, t.start, Math.max(t.end, t.start + 1), message);
  }
}

function describe(t: Token): string {
  return t.kind === 'eof' ? 'the end of the text' : `'${t.text}'`;
}
