/**
 * loopy reads the bare name of a substitution rule without parameters as a call of it
 * (`invdist` for `invdist()`): `pot[i] = sum(j, if(i != j, invdist, 0))`. makeKernel makes
 * those names calls before anything else looks at the instructions, so that no pass takes
 * them for arguments.
 */
import { LoomError } from '../errors.ts';
import { call, type Expr } from '../expr/nodes.ts';
import { mapExpr } from '../expr/visit.ts';
import { expandSubstitutions } from '../kernel/accesses.ts';
import type { Instruction, SubstitutionRule } from '../kernel/model.ts';

/** `e` with every bare name of a parameterless rule (outside `bound`) made a call of it. */
function callBareRules(e: Expr, parameterless: ReadonlySet<string>, bound: ReadonlySet<string> = new Set()): Expr {
  return mapExpr(e, (x) =>
    x.kind === 'var' && parameterless.has(x.name) && !bound.has(x.name) ? call(x.name, []) : x,
  );
}

/**
 * The instructions and rules with bare names of parameterless rules made calls. A rule's own
 * parameters shadow rules of their name; a name both a rule and written by an instruction is
 * ambiguous and refused.
 */
export function resolveBareRuleCalls(
  instructions: readonly Instruction[],
  rules: Map<string, SubstitutionRule>,
  written: ReadonlySet<string>,
): Instruction[] {
  const parameterless = new Set([...rules.values()].filter((r) => r.params.length === 0).map((r) => r.name));
  if (parameterless.size === 0) return [...instructions];
  for (const name of parameterless) {
    if (written.has(name))
      throw new LoomError(
        `'${name}' is both a substitution rule and a variable an instruction writes: rename one of them`,
      );
  }
  for (const [name, rule] of rules)
    rules.set(name, { ...rule, expression: callBareRules(rule.expression, parameterless, new Set(rule.params)) });
  return instructions.map((insn) => ({
    ...insn,
    expression: insn.expression && callBareRules(insn.expression, parameterless),
    predicates: insn.predicates.map((p) => callBareRules(p, parameterless)),
    assignees: insn.assignees.map((a) => callBareRules(a, parameterless)),
  }));
}

/**
 * The instructions with rule calls in their assignees' indices written out (`f_new[i, j]`
 * with `i := ii + 1`, loopy's test_lbm): a rule stands for a value read, and an index of what
 * is written is no place to precompute one, so every pass that looks at what an instruction
 * writes sees the index itself.
 */
export function expandAssigneeRuleCalls(
  instructions: readonly Instruction[],
  rules: ReadonlyMap<string, SubstitutionRule>,
): Instruction[] {
  if (rules.size === 0) return [...instructions];
  return instructions.map((insn) => {
    const assignees = insn.assignees.map((a) =>
      a.kind === 'subscript' ? { ...a, indices: a.indices.map((i) => expandSubstitutions(i, rules)) } : a,
    );
    return assignees.every((a, k) => a === insn.assignees[k] || sameIndices(a, insn.assignees[k]))
      ? insn
      : { ...insn, assignees };
  });
}

function sameIndices(a: Expr, b: Expr): boolean {
  return a.kind === 'subscript' && b.kind === 'subscript' && a.indices.every((index, k) => index === b.indices[k]);
}
