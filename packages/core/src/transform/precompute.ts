/**
 * `precompute(knl, 'f', ['i_inner'])`: evaluate a substitution rule over the footprint of
 * its uses into a temporary, then read the temporary where the rule was called (loopy's
 * precompute; `addPrefetch` is the same for array reads). See footprint-store.ts.
 *
 * The temporary has one axis per storage axis that the sweep moves: by default the swept
 * inames the rule's value uses without taking them as arguments (a rule `E := a[i]` swept
 * over `i` gets an axis for `i`), then the rule's arguments. Names follow loopy: the new
 * inames are named after the rule's parameters (`x` for `f(x)`, made unique) or
 * `<rule>_<iname>` for a swept iname of the value; the temporary `<rule>_0`; the store
 * instruction `<rule>`.
 *
 * Rules the rule calls stay rules, as loopy keeps them: the store calls a copy of each in
 * the store's inames (`E := a[i_inner]` becomes `E := a[D_i_inner]` once nothing else calls
 * the old `E`), so a later `precompute` of `E` finds it (rule-variants.ts). Calls of the rule
 * inside other rules count where those rules are called, and read the temporary through
 * copies of those rules (rewrite-through-rules.ts): `g(x) := f(x) + 1` becomes
 * `g(x) := f_0[x - base] + 1`, and keeps its name once nothing calls the old `g`.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError, type SourceSpan } from '../errors.ts';
import { checkName, checkNames, nameList } from '../names.ts';
import type { Call, Expr } from '../expr/nodes.ts';
import { freeVariables, mapExpr, parseExpression, printExpr, substitute, toLinear, walkScoped } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { expandSubstitutions } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { AddressSpace, LoopKernel, SubstitutionRule } from '../kernel/model.ts';
import type { DType } from '../dtypes.ts';
import { storeFootprint, type Use } from './footprint-store.ts';
import { instructionsWithin, type Within } from './match.ts';
import { renameInExpr } from '../kernel/rename.ts';
import { substituteKeepingRules } from '../kernel/rule-variants.ts';
import type { TagSpec } from './tag-inames.ts';

/** The options precompute reads; any other key is an error. */
const PRECOMPUTE_OPTIONS = optionKeys<PrecomputeOptions>()([
  'computeInsnId',
  'defaultTag',
  'dtype',
  'fetchBoundingBox',
  'fetchOuterInames',
  'precomputeInames',
  'precomputeOuterInames',
  'storageAxes',
  'storageAxisToTag',
  'temporaryAddressSpace',
  'temporaryName',
  'within',
]);

/** Options of `precompute`. */
export interface PrecomputeOptions {
  /** Only the calls in these instructions (a match expression, see match.ts) read the temporary. */
  readonly within?: Within;
  /**
   * The temporary's axes, in order: the rule's parameters (by name or position) and the
   * swept inames its value uses. Arguments left out are not stored (the sweep must not move them).
   */
  readonly storageAxes?: string | readonly (string | number)[];
  /** The temporary's name (default: made from the rule's). */
  readonly temporaryName?: string;
  /** Names of the new inames, one per storage axis; an existing iname is reused when it runs over exactly the values needed. */
  readonly precomputeInames?: string | readonly (string | undefined)[];
  /** Inames the store runs inside, besides those its footprint moves with (loopy's precompute_outer_inames). */
  readonly precomputeOuterInames?: string | readonly string[];
  /**
   * The same as `precomputeOuterInames` (Loom's earlier name for it).
   * @deprecated use `precomputeOuterInames`.
   */
  readonly fetchOuterInames?: string | readonly string[];
  /** Tags of the new inames by storage axis (parameter name, position, swept iname or given iname name). */
  readonly storageAxisToTag?: Readonly<Record<string, TagSpec>>;
  /** Tag of the new inames that `storageAxisToTag` does not tag; default: none (loops). `'l.auto'`: see addPrefetch's. */
  readonly defaultTag?: TagSpec;
  /** The temporary's dtype; default: the type of the rule's value. */
  readonly dtype?: DType;
  /** Store the whole box, not clipped to the bounds every use keeps. */
  readonly fetchBoundingBox?: boolean;
  /** Where the temporary lives; default `'auto'`, decided when the kernel is preprocessed (loopy's `AddressSpace.AUTO`). */
  readonly temporaryAddressSpace?: AddressSpace;
  /** The id of the store instruction (default: the rule's name). */
  readonly computeInsnId?: string;
}

/**
 * `subst`: the rule's name, or calls of it (`'f(i_inner, j)'`, a list) whose footprint over
 * the sweep is what is stored; then only the calls inside that footprint read the temporary.
 */
export function precompute(
  knl: LoopKernel,
  subst: string | readonly string[],
  sweep: string | readonly string[] = [],
  options: PrecomputeOptions = {},
): LoopKernel {
  checkOptionKeys('precompute', options, PRECOMPUTE_OPTIONS);
  checkOptionNames(options);
  const { ruleName, generators } = parseUse(knl, subst);
  const rule = knl.substitutions.get(ruleName);
  if (!rule)
    throw new LoomError(
      `precompute: no substitution rule '${ruleName}' (rules: ${[...knl.substitutions.keys()].join(', ') || 'none'})`,
    );
  if (options.fetchOuterInames !== undefined && options.precomputeOuterInames !== undefined) {
    throw new LoomError('precompute: give precomputeOuterInames or fetchOuterInames (the same option), not both');
  }
  const swept = list(sweep);
  const chosen = instructionsWithin(knl, options.within, 'precompute: option within', options.within !== undefined);

  // the value, with the rules it calls written out and its parameters renamed apart from them
  const apart = rule.params.map((_, k) => `__${ruleName}_parameter_${k}`);
  const own = renameInExpr(rule.expression, new Map(rule.params.map((p, k) => [p, apart[k]])));
  const body = expandSubstitutions(own, knl.substitutions);
  const inames = new Set(knl.inames);
  const direct = swept.filter((n) => freeVariables(body).has(n) && inames.has(n));
  const axes = storageOrder(rule, direct, options.storageAxes);

  // calls inside other rules count where those rules are called: seen with the others written out
  const others = new Map([...knl.substitutions].filter(([name]) => name !== ruleName));
  const uses: Use[] = [];
  for (const insn of knl.instructions) {
    if (!chosen.has(insn.id)) continue;
    for (const e of [insn.expression, ...insn.predicates]) {
      if (!e) continue;
      walkScoped(expandSubstitutions(e, others), (x, bound) => {
        if (x.kind === 'call' && x.fn === ruleName)
          uses.push({ instruction: insn, reductionInames: bound, args: useArgs(x, axes, insn.span) });
      });
    }
  }
  if (uses.length === 0)
    throw new LoomError(
      `precompute: the rule '${ruleName}' is never used${options.within === undefined ? '' : ' in the instructions within'}`,
    );
  const footprint = generators?.map((g): Use => {
    const named = [...new Set(g.args.flatMap((a) => [...freeVariables(a)]))].filter((n) => inames.has(n));
    return {
      instruction: uses[0].instruction,
      reductionInames: [],
      args: useArgs(g, axes),
      points: domainOf(knl, named),
    };
  });

  const named =
    typeof options.precomputeInames === 'string' ? list(options.precomputeInames) : options.precomputeInames;
  const names = axes.map((_, k) => named?.[k]);
  const tags = options.storageAxisToTag ?? {};
  // the store runs inside the loops its value names that it does not sweep (E := a[i] swept over i_inner names i_outer)
  const valueInames = [...freeVariables(body)].filter((n) => inames.has(n) && !swept.includes(n));
  const given = options.precomputeOuterInames ?? options.fetchOuterInames;
  const outer =
    given === undefined
      ? valueInames.length
        ? valueInames
        : undefined
      : [...new Set([...list(given), ...valueInames])];
  const axisValues = (args: readonly Expr[]) =>
    new Map(axes.map((a, k) => [a.kind === 'param' ? apart[a.index] : a.iname, args[k]] as const));
  return storeFootprint(knl, {
    what: 'precompute',
    // calls inside other rules read the temporary through copies of those rules, which stay (as in loopy)
    throughRules: true,
    base: ruleName,
    uses,
    footprint,
    sweep: swept,
    fetchOuterInames: outer,
    temporaryName: options.temporaryName,
    defaultTemporaryName: `${ruleName}_0`,
    axisNames: names,
    defaultAxisName: (k) => (axes[k].kind === 'param' ? rule.params[axes[k].index] : `${ruleName}_${axes[k].iname}`),
    storeId: options.computeInsnId,
    defaultStoreId: ruleName,
    defaultTag: options.defaultTag,
    axisTag: (k) => {
      const a = axes[k];
      const keys = [
        names[k],
        a.kind === 'param' ? rule.params[a.index] : a.iname,
        a.kind === 'param' ? String(a.index) : undefined,
      ];
      const key = keys.find((x) => x !== undefined && x in tags);
      return key === undefined ? undefined : tags[key];
    },
    unstored: (k) =>
      axes[k].stored ? undefined : `storageAxes leaves out ${describe(rule, axes[k])}, which the sweep moves: list it`,
    addressSpace: options.temporaryAddressSpace,
    dtype: options.dtype,
    boundingBox: options.fetchBoundingBox,
    value: (args) => substitute(body, axisValues(args)),
    keptValue: (args, taken) => substituteKeepingRules(own, axisValues(args), knl.substitutions, taken),
    rewrite: (e, read) =>
      mapExpr(e, (x) => {
        if (x.kind !== 'call' || x.fn !== ruleName) return x;
        return read(useArgs(x, axes)) ?? x;
      }),
  });
}

/** A storage axis: a parameter of the rule, or a swept iname its value uses. */
type Axis =
  | { readonly kind: 'param'; readonly index: number; readonly stored: boolean }
  | { readonly kind: 'iname'; readonly iname: string; readonly stored: boolean };

function storageOrder(
  rule: SubstitutionRule,
  direct: readonly string[],
  storageAxes: PrecomputeOptions['storageAxes'],
): Axis[] {
  const all: Axis[] = [
    ...direct.map((iname): Axis => ({ kind: 'iname', iname, stored: true })),
    ...rule.params.map((_, index): Axis => ({ kind: 'param', index, stored: true })),
  ];
  if (storageAxes === undefined) return all;
  const wanted = typeof storageAxes === 'string' ? list(storageAxes) : storageAxes;
  const picked = wanted.map((w) => {
    const k =
      typeof w === 'number'
        ? all.findIndex((a) => a.kind === 'param' && a.index === w)
        : all.findIndex((a) => (a.kind === 'param' ? rule.params[a.index] === w : a.iname === w));
    if (k < 0)
      throw new LoomError(
        `precompute: storage axis '${w}' is neither a parameter of '${rule.name}' (${rule.params.join(', ') || 'none'}) nor a swept iname its value uses (${direct.join(', ') || 'none'})`,
      );
    return all[k];
  });
  if (new Set(picked).size !== picked.length)
    throw new LoomError(`precompute: a storage axis is listed twice in '${wanted.join(', ')}'`);
  const missing = all.filter((a) => !picked.includes(a));
  const iname = missing.find((a) => a.kind === 'iname');
  if (iname)
    throw new LoomError(
      `precompute: storageAxes must list ${describe(rule, iname)}: the rule's value uses it and it is swept`,
    );
  return [...picked, ...missing.map((a) => ({ ...a, stored: false }))];
}

function describe(rule: SubstitutionRule, a: Axis): string {
  return a.kind === 'param' ? `parameter '${rule.params[a.index]}'` : `the swept iname '${a.iname}'`;
}

/** A call's arguments in storage-axis order, affine. */
function useArgs(x: Call, axes: readonly Axis[], span?: SourceSpan): Linear[] {
  return axes.map((a) => {
    if (a.kind === 'iname') return Linear.variable(a.iname);
    const arg = x.args[a.index];
    if (arg === undefined)
      throw new LoomError(`precompute: '${x.fn}' is called with ${x.args.length} argument(s), but takes more`, span);
    const lin = toLinear(arg);
    if (!lin)
      throw new LoomError(`precompute: argument ${a.index} of '${x.fn}' ('${printExpr(arg)}') is not affine`, span);
    return lin;
  });
}

/** The rule's name, and the calls that give the footprint when the caller gave calls. */
function parseUse(knl: LoopKernel, subst: string | readonly string[]): { ruleName: string; generators?: Call[] } {
  const texts = typeof subst === 'string' ? [subst] : subst;
  if (texts.length === 0) throw new LoomError('precompute: no rule given');
  if (texts.length === 1 && /^\s*[A-Za-z_]\w*\s*$/.test(texts[0])) return { ruleName: texts[0].trim() };
  const calls = texts.map((t) => {
    const e = parseExpression(t);
    if (e.kind !== 'call') throw new LoomError(`precompute: '${t}' is neither a rule's name nor a call of a rule`);
    return e;
  });
  const names = new Set(calls.map((c) => c.fn));
  if (names.size !== 1)
    throw new LoomError(`precompute: the calls given call different rules (${[...names].join(', ')})`);
  const ruleName = calls[0].fn;
  const rule = knl.substitutions.get(ruleName);
  for (const c of calls) {
    if (rule && c.args.length !== rule.params.length)
      throw new LoomError(
        `precompute: '${printExpr(c)}' gives ${c.args.length} argument(s); '${ruleName}' takes ${rule.params.length}`,
      );
  }
  return { ruleName, generators: calls };
}

function checkOptionNames(options: PrecomputeOptions): void {
  if (options.temporaryName !== undefined) checkName(options.temporaryName, 'precompute: option temporaryName');
  const inames =
    typeof options.precomputeInames === 'string' ? list(options.precomputeInames) : options.precomputeInames;
  if (inames !== undefined)
    checkNames(
      inames.filter((n) => n !== undefined),
      'precompute: option precomputeInames',
    );
  if (options.computeInsnId !== undefined) checkName(options.computeInsnId, 'precompute: option computeInsnId');
}

function list(x: string | readonly string[]): string[] {
  return nameList(x);
}
