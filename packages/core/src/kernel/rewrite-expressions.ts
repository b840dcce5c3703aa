/**
 * The one way a pass rewrites the expressions of a kernel (loopy's rule-aware
 * mappers, `RuleAwareIdentityMapper.map_kernel`): each instruction's assignee,
 * expression and conditions (and C code's bound values), each substitution rule's body and, when asked, the
 * shapes of arrays. Transformations (split, join, rename, duplicate, fixParameters,
 * prefetch, precompute) and the passes before code generation (separate arrays,
 * privatize ILP temporaries) all go through it, so none can forget a place.
 *
 * Rules need the same care as instructions: `f(x) := x + a[i]` reads the iname `i`
 * too, and code generation expands `f` where it is called, so a rule left behind
 * would name an iname that no longer exists (or compute something else).
 *
 * A rule's own parameters shadow the kernel's names: in `f(i) := 2*i` the `i` is the
 * argument, not the iname, and is left alone.
 *
 * With `within` only some instructions are rewritten (loopy's rule-aware mapping): a
 * rule whose body changes is rewritten in place when only those instructions call it,
 * left alone when only others do, and copied (`f` → `f_0`) when both do, the chosen
 * instructions then calling the copy.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { call, subscript, variable, type Expr } from '../expr/nodes.ts';
import { freeVariables, mapExpr, walk } from '../expr/index.ts';
import { LoomError } from '../errors.ts';
import type { Instruction, LoopKernel, SubstitutionRule } from './model.ts';
import { expandSubstitutions } from './accesses.ts';
import { renameInExpr, uniqueName } from './rename.ts';

/** The options mapKernelExpressions reads; any other key is an error. */
const MAP_KERNEL_EXPRESSIONS_OPTIONS = optionKeys<MapExpressionsOptions>()([
  'assignee',
  'rules',
  'shapes',
  'what',
  'within',
]);

/** A rewrite of one expression; `insn` is the instruction it belongs to (none in a rule body or a shape). */
export type ExprRewrite = (e: Expr, insn?: Instruction) => Expr;

/** Options of `mapKernelExpressions`: which instructions, and which of their parts, the rewrite applies to. */
export interface MapExpressionsOptions {
  /** The pass, for messages. */
  readonly what: string;
  /** Ids of the instructions to rewrite; default all. The rules they call follow (see above). */
  readonly within?: ReadonlySet<string>;
  /**
   * What of an assignee is rewritten:
   *  - `'indices'` (default): its indices, values the instruction reads; the name it
   *    writes stays (renaming an iname does not rename the array `a` in `a[i]`);
   *  - `'whole'`: the assignee as an expression, for a pass that changes what is
   *    written (privatizing turns `acc` into `acc[i_ilp]`);
   *  - `'none'`: left alone (a footprint store redirects only the reads it measured,
   *    which are in the value and the conditions).
   */
  readonly assignee?: 'indices' | 'whole' | 'none';
  /**
   * `'keep'`: the rules are left as they are. For a rewrite that depends on the
   * instruction, which one rule body shared by several cannot follow: the caller has
   * inlined the rules concerned (`inlineRulesThat`) or knows none is.
   */
  readonly rules?: 'rewrite' | 'keep';
  /**
   * The rewrite for the shapes of array arguments and temporaries (loopy's `map_args`,
   * `map_tvs`); default: shapes are left alone. Separate from `rewrite` because shapes
   * are integer expressions in the parameters, which a pass may fold.
   */
  readonly shapes?: (e: Expr) => Expr;
}

/**
 * The kernel with `rewrite` applied to its expressions (see `MapExpressionsOptions`
 * for which). The caller changes the rest (domains, loops of the instructions) itself.
 */
export function mapKernelExpressions(
  knl: LoopKernel,
  rewrite: ExprRewrite,
  options: MapExpressionsOptions,
): LoopKernel {
  checkOptionKeys('mapKernelExpressions', options, MAP_KERNEL_EXPRESSIONS_OPTIONS);
  const { what, within } = options;
  const chosen = (insn: Instruction) => !within || within.has(insn.id);
  const { substitutions, redirect } =
    options.rules === 'keep'
      ? { substitutions: knl.substitutions, redirect: (e: Expr) => e }
      : mapRules(knl, rewrite, what, within);

  // in the order an instruction is read: what it writes, its value, its conditions
  const assignee = options.assignee ?? 'indices';
  const instructions = knl.instructions.map((insn) => {
    if (!chosen(insn)) return insn;
    const f = (e: Expr) => redirect(rewrite(e, insn));
    const target = (a: Expr): Expr =>
      assignee === 'whole'
        ? f(a)
        : assignee === 'indices' && a.kind === 'subscript'
          ? subscript(a.array, a.indices.map(f), a.linear, a.tag, a.field)
          : a;
    return {
      ...insn,
      assignees: insn.assignees.map(target),
      expression: insn.expression && f(insn.expression),
      predicates: insn.predicates.map(f),
      // C code's names keep their spelling; the values they are bound to are read like any (loopy's)
      ...(insn.cCode
        ? { cCode: { ...insn.cCode, inameExprs: insn.cCode.inameExprs.map((b) => ({ ...b, value: f(b.value) })) } }
        : {}),
      ...(insn.call ? { call: mapSweeps(insn, f, what) } : {}),
    };
  });
  if (!options.shapes) return knl.with({ instructions, substitutions });

  const shape = options.shapes;
  const args = knl.args.map((a) => (a.shape ? { ...a, shape: a.shape.map(shape) } : a));
  const temporaries = new Map([...knl.temporaries].map(([name, t]) => [name, { ...t, shape: t.shape.map(shape) }]));
  return knl.with({ instructions, substitutions, args, temporaries });
}

/**
 * The inames a call's sub-array references sweep follow a rename (`renameIname`, `dup=`); a
 * rewrite that makes one of them an expression (a split) cannot be followed: the callee runs over
 * the whole swept range.
 */
function mapSweeps(insn: Instruction, f: (e: Expr) => Expr, what: string): NonNullable<Instruction['call']> {
  const call = insn.call!;
  const one = (name: string): string => {
    const mapped = f(variable(name));
    if (mapped.kind === 'var') return mapped.name;
    throw new LoomError(
      `${what}: instruction '${insn.id}' sweeps '${name}' in a call of '${call.callee}', which this would make an expression`,
      insn.span,
    );
  };
  return {
    ...call,
    assigneeSweeps: call.assigneeSweeps.map((s) => s.map(one)),
    argSweeps: call.argSweeps.map((s) => s?.map(one)),
  };
}

/**
 * The rules rewritten for the chosen instructions, and `redirect`, which makes an
 * expression of those instructions call the copies made for them.
 */
function mapRules(
  knl: LoopKernel,
  rewrite: ExprRewrite,
  what: string,
  within: ReadonlySet<string> | undefined,
): { substitutions: Map<string, SubstitutionRule>; redirect: (e: Expr) => Expr } {
  const rules = knl.substitutions;
  const chosen = (insn: Instruction) => !within || within.has(insn.id);
  const bodies = new Map([...rules].map(([name, rule]) => [name, rewriteBody(rule, rewrite, what)]));
  const changes = affectedRules(rules, bodies);
  // without `within` every rule is rewritten, called or not
  const fromChosen = within ? calledFrom(knl.instructions.filter(chosen), rules) : new Set(rules.keys());
  const fromOthers = calledFrom(
    knl.instructions.filter((i) => !chosen(i)),
    rules,
  );

  // what the chosen code calls instead of each changed rule (itself, or a copy)
  const target = new Map<string, string>();
  const taken = new Set([...rules.keys(), ...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  for (const name of changes) {
    if (!fromChosen.has(name)) continue;
    const copy = fromOthers.has(name) ? uniqueName(name, taken) : name;
    taken.add(copy);
    target.set(name, copy);
  }
  const redirect = (e: Expr) =>
    mapExpr(e, (x) =>
      x.kind === 'call' && target.has(x.fn) && target.get(x.fn) !== x.fn ? call(target.get(x.fn)!, x.args, x.tag) : x,
    );

  const substitutions = new Map<string, SubstitutionRule>();
  for (const [name, rule] of rules) {
    const rewritten = { ...rule, expression: redirect(bodies.get(name)!) };
    const copy = target.get(name);
    if (copy === undefined) substitutions.set(name, rule);
    else if (copy === name) substitutions.set(name, rewritten);
    else substitutions.set(name, rule).set(copy, { ...rewritten, name: copy });
  }
  return { substitutions, redirect };
}

/**
 * A rule's body, rewritten. Its parameters are renamed apart first, so the rewrite
 * cannot touch them (in `f(i) := 2*i` the `i` is the argument, not the iname); a
 * parameter name that then turns up is a name the rewrite brought in, which the
 * parameter would capture (`f(i_inner) := i_inner + a[i]` with `i` split).
 */
function rewriteBody(rule: SubstitutionRule, rewrite: ExprRewrite, what: string): Expr {
  const apart = new Map(rule.params.map((p, k) => [p, `__${rule.name}_argument_${k}`]));
  const renamed = renameInExpr(rule.expression, apart);
  const body = rewrite(renamed);
  if (body === renamed) return rule.expression;
  const captured = [...freeVariables(body)].filter((n) => apart.has(n));
  if (captured.length) {
    throw new LoomError(
      `${what}: the substitution rule '${rule.name}' has a parameter named '${captured.join("', '")}', which its rewritten body would need as an iname; rename the parameter`,
    );
  }
  return renameInExpr(body, new Map([...apart].map(([p, q]) => [q, p])));
}

/** Rules whose body the rewrite changes, or that call (directly or not) such a rule. */
function affectedRules(rules: ReadonlyMap<string, SubstitutionRule>, bodies: ReadonlyMap<string, Expr>): Set<string> {
  return withCallers(rules, new Set([...rules.keys()].filter((n) => bodies.get(n) !== rules.get(n)!.expression)));
}

/** `names` and every rule that calls one of them, directly or through other rules. */
function withCallers(rules: ReadonlyMap<string, SubstitutionRule>, names: ReadonlySet<string>): Set<string> {
  const out = new Set(names);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, rule] of rules) {
      if (!out.has(name) && [...callsIn(rule.expression, rules)].some((c) => out.has(c))) {
        out.add(name);
        grew = true;
      }
    }
  }
  return out;
}

/** The rules these instructions call, directly or through other rules. */
function calledFrom(insns: readonly Instruction[], rules: ReadonlyMap<string, SubstitutionRule>): Set<string> {
  const out = new Set<string>();
  const pending: string[] = [];
  const note = (e: Expr | undefined) => {
    if (e) for (const c of callsIn(e, rules)) if (!out.has(c)) out.add(c), pending.push(c);
  };
  for (const insn of insns) [...insn.assignees, insn.expression, ...insn.predicates].forEach(note);
  while (pending.length) note(rules.get(pending.pop()!)!.expression);
  return out;
}

function callsIn(e: Expr, rules: ReadonlyMap<string, SubstitutionRule>): Set<string> {
  const out = new Set<string>();
  walk(e, (x) => {
    if (x.kind === 'call' && rules.has(x.fn)) out.add(x.fn);
  });
  return out;
}

/**
 * The kernel with calls of the rules that satisfy `test` (or call, through other
 * rules, one that does) replaced by their bodies in the instructions. Prefetching `a`
 * must see and replace the reads of `a` inside `f(x) := a[x]` where `f` is called:
 * each call is a different footprint, which one rule body cannot name.
 */
export function inlineRulesThat(knl: LoopKernel, test: (rule: SubstitutionRule) => boolean): LoopKernel {
  const rules = knl.substitutions;
  const inlined = withCallers(rules, new Set([...rules.values()].filter(test).map((r) => r.name)));
  if (inlined.size === 0) return knl;
  const only = new Map([...rules].filter(([name]) => inlined.has(name)));
  return mapKernelExpressions(knl, (e) => expandSubstitutions(e, only), {
    what: 'inlining rules',
    rules: 'keep',
    assignee: 'none',
  });
}
