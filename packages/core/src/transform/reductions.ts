/**
 * Transformations of reductions (loopy's `split_reduction_inward/outward`,
 * `make_reduction_inames_unique`, `reduction_arg_to_subst_rule`, `realize_reduction`):
 *
 *   splitReductionOutward(knl, 'j')   sum((i, j), e)  →  sum(j, sum(i, e))
 *   splitReductionInward(knl, 'j')    sum((i, j), e)  →  sum(i, sum(j, e))
 *   makeReductionInamesUnique(knl)    a second sum over i reduces over a copy of i
 *   reductionArgToSubstRule(knl, 'i') sum(i, e)  →  red_i_arg(i) := e; sum(i, red_i_arg(i))
 *   realizeReduction(knl)             the reductions become instructions now (types must be known)
 */
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { mapChildren, mapExpr, someExpr } from '../expr/index.ts';
import { call, reduce, variable, type Expr, type Reduce } from '../expr/nodes.ts';
import { instructionsWithin } from '../kernel/dependencies.ts';
import { Linear } from '../linear.ts';
import { homeDomainIndex } from '../kernel/domains.ts';
import type { LoopKernel, SubstitutionRule } from '../kernel/model.ts';
import { realizeReductions, type RealizeReductionOptions } from '../kernel/realize-reductions.ts';
import { inferTypes } from '../kernel/type-inference.ts';
import { renameInExpr, uniqueName } from './rename.ts';
import { inlineRulesThat, mapKernelExpressions } from './rewrite-expressions.ts';

export interface ReductionTransformOptions {
  /** Instruction ids (wildcards allowed, `:`-separated or an array); default: every instruction. */
  readonly within?: string | readonly string[];
}

const inameList = (inames: string | readonly string[]): string[] =>
  typeof inames === 'string' ? inames.split(',').map((s) => s.trim()).filter(Boolean) : [...inames];

/** Each reduction over `inames` and more becomes one over the others around one over `inames`. */
export function splitReductionOutward(knl: LoopKernel, inames: string | readonly string[], options: ReductionTransformOptions = {}): LoopKernel {
  return splitReduction(knl, inameList(inames), 'outward', options);
}

/** Each reduction over `inames` and more becomes one over `inames` inside one over the others. */
export function splitReductionInward(knl: LoopKernel, inames: string | readonly string[], options: ReductionTransformOptions = {}): LoopKernel {
  return splitReduction(knl, inameList(inames), 'inward', options);
}

function splitReduction(knl: LoopKernel, names: readonly string[], direction: 'inward' | 'outward', options: ReductionTransformOptions): LoopKernel {
  const what = `splitReduction${direction === 'inward' ? 'Inward' : 'Outward'}`;
  for (const n of names) if (!knl.inames.includes(n)) throw new LoomError(`${what}: unknown iname '${n}'`);
  let found = false;
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind !== 'reduce') return x;
      const moved = x.inames.filter((n) => names.includes(n));
      const kept = x.inames.filter((n) => !names.includes(n));
      if (moved.length === 0) return x;
      if (moved.length !== names.length) {
        throw new LoomError(`${what}: ${x.op}(${x.inames.join(', ')}, ...) reduces over only some of ${names.map((n) => `'${n}'`).join(', ')}`);
      }
      found = true;
      if (kept.length === 0) return x;
      const [outer, inner] = direction === 'outward' ? [moved, kept] : [kept, moved];
      return reduce(x.op, outer, [reduce(x.op, inner, x.operands, x.simultaneous)], x.simultaneous);
    });
  const within = instructionsWithin(knl.instructions, options.within);
  const result = mapKernelExpressions(knl, rewrite, { what, within, assignee: 'none' });
  if (!found) throw new LoomError(`${what}: no reduction over ${names.map((n) => `'${n}'`).join(', ')}`);
  return result;
}

export interface MakeReductionInamesUniqueOptions extends ReductionTransformOptions {
  /** Only these inames; default: all. */
  readonly inames?: string | readonly string[];
}

/**
 * An iname reduced over by several reductions (not `simul_reduce`) keeps it in the first;
 * the others reduce over a copy with the same bounds (`i_0`, ...), so each gets a loop of its own.
 */
export function makeReductionInamesUnique(knl: LoopKernel, options: MakeReductionInamesUniqueOptions = {}): LoopKernel {
  const only = options.inames === undefined ? undefined : new Set(inameList(options.inames));
  for (const n of only ?? []) if (!knl.inames.includes(n)) throw new LoomError(`makeReductionInamesUnique: unknown iname '${n}'`);
  // rules holding reductions are written out where they are used: each use is a reduction
  knl = inlineRulesThat(knl, (rule) => hasReduction(rule.expression));
  const within = instructionsWithin(knl.instructions, options.within);
  const seen = new Map<string, number>();
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  const domains = [...knl.domains];
  // the copy joins the iname's domain with the same constraints (loopy's duplicate_axes)
  const copyOf = (iname: string): string => {
    const copy = uniqueName(iname, taken);
    taken.add(copy);
    const index = homeDomainIndex({ domains }, iname);
    const home = domains[index];
    const own = home.constraints.filter((c) => c.expr.dependsOn(iname));
    if (own.some((c) => c.expr.variables.some((v) => home.existentials.includes(v)))) {
      throw new LoomError(`makeReductionInamesUnique: the domain of '${iname}' constrains it through an existential (${home.toString()}); duplicate it by hand`);
    }
    domains[index] = home.addDims([copy]).addConstraints(own.map((c) => ({ kind: c.kind, expr: c.expr.substitute(iname, Linear.variable(copy)) })));
    return copy;
  };
  const rename = (x: Reduce): Expr => {
    const renames = new Map<string, string>();
    for (const n of x.inames) {
      const count = (seen.get(n) ?? 0) + 1;
      seen.set(n, count);
      if (count > 1 && !x.simultaneous && (!only || only.has(n))) renames.set(n, copyOf(n));
    }
    const operands = x.operands.map((o) => renameReductions(o));
    if (renames.size === 0) return reduce(x.op, x.inames, operands, x.simultaneous);
    return reduce(x.op, x.inames.map((n) => renames.get(n) ?? n), operands.map((o) => renameInExpr(o, renames)), x.simultaneous);
  };
  // outer reductions first, as they are read: the first to reduce over an iname keeps it
  const renameReductions = (e: Expr): Expr => (e.kind === 'reduce' ? rename(e) : mapChildren(e, renameReductions));
  const rewritten = mapKernelExpressions(knl, (e, insn) => (insn && within.has(insn.id) ? renameReductions(e) : e), { what: 'makeReductionInamesUnique', rules: 'keep', assignee: 'none' });
  return rewritten.with({ domains });
}

/**
 * Each reduction over exactly `inames` gets its value as a substitution rule of those
 * inames, `red_i_arg(i)` unless named (then there must be one such reduction): what
 * `precompute` can then store.
 */
export function reductionArgToSubstRule(knl: LoopKernel, inames: string | readonly string[], options: ReductionTransformOptions & { readonly ruleName?: string } = {}): LoopKernel {
  const names = inameList(inames);
  if (options.ruleName !== undefined) checkName(options.ruleName, 'reductionArgToSubstRule: option ruleName');
  const within = instructionsWithin(knl.instructions, options.within);
  const substitutions = new Map<string, SubstitutionRule>(knl.substitutions);
  const taken = new Set([...substitutions.keys(), ...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  const made: string[] = [];
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind !== 'reduce' || x.inames.length !== names.length || !names.every((n) => x.inames.includes(n))) return x;
      if (x.operands.length !== 1) throw new LoomError(`reductionArgToSubstRule: ${x.op}() reduces ${x.operands.length} values per point; a rule holds one`);
      const name = options.ruleName ?? uniqueName(`red_${names.join('_')}_arg`, taken);
      if (options.ruleName !== undefined && (made.length > 0 || taken.has(name))) throw new LoomError(`reductionArgToSubstRule: the rule '${name}' already exists`);
      taken.add(name);
      made.push(name);
      substitutions.set(name, { name, params: names, expression: x.operands[0] });
      return reduce(x.op, x.inames, [call(name, names.map((n) => variable(n)))], x.simultaneous);
    });
  const rewritten = mapKernelExpressions(knl, rewrite, { what: 'reductionArgToSubstRule', within, rules: 'keep', assignee: 'none' });
  if (made.length === 0) throw new LoomError(`reductionArgToSubstRule: no reduction over exactly ${names.map((n) => `'${n}'`).join(', ')}`);
  return rewritten.with({ substitutions });
}

/**
 * loopy's `realize_reduction`: the reductions (of the instructions in `insnIdFilter`, or all)
 * become accumulators and the instructions that fill them, as code generation would make
 * them, so that later transformations can act on those. Types must be known (the neutral
 * element depends on them): `addDtypes` first where data decides them.
 */
export function realizeReduction(knl: LoopKernel, options: RealizeReductionOptions = {}): LoopKernel {
  return realizeReductions(inferTypes(knl), options);
}

function hasReduction(e: Expr): boolean {
  return someExpr(e, (x) => x.kind === 'reduce');
}
