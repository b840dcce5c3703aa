/**
 * The engine behind `addPrefetch` and `precompute`: store the values that a set of
 * uses (array reads, substitution-rule calls) takes while the swept inames run,
 * in a temporary computed up front, and make the uses read the temporary.
 *
 * Along each argument the footprint is `[base, base + extent)`: `base` is affine in
 * the inames that are not swept, `extent` a constant. Arguments the swept inames do
 * not move are passed through unchanged (no axis in the temporary). The store runs
 * inside the fixed inames and `fetchOuterInames`, which may include swept ones.
 */
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { add, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { fromLinear, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, staticMax, staticMin, type Constraint } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import type { AddressSpace, Instruction, LoopKernel } from '../kernel/model.ts';
import type { DType } from '../dtypes.ts';
import { tagInames, type TagSpec } from './tag-inames.ts';
import { uniqueName } from './rename.ts';
import { mapKernelExpressions } from './rewrite-expressions.ts';

/** One use: where it is, and its arguments (array indices or rule arguments), affine. */
export interface Use {
  readonly instruction: Instruction;
  readonly args: readonly Linear[];
  readonly reductionInames: readonly string[];
}

export interface FootprintStore {
  /** Transformation name, for messages. */
  readonly what: string;
  /** Base name for the temporary, fetch inames and instruction (`a` → `a_fetch`, `a_dim_0`, `a_fetch_rule`). */
  readonly base: string;
  readonly tempSuffix: string;
  readonly uses: readonly Use[];
  readonly sweep: readonly string[];
  readonly fetchOuterInames?: readonly string[];
  readonly temporaryName?: string;
  readonly dimNames?: readonly string[];
  /** The id of the store instruction (default `<temporary>_rule`). */
  readonly storeId?: string;
  readonly defaultTag?: TagSpec;
  readonly addressSpace?: AddressSpace;
  readonly dtype?: DType;
  /** Valid argument values along an axis are below this (clips the stored box to an array). */
  readonly limit?: (axis: number) => Linear | undefined;
  /** The value to store for these arguments. */
  readonly value: (args: readonly Expr[]) => Expr;
  /** Rewrites an instruction's expression so its uses read the temporary through `read`. */
  readonly rewrite: (e: Expr, read: (args: readonly Linear[]) => Expr) => Expr;
}

export function storeFootprint(knl: LoopKernel, spec: FootprintStore): LoopKernel {
  const { uses, what } = spec;
  if (uses.length === 0) throw new LoomError(`${what}: nothing to store: '${spec.base}' is never used`);
  for (const n of spec.sweep) if (!knl.inames.includes(n)) throw new LoomError(`${what}: unknown iname '${n}' to sweep (inames: ${knl.inames.join(', ')})`);
  const rank = uses[0].args.length;
  if (uses.some((u) => u.args.length !== rank)) throw new LoomError(`${what}: '${spec.base}' is used with different numbers of arguments`);
  for (const n of spec.fetchOuterInames ?? []) if (!knl.inames.includes(n)) throw new LoomError(`${what}: unknown iname '${n}' in fetchOuterInames (inames: ${knl.inames.join(', ')})`);
  const inames = new Set(knl.inames);
  // The footprint is taken with the swept inames running and every other iname fixed.
  // An iname may be both swept and an outer loop of the store (loopy's test_rank_one
  // fetches `b` over `j_inner` inside the local loop `j_inner`): the storage must still
  // cover the whole sweep, because all work-items along `j_inner` share it; each of
  // them then stores the whole footprint (the same values), none stores only its own.
  const fixed = [...new Set([
    ...uses.flatMap((u) => u.args.flatMap((l) => l.variables.filter((v) => inames.has(v)))),
    ...(spec.fetchOuterInames ?? []),
  ])].filter((n) => !spec.sweep.includes(n));
  const axes = Array.from({ length: rank }, (_, d) => axisFootprint(knl, spec, d, fixed));
  // The store runs inside the fixed inames its box moves with, and fetchOuterInames. A fixed
  // iname the box does not move with (its range fits in the box) would only repeat the
  // store: across work-items (i_inner on l.0) each would write the same cells at once.
  const storeWithin = new Set([...fixed.filter((n) => axes.some((a) => a.base.dependsOn(n))), ...(spec.fetchOuterInames ?? [])]);
  const stored = axes.map((a, d) => ({ ...a, axis: d })).filter((a) => a.extent !== undefined);
  if (spec.addressSpace === 'local') checkSharedBox(knl, spec, axes, fixed);
  checkBaseInScope(spec, stored, inames);

  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys(), ...knl.instructions.map((i) => i.id)]);
  if (spec.temporaryName !== undefined) checkName(spec.temporaryName, `${what}: the temporary's name`);
  const tempName = spec.temporaryName ?? uniqueName(`${spec.base}_${spec.tempSuffix}`, taken);
  if (spec.temporaryName && taken.has(tempName)) throw new LoomError(`${what}: the name '${tempName}' is already used`);
  taken.add(tempName);
  const dimNames = stored.map((f, k) => {
    const given = spec.dimNames?.[k];
    const wanted = given === undefined ? uniqueName(`${spec.base}_dim_${f.axis}`, taken) : checkName(given, `${what}: the name of a new iname`);
    if (knl.inames.includes(wanted)) throw new LoomError(`${what}: the iname name '${wanted}' is already used`);
    taken.add(wanted);
    return wanted;
  });
  if (spec.storeId !== undefined) checkName(spec.storeId, `${what}: the store instruction's id`);
  if (spec.storeId !== undefined && taken.has(spec.storeId)) throw new LoomError(`${what}: the instruction id '${spec.storeId}' is already used`);
  const storeId = spec.storeId ?? uniqueName(`${tempName}_rule`, taken);

  // the stored inames' domain: the footprint box (clipped to valid arguments)
  const constraints: Constraint[] = [];
  stored.forEach((f, k) => {
    const v = Linear.variable(dimNames[k]);
    constraints.push({ kind: 'ge', expr: v }, { kind: 'ge', expr: Linear.constant(f.extent! - 1).sub(v) });
    const at = f.base.add(v);
    for (const lo of f.lower ?? []) constraints.push({ kind: 'ge', expr: at.sub(lo) });
    for (const hi of f.upper ?? []) constraints.push({ kind: 'ge', expr: hi.sub(at) });
    const limit = spec.limit?.(f.axis);
    if (limit) constraints.push({ kind: 'ge', expr: at }, { kind: 'ge', expr: limit.sub(1).sub(at) });
  });
  const domain = BasicSet.fromConstraints([], dimNames, constraints);

  const args = axes.map((a, d) => {
    const k = stored.findIndex((f) => f.axis === d);
    return tidy(k < 0 ? fromLinear(a.base) : add(fromLinear(a.base), variable(dimNames[k])));
  });
  const store: Instruction = {
    kind: 'assign',
    id: storeId,
    assignees: [stored.length ? subscript(tempName, dimNames.map((n) => variable(n))) : variable(tempName)],
    expression: spec.value(args),
    withinInames: [...knl.inames.filter((n) => storeWithin.has(n)), ...dimNames],
    dependsOn: [],
    noSyncWith: [],
    priority: 0,
    predicates: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };

  const read = (useArgs: readonly Linear[]): Expr =>
    stored.length ? subscript(tempName, stored.map((f) => tidy(fromLinear(useArgs[f.axis].sub(f.base))))) : variable(tempName);
  const users = new Set(uses.map((u) => u.instruction.id));
  // A global temporary is written by every work-group and read by any: as loopy does, the
  // readers wait at a global barrier (which ends the device kernel) named after the store.
  const barrier: Instruction | undefined = spec.addressSpace === 'global'
    ? { ...store, kind: 'barrier', id: uniqueName(`${spec.base}_barrier`, new Set([...taken, storeId])), assignees: [], expression: undefined, barrierScope: 'global', withinInames: [], dependsOn: [storeId] }
    : undefined;
  const waitFor = barrier?.id ?? storeId;
  // the rules concerned were inlined into the users (inlineRulesThat), each call its own footprint
  const rewritten = mapKernelExpressions(knl, (e) => spec.rewrite(e, read), { what, within: users, rules: 'keep', assignee: 'none' });
  const instructions = rewritten.instructions.map((insn) => (users.has(insn.id) ? { ...insn, dependsOn: [...insn.dependsOn, waitFor] } : insn));
  const temporaries = new Map(knl.temporaries);
  temporaries.set(tempName, { name: tempName, dtype: spec.dtype, shape: stored.map((f) => int(f.extent!)), addressSpace: spec.addressSpace ?? 'auto' });
  let result = knl.with({ domains: [...knl.domains, domain], instructions: [store, ...(barrier ? [barrier] : []), ...instructions], temporaries });
  if (spec.defaultTag !== undefined && spec.defaultTag !== null && dimNames.length) {
    const auto = spec.defaultTag === 'l.auto' || spec.defaultTag === 'unused.l';
    // the last axis moves fastest in memory: local axis 0 lets neighbouring work-items read neighbouring words
    const order = auto ? [...dimNames].reverse() : dimNames;
    // l.auto skips the local axes the store already runs on (fetchOuterInames): two inames
    // of one instruction on one axis would be the same index
    const taken = new Set([...storeWithin].map((n) => knl.inameTags.get(n)).filter((t) => t?.kind === 'local').map((t) => (t as { axis: number }).axis));
    const free = [0, 1, 2].filter((a) => !taken.has(a));
    if (spec.defaultTag === 'l.auto' && taken.size && free.length < order.length) {
      throw new LoomError(`${what}: no local axis is left for ${order.length} fetch iname(s): the store already runs on l.${[...taken].join(', l.')}`);
    }
    const tagOf = (k: number) => (spec.defaultTag === 'l.auto' && taken.size ? `l.${free[k]}` : spec.defaultTag);
    result = tagInames(result, order.map((dim, k) => [dim, tagOf(k)] as const));
  }
  return result;
}

/**
 * Local memory is shared by the work-items of a group: a box that moves with a local
 * iname the store runs in (not swept) would be a different box for each work-item,
 * all written into the same cells at once.
 */
function checkSharedBox(knl: LoopKernel, spec: FootprintStore, axes: readonly AxisFootprint[], fixed: readonly string[]): void {
  const local = fixed.filter((n) => knl.inameTags.get(n)?.kind === 'local');
  const moving = local.filter((n) => axes.some((a) => a.base.dependsOn(n)));
  if (moving.length === 0) return;
  throw new LoomError(
    `${spec.what}: the local temporary for '${spec.base}' would hold a different part for each work-item along the local iname(s) '${moving.join("', '")}', ` +
      `all written into the same cells; sweep '${moving.join("', '")}' too (the storage then covers them) or leave the temporary private`,
  );
}

/**
 * A use reads the stored box at its own argument minus the box's base, so the base must be
 * known where the use is: affine in inames the use runs in. Uses in different loop nests
 * (a rule's precomputation inside 'f_dim_0' and an instruction outside it) would otherwise
 * give a base in an iname that the other use has no value of.
 */
function checkBaseInScope(spec: FootprintStore, stored: readonly (AxisFootprint & { axis: number })[], inames: ReadonlySet<string>): void {
  for (const use of spec.uses) {
    const inScope = new Set([...use.instruction.withinInames, ...use.reductionInames]);
    const outside = [...new Set(stored.flatMap((f) => f.base.variables.filter((v) => inames.has(v) && !inScope.has(v))))];
    if (outside.length === 0) continue;
    throw new LoomError(
      `${spec.what}: the footprint of '${spec.base}' starts at a place that depends on '${outside.join("', '")}', which instruction '${use.instruction.id}' is not inside; ` +
        `store the uses in each loop nest separately (option within) or sweep '${outside.join("', '")}' too`,
      use.instruction.span,
    );
  }
}

interface AxisFootprint {
  readonly base: Linear;
  /** Undefined when the swept inames do not move this argument. */
  readonly extent?: number;
  /** Affine bounds (in the fixed inames) that every use's argument keeps: they clip the box. */
  readonly lower?: readonly Linear[];
  readonly upper?: readonly Linear[];
}

function axisFootprint(knl: LoopKernel, spec: FootprintStore, axis: number, fixed: readonly string[]): AxisFootprint {
  const args = spec.uses.map((u) => u.args[axis]);
  const moves = args.some((l) => spec.sweep.some((s) => l.dependsOn(s)));
  if (!moves && args.every((l) => l.equals(args[0]))) return { base: args[0] };
  const terms = spec.uses.map((u, k) => ({
    set: domainOf(knl, [...new Set([...u.instruction.withinInames, ...u.reductionInames, ...fixed])]),
    expr: args[k],
  }));
  const base = staticMin(terms, knl.assumptions, fixed);
  const spread = staticMax(terms.map((t) => ({ set: t.set, expr: t.expr.sub(base) })), knl.assumptions);
  if (!spread.isConstant) {
    throw new LoomError(`${spec.what}: the footprint of '${spec.base}' along axis ${axis} does not have a constant size (${spread.add(1).toString()}); sweep fewer inames or split them`);
  }
  return { base, extent: spread.constant + 1, lower: commonBounds(terms, fixed, 'lower'), upper: commonBounds(terms, fixed, 'upper') };
}

/**
 * Bounds of the argument, from any use, that hold for every use: the stored box is
 * cut down to them, so nothing is computed where no use will look (at the end of
 * the data, the last group's box would otherwise run past the array).
 */
function commonBounds(terms: readonly { set: BasicSet; expr: Linear }[], outer: readonly string[], side: 'lower' | 'upper'): Linear[] {
  const v = '__footprint_value';
  const candidates: Linear[] = [];
  for (const t of terms) {
    const withV = t.set.addDims([v]).addConstraints([{ kind: 'eq', expr: Linear.variable(v).sub(t.expr) }]);
    for (const b of side === 'upper' ? withV.upperBounds(v, outer) : withV.lowerBounds(v, outer)) {
      if (b.divisor === 1 && !candidates.some((c) => c.equals(b.expr))) candidates.push(b.expr);
    }
  }
  return candidates.filter((c) => terms.every((t) => t.set.implies({ kind: 'ge', expr: side === 'upper' ? c.sub(t.expr) : t.expr.sub(c) })));
}

/** `x + 0` and friends, from adding a zero base. */
export function tidy(e: Expr): Expr {
  const lin = toLinear(e);
  return lin ? fromLinear(lin) : e;
}
