/**
 * loopy's match expressions, which select instructions by what they are rather than by id:
 *
 *   id:GLOB  tag:GLOB  writes:GLOB  reads:GLOB  iname:GLOB  in_kernel:GLOB
 *   EXPR and EXPR   EXPR or EXPR   not EXPR   ( EXPR )
 *
 * (`and` binds tighter than `or`; a GLOB is a name with `*` and `?` wildcards.) An instruction
 * attribute `nosync_query=writes:a@local` is resolved with them when the kernel is made.
 */
import { LoomError, type SourceSpan } from '../errors.ts';
import { arraysAccessed, freeVariables } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import type { Instruction } from './model.ts';

/** What a match expression is asked about one instruction. */
export type InstructionMatch = (insn: Instruction, kernelName: string) => boolean;

const TERMINAL = /^(id|tag|writes|reads|iname|in_kernel):([\w?*]+)/;
const WORD = /^(and|or|not)\b/;

/** Reads `text` as a match expression; errors point into `span` (the attribute's value) when given. */
export function parseMatch(text: string, span?: SourceSpan): InstructionMatch {
  const tokens: { text: string; at: number }[] = [];
  for (let pos = 0; pos < text.length; ) {
    const rest = text.slice(pos);
    const space = /^\s+/.exec(rest);
    const token = space ? undefined : (TERMINAL.exec(rest) ?? WORD.exec(rest) ?? /^[()]/.exec(rest));
    if (!space && !token) throw fail(pos, `unexpected '${rest[0]}' in the match expression '${text}' (expected id:, tag:, writes:, reads:, iname:, in_kernel:, and, or, not, parentheses)`);
    if (token) tokens.push({ text: token[0], at: pos });
    pos += (space ?? token)![0].length;
  }
  let k = 0;
  function fail(at: number, message: string): LoomError {
    return new LoomError(message, span && { text: span.text, start: span.start + at, end: span.start + at + 1 });
  }
  const peek = () => tokens[k]?.text;
  const or = (): InstructionMatch => {
    let left = and();
    while (peek() === 'or') {
      k++;
      const [l, r] = [left, and()];
      left = (i, n) => l(i, n) || r(i, n);
    }
    return left;
  };
  const and = (): InstructionMatch => {
    let left = unary();
    while (peek() === 'and') {
      k++;
      const [l, r] = [left, unary()];
      left = (i, n) => l(i, n) && r(i, n);
    }
    return left;
  };
  const unary = (): InstructionMatch => {
    const token = tokens[k++];
    if (!token) throw fail(text.length, `the match expression '${text}' ends where a condition should come`);
    if (token.text === 'not') {
      const inner = unary();
      return (i, n) => !inner(i, n);
    }
    if (token.text === '(') {
      const inner = or();
      if (peek() !== ')') throw fail(tokens[k]?.at ?? text.length, `expected ')' in the match expression '${text}'`);
      k++;
      return inner;
    }
    const terminal = TERMINAL.exec(token.text);
    if (!terminal) throw fail(token.at, `unexpected '${token.text}' in the match expression '${text}'`);
    return terminalMatch(terminal[1], globToRegExp(terminal[2]));
  };
  const result = or();
  if (k < tokens.length) throw fail(tokens[k].at, `unexpected '${tokens[k].text}' in the match expression '${text}'`);
  return result;
}

function terminalMatch(kind: string, glob: RegExp): InstructionMatch {
  switch (kind) {
    case 'id': return (insn) => glob.test(insn.id);
    case 'tag': return (insn) => insn.tags.some((t) => glob.test(t));
    case 'writes': return (insn) => assigneeName(insn) !== undefined && glob.test(assigneeName(insn)!);
    case 'reads': return (insn) => [...readNames(insn)].some((n) => glob.test(n));
    case 'iname': return (insn) => insn.withinInames.some((n) => glob.test(n));
    default: return (_insn, kernelName) => glob.test(kernelName);
  }
}

function assigneeName(insn: Instruction): string | undefined {
  const a = insn.assignee;
  return a?.kind === 'var' ? a.name : a?.kind === 'subscript' ? a.array : undefined;
}

/** Every name the instruction reads: variables and arrays in its value, its assignee's indices, its conditions. */
function readNames(insn: Instruction): Set<string> {
  const exprs: Expr[] = [...insn.predicates, ...(insn.expression ? [insn.expression] : [])];
  if (insn.assignee?.kind === 'subscript') exprs.push(...insn.assignee.indices);
  const names = new Set<string>();
  for (const e of exprs) {
    for (const n of freeVariables(e)) names.add(n);
    for (const n of arraysAccessed(e).keys()) names.add(n);
  }
  return names;
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}
