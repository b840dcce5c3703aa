/**
 * `precompute(knl, 'rule', ['i_inner'])`: evaluate a substitution rule over the
 * footprint of its uses into a temporary, then read the temporary where the rule was
 * called (loopy's precompute; `addPrefetch` is the same for array reads).
 */
import { LoomError } from '../errors.ts';
import { checkName, checkNames } from '../names.ts';
import type { Expr } from '../expr/nodes.ts';
import { mapExpr, printExpr, someExpr, substitute, toLinear, walkScoped } from '../expr/index.ts';
import type { AddressSpace, LoopKernel } from '../kernel/model.ts';
import { storeFootprint, type Use } from './footprint.ts';
import { inlineRulesThat } from './rewrite-expressions.ts';
import type { TagSpec } from './tag-inames.ts';

export interface PrecomputeOptions {
  readonly defaultTag?: TagSpec;
  readonly fetchOuterInames?: readonly string[];
  readonly temporaryName?: string;
  readonly temporaryAddressSpace?: AddressSpace;
  /** Names of the new inames (loopy's precompute_inames). */
  readonly precomputeInames?: readonly string[];
}

export function precompute(knl: LoopKernel, ruleName: string, sweep: string | readonly string[] = [], options: PrecomputeOptions = {}): LoopKernel {
  if (options.temporaryName !== undefined) checkName(options.temporaryName, 'precompute: option temporaryName');
  if (options.precomputeInames !== undefined) checkNames(options.precomputeInames, 'precompute: option precomputeInames');
  const rule = knl.substitutions.get(ruleName);
  if (!rule) throw new LoomError(`precompute: no substitution rule '${ruleName}' (rules: ${[...knl.substitutions.keys()].join(', ') || 'none'})`);
  // calls inside other rules become calls in the instructions that use those rules
  knl = inlineRulesThat(knl, (other) => other.name !== ruleName && callsRule(other.expression, ruleName));
  const swept = typeof sweep === 'string' ? sweep.split(',').map((s) => s.trim()).filter(Boolean) : [...sweep];
  const uses: Use[] = [];
  for (const insn of knl.instructions) {
    for (const e of [insn.expression, ...insn.predicates]) {
      if (!e) continue;
      forEachCall(e, ruleName, (args, reductionInames) => {
        uses.push({
          instruction: insn,
          reductionInames,
          args: args.map((a, k) => {
            const lin = toLinear(a);
            if (!lin) throw new LoomError(`precompute: argument ${k} of '${ruleName}' ('${printExpr(a)}') is not affine`, insn.span);
            return lin;
          }),
        });
      });
    }
  }
  if (uses.length === 0) throw new LoomError(`precompute: the rule '${ruleName}' is never used`);
  return storeFootprint(knl, {
    what: 'precompute',
    base: ruleName,
    tempSuffix: '0',
    uses,
    sweep: swept,
    fetchOuterInames: options.fetchOuterInames,
    temporaryName: options.temporaryName,
    dimNames: options.precomputeInames,
    defaultTag: options.defaultTag,
    addressSpace: options.temporaryAddressSpace,
    value: (args) => substitute(rule.expression, new Map(rule.params.map((p, k) => [p, args[k]]))),
    rewrite: (e, read) =>
      mapExpr(e, (x) => (x.kind === 'call' && x.fn === ruleName ? read(x.args.map((a) => toLinear(a)!)) : x)),
  });
}

/** Calls `visit` for every call of `fn` in `e`, with the reduction inames around it. */
function forEachCall(e: Expr, fn: string, visit: (args: readonly Expr[], reductionInames: readonly string[]) => void): void {
  walkScoped(e, (x, bound) => {
    if (x.kind === 'call' && x.fn === fn) visit(x.args, bound);
  });
}

function callsRule(e: Expr, fn: string): boolean {
  return someExpr(e, (x) => x.kind === 'call' && x.fn === fn);
}
