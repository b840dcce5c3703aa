/**
 * Substitution that keeps the rules an expression calls (loopy's `RuleAwareSubstitutionMapper`
 * with its `SubstitutionRuleMappingContext`).
 *
 * `substitute` replaces names in an expression, but a rule the expression calls reads names
 * of the kernel too: `E := a[i]` called as `E` reads `i`. Writing the rule out would lose it,
 * so a later transformation could no longer find it (a `precompute` of `E` after one of a
 * rule `D := E*E` that calls it). Here the call stays a call, of a copy of the rule whose
 * body has the names replaced (`E_0 := a[D_i_inner + 128*i_outer]`); a copy equal to an
 * existing rule is that rule. `finishRuleVariants` then gives a copy its original's name
 * once the original is gone, as loopy's `finish_kernel` does: the kernel keeps one `E`.
 */
import { LoomError } from '../errors.ts';
import { call, type Expr } from '../expr/nodes.ts';
import { exprEquals, freeVariables, mapChildren, mapExpr } from '../expr/index.ts';
import type { LoopKernel, SubstitutionRule } from './model.ts';
import { renameInExpr, uniqueName } from './rename.ts';

/** An expression with names replaced, and the copies of rules its calls now call. */
export interface RuleVariants {
  readonly expression: Expr;
  /** The copies made, by name. */
  readonly rules: ReadonlyMap<string, SubstitutionRule>;
  /** Each copy's original rule. */
  readonly originals: ReadonlyMap<string, string>;
}

/**
 * `e` with the names of `replacements` replaced, inside the rules it calls too: a call of
 * a rule whose body (or a rule it calls) reads a replaced name calls a copy of the rule
 * with the names replaced in its body. A rule's parameters shadow the kernel's names
 * inside its body, and a reduction's inames inside it, as in `substitute`. New rule names
 * avoid `taken` (which grows by them).
 */
export function substituteKeepingRules(
  e: Expr,
  replacements: ReadonlyMap<string, Expr>,
  rules: ReadonlyMap<string, SubstitutionRule>,
  taken: Set<string>,
): RuleVariants {
  const made = new Map<string, SubstitutionRule>();
  const originals = new Map<string, string>();
  // the copy of a rule for a set of replacements: the body depends only on which names are replaced
  const memo = new Map<string, string>();

  const variant = (rule: SubstitutionRule, map: ReadonlyMap<string, Expr>): string => {
    const inner = new Map([...map].filter(([name]) => !rule.params.includes(name)));
    const key = `${rule.name}|${[...inner.keys()].sort().join(',')}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    memo.set(key, rule.name); // a rule calling itself is refused elsewhere; this ends the recursion here
    // a parameter that a replacement's value names would capture it: the copy renames it
    const brought = new Set([...inner.values()].flatMap((v) => [...freeVariables(v)]));
    const params = rule.params.map((p) => (brought.has(p) ? uniqueName(p, new Set([...brought, ...taken])) : p));
    const renamed = renameInExpr(rule.expression, new Map(rule.params.map((p, k) => [p, params[k]])));
    const body = go(renamed, inner);
    if (body === renamed) return rule.name;
    const same = [...rules.values(), ...made.values()].find(
      (r) => r.params.join(',') === params.join(',') && exprEquals(r.expression, body),
    );
    const name = same?.name ?? uniqueName(rule.name, taken);
    if (!same) {
      taken.add(name);
      made.set(name, { ...rule, name, params, expression: body });
      originals.set(name, rule.name);
    }
    memo.set(key, name);
    return name;
  };

  const go = (x: Expr, map: ReadonlyMap<string, Expr>): Expr => {
    if (map.size === 0) return x;
    if (x.kind === 'var') return map.get(x.name) ?? x;
    if (x.kind === 'reduce') {
      const inner = new Map([...map].filter(([name]) => !x.inames.includes(name)));
      const captured = [...inner.values()].flatMap((v) => [...freeVariables(v)]).find((n) => x.inames.includes(n));
      if (captured !== undefined)
        throw new LoomError(
          `substituting inside ${x.op}(${x.inames.join(', ')}, ...) would capture the reduction iname '${captured}'`,
        );
      return mapChildren(x, (c) => go(c, inner));
    }
    if (x.kind === 'call') {
      const rule = rules.get(x.fn);
      const args = x.args.map((a) => go(a, map));
      if (!rule) return args.every((a, k) => a === x.args[k]) ? x : call(x.fn, args, x.tag, x.dtype);
      const fn = variant(rule, map);
      return fn === x.fn && args.every((a, k) => a === x.args[k]) ? x : call(fn, args, x.tag, x.dtype);
    }
    return mapChildren(x, (c) => go(c, map));
  };

  return { expression: go(e, replacements), rules: made, originals };
}

/**
 * The kernel with each copy that `substituteKeepingRules` made renamed to its original's
 * name where the original is no longer in the kernel (loopy's `finish_kernel` keeps the
 * original name for the version of a rule that survives). Copies nothing calls go.
 */
export function finishRuleVariants(knl: LoopKernel, originals: ReadonlyMap<string, string>): LoopKernel {
  const renames = new Map<string, string>();
  for (const [copy, original] of originals) {
    if (!knl.substitutions.has(copy) || knl.substitutions.has(original)) continue;
    if ([...renames.values()].includes(original)) continue;
    renames.set(copy, original);
  }
  if (renames.size === 0) return knl;
  const rename = (e: Expr) =>
    mapExpr(e, (x) => (x.kind === 'call' && renames.has(x.fn) ? call(renames.get(x.fn)!, x.args, x.tag, x.dtype) : x));
  const substitutions = new Map(
    [...knl.substitutions].map(([name, rule]) => {
      const to = renames.get(name) ?? name;
      return [to, { ...rule, name: to, expression: rename(rule.expression) }] as const;
    }),
  );
  const instructions = knl.instructions.map((insn) => ({
    ...insn,
    assignees: insn.assignees.map(rename),
    expression: insn.expression && rename(insn.expression),
    predicates: insn.predicates.map(rename),
  }));
  return knl.with({ substitutions, instructions });
}
