/**
 * loopy's stack matches: which substitution-rule invocations a transformation picks, by
 * the stack that leads to them, outermost first: the instruction, then each rule call
 * on the way (its rule's name is its `id:`, a tagged call `g$two(x)` has the tag `two`).
 *
 *   id:insn_a > g                  g called directly from instruction insn_a (and whatever it calls)
 *   ... > id:h and tag:two > g     g called from the call h$two, anywhere
 *   insn > ... > g $               the innermost level is g ($: nothing below it)
 *
 * Each entry is a match expression (match.ts); `...` stands for any number of levels. A
 * plain match expression is a one-entry stack match: the instructions it picks, and every
 * rule call in them. There are no callable kernels in Loom, so the stack is always one
 * instruction followed by rule invocations.
 */
import { LoomError } from '../errors.ts';
import type { Instruction } from '../kernel/model.ts';
import { matches, parseMatch, type MatchContext, type MatchExpr } from './match.ts';

export type StackMatch =
  | { readonly kind: 'all' }
  | { readonly kind: 'bottom' }
  | { readonly kind: 'item'; readonly match: MatchExpr; readonly inner: StackMatch }
  | { readonly kind: 'wildcard'; readonly inner: StackMatch };

/** A rule invocation on the stack: the rule's name and the call's tag. */
export interface RuleFrame {
  readonly name: string;
  readonly tag?: string;
}

/** Whether `within` uses the stack syntax (`>` or a trailing `$`) rather than being a plain match expression. */
export function isStackMatchText(within: unknown): within is string {
  return typeof within === 'string' && (within.includes('>') || within.trim().endsWith('$'));
}

export function parseStackMatch(text: string, what = 'within'): StackMatch {
  let rest = text.trim();
  let match: StackMatch = { kind: 'all' };
  if (rest.endsWith('$')) {
    match = { kind: 'bottom' };
    rest = rest.slice(0, -1).trim();
  }
  const parts = rest.split('>');
  if (parts.some((p) => p.trim() === ''))
    throw new LoomError(
      `${what}: the stack match '${text}' has an empty entry (entries are match expressions or '...', joined by '>')`,
    );
  for (const part of parts.reverse()) {
    const entry = part.trim();
    match =
      entry === '...'
        ? { kind: 'wildcard', inner: match }
        : { kind: 'item', match: parseMatch(entry, what), inner: match };
  }
  return match;
}

/** Whether the stack `insn > rules...` is matched; `what` names the asker in errors. */
export function stackMatches(
  m: StackMatch,
  knl: MatchContext,
  insn: Instruction,
  rules: readonly RuleFrame[],
  what = 'within',
): boolean {
  const at = (s: StackMatch, level: number): boolean => {
    const size = rules.length + 1 - level;
    switch (s.kind) {
      case 'all':
        return true;
      case 'bottom':
        return size === 0;
      case 'wildcard':
        for (let k = level; k < rules.length + 1; k++) if (at(s.inner, k)) return true;
        return false;
      case 'item':
        if (size <= 0) return false;
        if (!(level === 0 ? matches(s.match, knl, insn) : ruleMatches(s.match, rules[level - 1], what))) return false;
        return at(s.inner, level + 1);
    }
  };
  return at(m, 0);
}

/** A match expression applied to a rule invocation: `id:` is the rule's name, `tag:` the call's tag. */
function ruleMatches(m: MatchExpr, frame: RuleFrame, what: string): boolean {
  switch (m.kind) {
    case 'all':
      return true;
    case 'and':
      return m.children.every((c) => ruleMatches(c, frame, what));
    case 'or':
      return m.children.some((c) => ruleMatches(c, frame, what));
    case 'not':
      return !ruleMatches(m.child, frame, what);
    case 'id':
      return m.pattern.test(frame.name);
    case 'tag':
      return frame.tag !== undefined && m.pattern.test(frame.tag);
    default:
      throw new LoomError(
        `${what}: '${m.kind}:' cannot be applied to a rule invocation ('${frame.name}'); use id: or tag: past the first '>'`,
      );
  }
}
