/**
 * Making and unmaking substitution rules (loopy's transform/subst.py):
 *
 *   extractSubst(knl, 'bsquare', 'alpha*b[i]**2', 'alpha')
 *       every subexpression of that shape becomes a call `bsquare(23)`, and the rule
 *       `bsquare(alpha) := alpha*b[i]**2` is added;
 *   expandSubst(knl)      calls are replaced by the rules' bodies; rules no one calls go;
 *   findRulesMatching(knl, 'f*'), findOneRuleMatching(knl, 'f*')    rules by name pattern.
 */
import { LoomError } from '../errors.ts';
import { checkName, checkNames, nameList } from '../names.ts';
import { call, type Expr } from '../expr/nodes.ts';
import {
  children,
  exprEquals,
  freeVariables,
  mapChildren,
  mapExpr,
  parseExpression,
  printExpr,
  substitute,
  walk,
} from '../expr/index.ts';
import { expandSubstitutions } from '../kernel/accesses.ts';
import { wildcardToRegExp } from '../kernel/dependencies.ts';
import type { Instruction, LoopKernel, SubstitutionRule } from '../kernel/model.ts';
import { instructionsWithin, type Within } from './match.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { isStackMatchText, parseStackMatch, stackMatches, type RuleFrame, type StackMatch } from './stack-match.ts';
import { uniqueName } from '../kernel/rename.ts';

/**
 * `parameters`: the template's variables that stand for any subexpression (the rule's
 * parameters), a list or comma-separated. Every other variable of the template must match
 * itself. `+` and `*` match either way round. Instructions outside `within` are left
 * alone; rule bodies are always searched.
 */
export function extractSubst(
  knl: LoopKernel,
  name: string,
  template: string | Expr,
  parameters: string | readonly string[] = [],
  within?: Within,
): LoopKernel {
  checkName(name, 'extractSubst: the rule name');
  const params = checkNames(nameList(parameters), 'extractSubst: a parameter');
  if (new Set(params).size !== params.length)
    throw new LoomError(`extractSubst: a parameter is listed twice in '${params.join(', ')}'`);
  const taken = [...knl.args.map((a) => a.name), ...knl.temporaries.keys(), ...knl.substitutions.keys(), ...knl.inames];
  if (taken.includes(name)) throw new LoomError(`extractSubst: the name '${name}' is already used in the kernel`);
  const shape = typeof template === 'string' ? parseExpression(template) : template;
  const chosen = instructionsWithin(knl, within, 'extractSubst: option within', within !== undefined);

  let found = 0;
  const replace = (e: Expr): Expr => {
    const bindings = unify(shape, e, params, new Map());
    if (bindings) {
      found++;
      return call(
        name,
        params.map((p) => bindings.get(p)!),
      );
    }
    return mapChildren(e, replace);
  };
  const rewritten = mapKernelExpressions(knl, replace, { what: 'extractSubst', within: chosen, rules: 'keep' });
  const substitutions = new Map<string, SubstitutionRule>();
  // in a rule body, a template's own variable (`i` in `x[i, a1]`) must not be the rule's parameter of that name
  const literal = [...freeVariables(shape)].filter((v) => !params.includes(v));
  for (const [n, rule] of rewritten.substitutions) {
    substitutions.set(
      n,
      rule.params.some((p) => literal.includes(p)) ? rule : { ...rule, expression: replace(rule.expression) },
    );
  }
  if (found === 0) throw new LoomError(`extractSubst: no expression matches '${printExpr(shape)}'`);
  substitutions.set(name, { name, params, expression: shape });
  return rewritten.with({ substitutions });
}

/**
 * The bindings of `params` that make `template` equal `e`, or undefined. Sums and products
 * are tried in both orders (the first order that unifies wins).
 */
function unify(
  template: Expr,
  e: Expr,
  params: readonly string[],
  bound: Map<string, Expr>,
): Map<string, Expr> | undefined {
  if (template.kind === 'var' && params.includes(template.name)) {
    const known = bound.get(template.name);
    if (known) return exprEquals(known, e) ? bound : undefined;
    return new Map(bound).set(template.name, e);
  }
  if (template.kind !== e.kind) return undefined;
  if (children(template).length === 0) return exprEquals(template, e) ? bound : undefined;
  const shallow = (a: Expr, b: Expr) =>
    exprEquals(
      mapChildren(a, () => PLACEHOLDER),
      mapChildren(b, () => PLACEHOLDER),
    );
  const pairwise = (ts: readonly Expr[], es: readonly Expr[]) => {
    let b: Map<string, Expr> | undefined = bound;
    for (let k = 0; k < ts.length && b; k++) b = unify(ts[k], es[k], params, b);
    return b;
  };
  if (!shallow(template, e)) return undefined;
  const direct = pairwise(children(template), children(e));
  if (direct || template.kind !== 'binary' || (template.op !== '+' && template.op !== '*')) return direct;
  return pairwise([template.right, template.left], children(e));
}

const PLACEHOLDER: Expr = Object.freeze({ kind: 'int', value: 0 });

/**
 * The rule calls in the instructions `within` picks are written out (all instructions by
 * default); rules that no instruction calls any more, directly or through other rules, go.
 */
export function expandSubst(knl: LoopKernel, within?: Within): LoopKernel {
  if (knl.substitutions.size === 0) return knl;
  if (isStackMatchText(within)) return expandSubstOnStack(knl, parseStackMatch(within, 'expandSubst: option within'));
  const chosen = instructionsWithin(knl, within, 'expandSubst: option within', within !== undefined);
  const expanded = mapKernelExpressions(knl, (e) => expandSubstitutions(e, knl.substitutions), {
    what: 'expandSubst',
    within: chosen,
    rules: 'keep',
  });
  return expanded.with({ substitutions: rulesStillCalled(expanded) });
}

/**
 * The rule calls whose stack (instruction > rule calls on the way) `m` matches are written
 * out. A call left in place whose rule's body holds calls that are written out calls a copy
 * of the rule with them written out (`h_0`), as loopy makes one: other calls keep the rule.
 */
function expandSubstOnStack(knl: LoopKernel, m: StackMatch): LoopKernel {
  const what = 'expandSubst: option within';
  const rules = knl.substitutions;
  const copies = new Map<string, SubstitutionRule>();
  const copyOf = new Map<string, string>();
  const taken = new Set([...rules.keys(), ...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  let matched = false;
  const rewrite = (e: Expr, insn: Instruction, stack: readonly RuleFrame[], depth: number): Expr => {
    if (depth > 50) throw new LoomError('substitution rules expand recursively without end');
    return mapExpr(e, (x) => {
      if (x.kind !== 'call' || !rules.has(x.fn)) return x;
      const rule = rules.get(x.fn)!;
      const here = [...stack, { name: x.fn, ...(x.tag === undefined ? {} : { tag: x.tag }) }];
      const expand = stackMatches(m, knl, insn, here, what);
      if (expand) {
        matched = true;
        if (rule.params.length !== x.args.length)
          throw new LoomError(
            `substitution rule '${rule.name}' takes ${rule.params.length} argument(s), got ${x.args.length}`,
          );
      }
      // the body in this call's context; the arguments were rewritten in the caller's
      const body = rewrite(rule.expression, insn, here, depth + 1);
      if (expand) return substitute(body, new Map(rule.params.map((p, k) => [p, x.args[k]])));
      if (body === rule.expression) return x;
      const key = `${rule.name}:${printExpr(body)}`;
      let name = copyOf.get(key);
      if (name === undefined) {
        name = uniqueName(rule.name, taken);
        taken.add(name);
        copyOf.set(key, name);
        copies.set(name, { ...rule, name, expression: body });
      }
      return call(name, x.args, x.tag);
    });
  };
  // (mapExpr rebuilds bottom-up: the arguments of a call are rewritten before the call is)
  const expanded = mapKernelExpressions(knl, (e, insn) => (insn ? rewrite(e, insn, [], 0) : e), {
    what: 'expandSubst',
    rules: 'keep',
  });
  if (!matched) throw new LoomError(`${what}: the stack match matches no rule invocation`);
  const all = expanded.with({ substitutions: new Map([...rules, ...copies]) });
  return all.with({ substitutions: rulesStillCalled(all) });
}

/** The rules some instruction calls, directly or through other rules. */
export function rulesStillCalled(knl: LoopKernel): Map<string, SubstitutionRule> {
  const called = new Set<string>();
  const pending: Expr[] = knl.instructions.flatMap((i) =>
    [...i.assignees, i.expression, ...i.predicates].filter((e): e is Expr => e !== undefined),
  );
  while (pending.length) {
    walk(pending.pop()!, (x) => {
      if (x.kind === 'call' && knl.substitutions.has(x.fn) && !called.has(x.fn)) {
        called.add(x.fn);
        pending.push(knl.substitutions.get(x.fn)!.expression);
      }
    });
  }
  return new Map([...knl.substitutions].filter(([n]) => called.has(n)));
}

/** The names of the rules matching a glob pattern (`*`, `?`, `[seq]`). */
export function findRulesMatching(knl: LoopKernel, pattern: string): string[] {
  const re = wildcardToRegExp(pattern.trim());
  return [...knl.substitutions.keys()].filter((n) => re.test(n));
}

/** The one rule matching a glob pattern; none or several is an error. */
export function findOneRuleMatching(knl: LoopKernel, pattern: string): string {
  const rules = findRulesMatching(knl, pattern);
  if (rules.length > 1)
    throw new LoomError(
      `findOneRuleMatching: more than one substitution rule matched '${pattern}' (${rules.join(', ')})`,
    );
  if (rules.length === 0)
    throw new LoomError(
      `findOneRuleMatching: no substitution rule matched '${pattern}' (rules: ${[...knl.substitutions.keys()].join(', ') || 'none'})`,
    );
  return rules[0];
}
