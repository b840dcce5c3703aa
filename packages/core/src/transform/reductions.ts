/**
 * Transformations of reductions (loopy's `reduction_arg_to_subst_rule`, `realize_reduction`;
 * the iname-level ones, `split_reduction_inward/outward` and `make_reduction_inames_unique`,
 * are in reduction-inames.ts):
 *
 *   reductionArgToSubstRule(knl, 'i') sum(i, e)  →  red_i_arg(i) := e; sum(i, red_i_arg(i))
 *   realizeReduction(knl)             the reductions become instructions now (types must be known)
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName, nameList } from '../names.ts';
import { mapExpr } from '../expr/index.ts';
import { call, reduce, variable, type Expr } from '../expr/nodes.ts';
import { instructionsWithin, type Within } from './match.ts';
import type { LoopKernel, SubstitutionRule } from '../kernel/model.ts';
import { realizeReductions, type RealizeReductionOptions } from '../preprocess/realize-reductions.ts';
import { inferTypes } from '../preprocess/infer-types.ts';
import { uniqueName } from '../kernel/rename.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** The options reductionArgToSubstRule reads; any other key is an error. */
const REDUCTION_ARG_TO_SUBST_RULE_OPTIONS = optionKeys<ReductionTransformOptions & { readonly ruleName?: string }>()([
  'ruleName',
  'within',
]);

/** The options realizeReduction reads; any other key is an error. */
const REALIZE_REDUCTION_OPTIONS = optionKeys<RealizeReductionOptions>()([
  'automagicScansOk',
  'forceOuterInameForScan',
  'forceScan',
  'insnIdFilter',
]);

/** Options of `reductionArgToSubstRule`: which instructions it changes. */
export interface ReductionTransformOptions {
  /** The instructions to change, in loopy's match language (`'id:a*'`, `'writes:out'`); default: every instruction. */
  readonly within?: Within;
}

/**
 * Each reduction over exactly `inames` gets its value as a substitution rule of those
 * inames, `red_i_arg(i)` unless named (then there must be one such reduction): what
 * `precompute` can then store.
 * @param options.ruleName the rule's name (then there must be one such reduction)
 */
export function reductionArgToSubstRule(
  knl: LoopKernel,
  inames: string | readonly string[],
  options: ReductionTransformOptions & { readonly ruleName?: string } = {},
): LoopKernel {
  checkOptionKeys('reductionArgToSubstRule', options, REDUCTION_ARG_TO_SUBST_RULE_OPTIONS);
  const names = nameList(inames);
  if (options.ruleName !== undefined) checkName(options.ruleName, 'reductionArgToSubstRule: option ruleName');
  const within = instructionsWithin(
    knl,
    options.within,
    'reductionArgToSubstRule: option within',
    options.within !== undefined,
  );
  const substitutions = new Map<string, SubstitutionRule>(knl.substitutions);
  const taken = new Set([
    ...substitutions.keys(),
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
  ]);
  const made: string[] = [];
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind !== 'reduce' || x.inames.length !== names.length || !names.every((n) => x.inames.includes(n)))
        return x;
      if (x.operands.length !== 1)
        throw new LoomError(
          `reductionArgToSubstRule: ${x.op}() reduces ${x.operands.length} values per point; a rule holds one`,
        );
      const name = options.ruleName ?? uniqueName(`red_${names.join('_')}_arg`, taken);
      if (options.ruleName !== undefined && (made.length > 0 || taken.has(name)))
        throw new LoomError(`reductionArgToSubstRule: the rule '${name}' already exists`);
      taken.add(name);
      made.push(name);
      substitutions.set(name, { name, params: names, expression: x.operands[0] });
      return reduce(
        x.op,
        x.inames,
        [
          call(
            name,
            names.map((n) => variable(n)),
          ),
        ],
        x.simultaneous,
      );
    });
  const rewritten = mapKernelExpressions(knl, rewrite, {
    what: 'reductionArgToSubstRule',
    within,
    rules: 'keep',
    assignee: 'none',
  });
  if (made.length === 0)
    throw new LoomError(`reductionArgToSubstRule: no reduction over exactly ${names.map((n) => `'${n}'`).join(', ')}`);
  return rewritten.with({ substitutions });
}

/**
 * loopy's `realize_reduction`: the reductions (of the instructions in `insnIdFilter`, or all)
 * become accumulators and the instructions that fill them, as code generation would make
 * them, so that later transformations can act on those. Types must be known (the neutral
 * element depends on them): `addDtypes` first where data decides them.
 */
export function realizeReduction(knl: LoopKernel, options: RealizeReductionOptions = {}): LoopKernel {
  checkOptionKeys('realizeReduction', options, REALIZE_REDUCTION_OPTIONS);
  return realizeReductions(inferTypes(knl), options);
}
