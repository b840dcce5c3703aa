/**
 * A rewrite of some instructions that enters the rules they call instead of writing the
 * rules out (loopy's `RuleAwareIdentityMapper.map_kernel` with its
 * `SubstitutionRuleMappingContext`).
 *
 * A prefetch of `x` must redirect the reads of `x` inside `axdist(k) := x[i,k] - x[j,k]`
 * where `axdist` is called. Writing the rule out into its callers would lose it, and a
 * later `precompute` of it would no longer find it. Here each call of a rule is followed
 * into the rule's body, which is rewritten knowing what the rule's parameters stand for at
 * that call (the `context`: parameter → the value in the instruction's names); the call
 * then calls a copy of the rule with the rewritten body (or the rule itself, where nothing
 * changed, or an existing rule with that very body). `finishRuleVariants` gives a copy its
 * original's name once nothing calls the original any more, so a rule read the same way
 * by every caller keeps its name.
 */
import { LoomError } from '../errors.ts';
import { call, subscript, type Expr } from '../expr/nodes.ts';
import { exprEquals, mapExpr, substitute } from '../expr/index.ts';
import type { Instruction, LoopKernel, SubstitutionRule } from './model.ts';
import { uniqueName } from './rename.ts';

/**
 * A rewrite of one expression of `insn` in some scope: the instruction's own (an empty
 * `context`), or a rule body's, whose parameters stand for `context`'s values.
 */
export type ScopedRewrite = (e: Expr, insn: Instruction, context: ReadonlyMap<string, Expr>) => Expr;

/** The rewritten kernel, and each copy of a rule made for it with the rule it copies. */
export interface RewrittenThroughRules {
  readonly kernel: LoopKernel;
  readonly originals: ReadonlyMap<string, string>;
}

/**
 * The kernel with `rewrite` applied to the value and conditions of the instructions in
 * `within`, and to the indices of what they write, following the rules they call (see
 * above). The kernel's other rules and instructions are left as they are; new rule names
 * avoid `taken` (which grows by them).
 */
export function rewriteThroughRules(
  knl: LoopKernel,
  within: ReadonlySet<string>,
  rewrite: ScopedRewrite,
  taken: Set<string>,
): RewrittenThroughRules {
  const rules = knl.substitutions;
  const made = new Map<string, SubstitutionRule>();
  const originals = new Map<string, string>();

  // the name of the rule a call of `rule` calls in this context: itself, an equal rule, or a new copy
  const copyFor = (rule: SubstitutionRule, body: Expr): string => {
    if (body === rule.expression) return rule.name;
    const same = [...rules.values(), ...made.values()].find(
      (r) => r.params.join(',') === rule.params.join(',') && exprEquals(r.expression, body),
    );
    if (same) return same.name;
    const name = uniqueName(rule.name, taken);
    taken.add(name);
    made.set(name, { ...rule, name, expression: body });
    originals.set(name, rule.name);
    return name;
  };

  const go = (e: Expr, insn: Instruction, context: ReadonlyMap<string, Expr>, depth: number): Expr => {
    // calls first, each followed into its rule; then this scope's own nodes (the calls' arguments among them)
    const entered = mapExpr(e, (x) => {
      const rule = x.kind === 'call' ? rules.get(x.fn) : undefined;
      if (x.kind !== 'call' || !rule) return x;
      if (depth > 50) throw new LoomError('substitution rules call each other without end');
      const inner = new Map(rule.params.map((p, k) => [p, substitute(x.args[k] ?? x, context)] as const));
      const fn = copyFor(rule, go(rule.expression, insn, inner, depth + 1));
      return fn === x.fn ? x : call(fn, x.args, x.tag, x.dtype);
    });
    return rewrite(entered, insn, context);
  };

  const none = new Map<string, Expr>();
  const instructions = knl.instructions.map((insn) => {
    if (!within.has(insn.id)) return insn;
    const f = (e: Expr) => go(e, insn, none, 0);
    return {
      ...insn,
      assignees: insn.assignees.map((a) =>
        a.kind === 'subscript' ? subscript(a.array, a.indices.map(f), a.linear, a.tag, a.field) : a,
      ),
      expression: insn.expression && f(insn.expression),
      predicates: insn.predicates.map(f),
    };
  });
  const substitutions = new Map([...rules, ...made]);
  return { kernel: knl.with({ instructions, substitutions }), originals };
}
