/**
 * loopy's match language: which instructions a transformation's `within` picks.
 *
 *   id:GLOB        the instruction's id
 *   tag:GLOB       one of its tags
 *   writes:GLOB    the variable it writes
 *   reads:GLOB     a variable it reads (through the substitution rules it calls, too)
 *   iname:GLOB     a loop it runs in
 *   in_kernel:GLOB the kernel's name
 *   and, or, not, ( ... )      `not` binds tightest, then `and`, then `or`
 *
 * GLOB is fnmatch's: `*`, `?`, `[seq]`. Two conveniences beyond loopy: a bare GLOB means
 * `id:GLOB` (Loom's `within` took instruction ids before it took match expressions), and a
 * list of expressions matches what any of them matches. `undefined` matches everything.
 *
 * A text that is not an expression is a LoomError with a caret under the offending token.
 * Where rule invocations are picked (expandSubst), `within` may also be a stack match
 * (`... > id:h and tag:two > g`): stack-match.ts.
 */
import { LoomError } from '../errors.ts';
import { namesRead, namesWritten } from '../kernel/accesses.ts';
import { wildcardToRegExp } from '../kernel/dependencies.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { walk } from '../expr/index.ts';

/** What `within` accepts: a match expression, a list of them (any matches), or nothing (all match). */
export type Within = string | readonly string[] | undefined;

const TERMINALS = ['id', 'tag', 'writes', 'reads', 'iname', 'in_kernel'] as const;
type TerminalKind = (typeof TERMINALS)[number];

/** Which instructions a transformation applies to (loopy's match expressions: `id:`, `tag:`, `writes:`, `and`, `or`...). */
export type MatchExpr =
  | { readonly kind: 'all' }
  | { readonly kind: 'and' | 'or'; readonly children: readonly MatchExpr[] }
  | { readonly kind: 'not'; readonly child: MatchExpr }
  | { readonly kind: TerminalKind; readonly glob: string; readonly pattern: RegExp };

interface Token {
  readonly kind: 'and' | 'or' | 'not' | '(' | ')' | 'terminal';
  readonly start: number;
  readonly end: number;
  readonly terminal?: TerminalKind;
  readonly glob?: string;
}

/** `what`: who is asking, for messages (`splitIname: option within`). */
export function parseMatch(within: Within, what = 'within'): MatchExpr {
  if (within === undefined) return { kind: 'all' };
  if (typeof within !== 'string') {
    if (!Array.isArray(within))
      throw new LoomError(`${what}: expected a match expression or a list of them, got ${typeof within}`);
    if (within.length === 0)
      throw new LoomError(`${what}: an empty list matches nothing; leave the option out to match every instruction`);
    const children = within.map((w) => parseMatch(String(w), what));
    return children.length === 1 ? children[0] : { kind: 'or', children };
  }
  const tokens = tokenize(within, what);
  if (tokens.length === 0)
    throw new LoomError(`${what}: the match expression is empty`, { text: within, start: 0, end: 1 });
  const parser = new MatchParser(within, tokens, what);
  const result = parser.expression(0);
  parser.expectEnd();
  return result;
}

const WORD = /[\w?*[\]!]+/y;

function tokenize(text: string, what: string): Token[] {
  const tokens: Token[] = [];
  let k = 0;
  while (k < text.length) {
    const ch = text[k];
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      k++;
      continue;
    }
    if (ch === '(' || ch === ')') {
      tokens.push({ kind: ch, start: k, end: k + 1 });
      k++;
      continue;
    }
    WORD.lastIndex = k;
    const word = WORD.exec(text);
    if (!word)
      throw new LoomError(`${what}: unexpected character '${ch}' in the match expression`, {
        text,
        start: k,
        end: k + 1,
      });
    const end = k + word[0].length;
    if (text[end] === ':') {
      const prefix = word[0];
      if (!(TERMINALS as readonly string[]).includes(prefix)) {
        throw new LoomError(
          `${what}: unknown match kind '${prefix}:' (known: ${TERMINALS.map((t) => `${t}:`).join(', ')})`,
          { text, start: k, end },
        );
      }
      WORD.lastIndex = end + 1;
      const glob = WORD.exec(text);
      if (!glob)
        throw new LoomError(`${what}: '${prefix}:' needs a name or pattern after it`, {
          text,
          start: end + 1,
          end: end + 2,
        });
      tokens.push({
        kind: 'terminal',
        terminal: prefix as TerminalKind,
        glob: glob[0],
        start: k,
        end: end + 1 + glob[0].length,
      });
      k = end + 1 + glob[0].length;
    } else {
      const w = word[0];
      if (w === 'and' || w === 'or' || w === 'not') tokens.push({ kind: w, start: k, end });
      else tokens.push({ kind: 'terminal', terminal: 'id', glob: w, start: k, end });
      k = end;
    }
  }
  return tokens;
}

/** Precedence climbing as loopy does it: or 10, and 20, not 30. */
class MatchParser {
  private at = 0;
  constructor(
    private readonly text: string,
    private readonly tokens: readonly Token[],
    private readonly what: string,
  ) {}

  expression(minPrecedence: number): MatchExpr {
    let left = this.operand();
    for (;;) {
      const next = this.tokens[this.at];
      if (next?.kind === 'and' && minPrecedence < 20) {
        this.at++;
        left = { kind: 'and', children: [left, this.expression(20)] };
      } else if (next?.kind === 'or' && minPrecedence < 10) {
        this.at++;
        left = { kind: 'or', children: [left, this.expression(10)] };
      } else return left;
    }
  }

  expectEnd(): void {
    const next = this.tokens[this.at];
    if (next)
      this.fail(
        next,
        next.kind === ')'
          ? 'a closing parenthesis without an opening one'
          : "expected 'and', 'or' or the end of the expression",
      );
  }

  private operand(): MatchExpr {
    const token = this.tokens[this.at];
    if (!token)
      throw new LoomError(`${this.what}: the match expression ends too early`, {
        text: this.text,
        start: this.text.length,
        end: this.text.length + 1,
      });
    this.at++;
    switch (token.kind) {
      case 'not':
        return { kind: 'not', child: this.expression(30) };
      case '(': {
        const inner = this.expression(0);
        const close = this.tokens[this.at];
        if (close?.kind !== ')') {
          if (close) this.fail(close, "expected ')'");
          throw new LoomError(`${this.what}: '(' is never closed`, {
            text: this.text,
            start: token.start,
            end: token.end,
          });
        }
        this.at++;
        return inner;
      }
      case 'terminal':
        return { kind: token.terminal!, glob: token.glob!, pattern: wildcardToRegExp(token.glob!) };
      default:
        return this.fail(token, `expected id:, tag:, writes:, reads:, iname:, 'not' or '(' before '${token.kind}'`);
    }
  }

  private fail(token: Token, message: string): never {
    throw new LoomError(`${this.what}: ${message}`, { text: this.text, start: token.start, end: token.end });
  }
}

/** What matching looks at besides the instruction: the kernel's name and rules (a kernel, or one being made). */
export type MatchContext = Pick<LoopKernel, 'name' | 'substitutions'>;

/** Whether `insn` of `knl` is matched by `m`. */
export function matches(m: MatchExpr, knl: MatchContext, insn: Instruction): boolean {
  switch (m.kind) {
    case 'all':
      return true;
    case 'and':
      return m.children.every((c) => matches(c, knl, insn));
    case 'or':
      return m.children.some((c) => matches(c, knl, insn));
    case 'not':
      return !matches(m.child, knl, insn);
    case 'id':
      return m.pattern.test(insn.id);
    case 'tag':
      return insn.tags.some((t) => m.pattern.test(t));
    case 'writes': {
      return namesWritten(insn).some((n) => m.pattern.test(n));
    }
    case 'reads':
      return [...readNames(knl, insn)].some((n) => m.pattern.test(n));
    case 'iname':
      return insn.withinInames.some((n) => m.pattern.test(n));
    case 'in_kernel':
      return m.pattern.test(knl.name);
  }
}

/** What an instruction reads, the substitution rules it calls included (loopy's read_dependency_names). */
function readNames(knl: MatchContext, insn: Instruction): Set<string> {
  const names = namesRead(insn, knl.substitutions);
  for (const e of [insn.expression, ...insn.predicates]) {
    if (e) walk(e, (x) => void (x.kind === 'call' && knl.substitutions.has(x.fn) && names.add(x.fn)));
  }
  return names;
}

/**
 * The ids of the instructions `within` picks (all of them when undefined). With `required`,
 * a `within` that picks none is an error: the transformation would change nothing, which
 * is never what was meant.
 */
export function instructionsWithin(knl: LoopKernel, within: Within, what = 'within', required = false): Set<string> {
  const m = parseMatch(within, what);
  const ids = new Set(knl.instructions.filter((i) => matches(m, knl, i)).map((i) => i.id));
  if (required && ids.size === 0) {
    throw new LoomError(
      `${what}: '${[within].flat().join("', '")}' matches no instruction (ids: ${knl.instructions.map((i) => i.id).join(', ') || 'none'})`,
    );
  }
  return ids;
}

/** `within` as the text it was written, for messages. */
export function describeWithin(within: Within): string {
  return within === undefined ? 'all' : [within].flat().join("', '");
}

/** The instructions `within` picks, in the kernel's order (loopy's find_instructions). */
export function findInstructions(knl: LoopKernel, within: Within): Instruction[] {
  const m = parseMatch(within, 'findInstructions');
  return knl.instructions.filter((i) => matches(m, knl, i));
}
