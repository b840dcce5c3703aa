/**
 * The engine behind `addPrefetch` and `precompute`: store the values that a set of uses
 * takes over its footprint (footprint.ts) in a temporary computed up front, and make the
 * uses read the temporary.
 *
 * The store runs inside the fixed inames its box moves with and `fetchOuterInames`, which
 * may include swept ones, and over one new iname per stored axis (or an existing iname
 * over exactly the values needed). It waits for what its value reads that the uses waited
 * for, and for the last global barrier before them; the uses wait for it.
 */
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { add, subscript, variable, type Expr } from '../expr/nodes.ts';
import { arraysAccessed, freeVariables, fromLinear, printExpr, substitute, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { domainOf, parentInames } from '../kernel/domains.ts';
import { namesWritten } from '../kernel/accesses.ts';
import { prerequisiteClosure } from '../kernel/dependencies.ts';
import { isParallelTag, type AddressSpace, type Instruction, type LoopKernel } from '../kernel/model.ts';
import type { DType } from '../dtypes.ts';
import { tagInames, type TagSpec } from './tag-inames.ts';
import { assignAutomaticAxes } from './automatic-axes.ts';
import { prioritizeLoops } from './basic.ts';
import { uniqueName } from '../kernel/rename.ts';
import { rebaseCoupledReductions } from './footprint-reductions.ts';
import { footprintBarriers } from './footprint-barriers.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { rulesStillCalled } from './substitutions.ts';
import { finishRuleVariants, type RuleVariants } from '../kernel/rule-variants.ts';
import { rewriteThroughRules } from '../kernel/rewrite-through-rules.ts';
import {
  boxSize,
  checkBaseInScope,
  checkSharedBox,
  fixedInames,
  footprintAxes,
  insideBox,
  lastOffsetBound,
  type AxisFootprint,
  type FootprintQuestion,
  type Use,
} from './footprint.ts';

export type { Use } from './footprint.ts';

export interface FootprintStore {
  /** Transformation name, for messages. */
  readonly what: string;
  /** What is stored (`a`, or the rule `f`), for messages. */
  readonly base: string;
  /** The uses to redirect to the temporary. */
  readonly uses: readonly Use[];
  /** The uses that define the box, when not `uses` (a footprint the caller gave): uses outside it stay. */
  readonly footprint?: readonly Use[];
  /** Inames swept (each must exist). */
  readonly sweep: readonly string[];
  /** The caller's own sweep variables of `footprint` (`a[:, j]`'s whole axis): not inames. */
  readonly extraSweep?: readonly string[];
  readonly fetchOuterInames?: readonly string[];
  readonly temporaryName?: string;
  readonly defaultTemporaryName: string;
  /** Per argument: the name of its iname, given (may be an existing iname over exactly its values). */
  readonly axisNames?: readonly (string | undefined)[];
  /** Per argument: the name when none is given (made unique). */
  readonly defaultAxisName: (axis: number) => string;
  /** The id of the store instruction, given, or its default (made unique). */
  readonly storeId?: string;
  readonly defaultStoreId: string;
  readonly defaultTag?: TagSpec;
  /** The tag of the rounds (`<name>_outer`) that `l.auto` leaves where an iname is longer than its axis; default: loops. */
  readonly roundTag?: TagSpec;
  /** Per argument: a tag for its iname instead of `defaultTag`. */
  readonly axisTag?: (axis: number) => TagSpec | undefined;
  /** Arguments that must not be stored (precompute's storageAxes leaves them out), with the reason. */
  readonly unstored?: (axis: number) => string | undefined;
  readonly addressSpace?: AddressSpace;
  readonly dtype?: DType;
  readonly boundingBox?: boolean;
  /** Valid argument values along an axis are below this (clips the stored box to an array). */
  readonly limit?: (axis: number) => Linear | undefined;
  /** The value to store for these arguments, with the rules it calls written out (what the checks read). */
  readonly value: (args: readonly Expr[]) => Expr;
  /**
   * The same value as the store writes it, calling copies of the rules that `value` writes
   * out (precompute keeps them, as loopy does: rule-variants.ts); new rule names avoid
   * `taken`. Default: `value`.
   */
  readonly keptValue?: (args: readonly Expr[], taken: Set<string>) => RuleVariants;
  /**
   * The uses may lie in the bodies of rules the instructions call: the rewrite follows the
   * calls into copies of those rules (rewrite-through-rules.ts) and the rules stay, as
   * loopy's add_prefetch leaves them. Otherwise the caller has written them out.
   */
  readonly throughRules?: boolean;
  /**
   * Rewrites an instruction's expression so that its uses read the temporary: `read` gives
   * the temporary's element for a use's arguments, or undefined for a use left outside.
   */
  readonly rewrite: (e: Expr, read: (args: readonly Linear[]) => Expr | undefined) => Expr;
}

interface StoredAxis extends AxisFootprint {
  readonly axis: number;
  readonly extent: Linear;
  readonly iname: string;
  readonly existing: boolean;
}

export function storeFootprint(knl: LoopKernel, spec: FootprintStore): LoopKernel {
  const { uses, what } = spec;
  if (uses.length === 0) throw new LoomError(`${what}: nothing to store: '${spec.base}' is never used`);
  for (const n of spec.sweep)
    if (!knl.inames.includes(n))
      throw new LoomError(`${what}: unknown iname '${n}' to sweep (inames: ${knl.inames.join(', ')})`);
  for (const n of spec.fetchOuterInames ?? [])
    if (!knl.inames.includes(n))
      throw new LoomError(
        `${what}: unknown iname '${n}' in ${what === 'addPrefetch' ? 'fetchOuterInames' : 'precomputeOuterInames'} (inames: ${knl.inames.join(', ')})`,
      );
  const generators = spec.footprint ?? uses;
  // An iname may be both swept and an outer loop of the store (loopy's test_rank_one
  // fetches `b` over `j_inner` inside the local loop `j_inner`): the storage must still
  // cover the whole sweep, because all work-items along `j_inner` share it; each of
  // them then stores the whole footprint (the same values), none stores only its own.
  const question: FootprintQuestion = {
    what,
    base: spec.base,
    uses: generators,
    sweep: [...spec.sweep, ...(spec.extraSweep ?? [])],
    outer: spec.fetchOuterInames ?? [],
    boundingBox: spec.boundingBox,
    global: spec.addressSpace === 'global',
  };
  const fixed = fixedInames(knl, { ...question, uses: [...generators, ...uses] });
  const axes = footprintAxes(knl, question, fixed);
  if (uses[0].args.length !== axes.length)
    throw new LoomError(`${what}: the footprint has ${axes.length} axes, '${spec.base}' ${uses[0].args.length}`);
  axes.forEach((a, d) => {
    const why = a.extent === undefined ? undefined : spec.unstored?.(d);
    if (why !== undefined) throw new LoomError(`${what}: ${why}`);
  });
  const inside = uses.filter((u) => spec.footprint === undefined || insideBox(knl, u, axes, fixed));
  if (inside.length === 0) throw new LoomError(`${what}: no use of '${spec.base}' lies inside the footprint given`);
  // The store runs inside the fixed inames its box moves with, and fetchOuterInames. A fixed
  // iname the box does not move with (its range fits in the box) would only repeat the
  // store: across work-items (i_inner on l.0) each would write the same cells at once.
  const storeWithin = new Set([
    ...fixed.filter((n) => axes.some((a) => a.base.dependsOn(n))),
    ...(spec.fetchOuterInames ?? []),
  ]);
  if (spec.addressSpace === 'local') checkSharedBox(knl, question, axes, fixed);
  const inames = new Set(knl.inames);
  checkBaseInScope(question, inside, axes, inames);

  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
  ]);
  const stored = nameAxes(knl, spec, axes, taken);
  const tempName = temporaryFor(knl, spec, stored, taken);
  const ids = new Set(knl.instructions.map((i) => i.id));
  if (spec.storeId !== undefined) checkName(spec.storeId, `${what}: the store instruction's id`);
  if (spec.storeId !== undefined && ids.has(spec.storeId))
    throw new LoomError(`${what}: the instruction id '${spec.storeId}' is already used`);
  const storeId = spec.storeId ?? uniqueName(spec.defaultStoreId, ids);

  const boxes = stored.flatMap((f) => boxConstraints(spec, f));
  const fresh = stored.filter((f) => !f.existing);
  const domains = fresh.length
    ? [
        ...knl.domains,
        BasicSet.fromConstraints(
          [],
          fresh.map((f) => f.iname),
          boxes,
        ),
      ]
    : knl.domains;
  for (const f of stored.filter((s) => s.existing)) checkExistingIname(knl, spec, f, boxes);

  const args = axes.map((a, d) => {
    const s = stored.find((f) => f.axis === d);
    return tidy(s ? add(fromLinear(a.base), variable(s.iname)) : fromLinear(a.base));
  });
  const enclosing = enclosingLoops(knl, [...storeWithin, ...stored.map((f) => f.iname)], boxes, fresh);
  const storeInames = [
    ...knl.inames.filter((n) => (storeWithin.has(n) || enclosing.has(n)) && !stored.some((f) => f.iname === n)),
    ...stored.map((f) => f.iname),
  ];
  const expanded = spec.value(args);
  const rebased = rebaseCoupledReductions(knl, {
    what,
    base: spec.base,
    value: expanded,
    uses: inside,
    stored: axes.map((a, d) => {
      const s = stored.find((f) => f.axis === d);
      return s ? a.base.add(Linear.variable(s.iname)) : a.base;
    }),
    storeInames,
    moved: new Set(spec.sweep),
    taken,
  });
  const value = rebased.value;
  // a value whose reductions were rebased is stored written out; otherwise as the spec keeps it
  // names of the rule copies made below (the store's value's and the rewritten uses'), one set for both
  const ruleNames = new Set([...taken, tempName, storeId, ...stored.map((f) => f.iname)]);
  const kept = spec.keptValue && value === expanded ? spec.keptValue(args, ruleNames) : undefined;
  const keys = new Map<string, boolean>();
  const keyOf = (insn: string, l: readonly Linear[]) => `${insn}|${l.map((x) => x.toString()).join(',')}`;
  for (const u of uses) {
    const k = keyOf(u.instruction.id, u.args);
    keys.set(k, (keys.get(k) ?? true) && inside.includes(u));
  }
  const redirected = new Set<string>();
  // a use's element of the temporary, written in the names of the scope it is read in: the
  // instruction's, or a rule body's whose parameters stand for `context` (spec.throughRules)
  const read =
    (insn: Instruction, context: ReadonlyMap<string, Expr>) =>
    (useArgs: readonly Linear[]): Expr | undefined => {
      const actual = context.size === 0 ? useArgs : inCaller(useArgs, context);
      if (!actual || !keys.get(keyOf(insn.id, actual))) return undefined;
      const captured = stored.flatMap((f) => f.base.variables).find((n) => context.has(n));
      if (captured !== undefined)
        throw new LoomError(
          `${what}: a substitution rule read through has a parameter named '${captured}', which the temporary's index needs as the kernel's name; rename the parameter`,
        );
      redirected.add(insn.id);
      return stored.length
        ? subscript(
            tempName,
            stored.map((f) => tidy(fromLinear(useArgs[f.axis].sub(f.base)))),
          )
        : variable(tempName);
    };
  const within = new Set(inside.map((u) => u.instruction.id));
  let copies: ReadonlyMap<string, string> = new Map();
  let rewritten: LoopKernel;
  if (spec.throughRules) {
    const through = rewriteThroughRules(
      knl,
      within,
      (e, insn, context) => spec.rewrite(e, read(insn, context)),
      ruleNames,
    );
    rewritten = through.kernel;
    copies = through.originals;
  } else {
    rewritten = mapKernelExpressions(knl, (e, insn) => spec.rewrite(e, read(insn!, new Map())), {
      what,
      within,
      rules: 'keep',
      assignee: 'indices',
    });
  }
  const dependsOn = storeDependencies(knl, [...redirected], value);
  checkWritersBefore(knl, spec, value, dependsOn, redirected);
  const store: Instruction = {
    kind: 'assign',
    id: storeId,
    assignees: [
      stored.length
        ? subscript(
            tempName,
            stored.map((f) => variable(f.iname)),
          )
        : variable(tempName),
    ],
    expression: kept?.expression ?? value,
    withinInames: storeInames,
    dependsOn,
    noSyncWith: [],
    priority: 0,
    predicates: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };
  // a footprint in global memory: its readers wait at a global barrier (footprint-barriers.ts)
  const synced =
    spec.addressSpace === 'global'
      ? footprintBarriers(
          knl,
          spec.base,
          store,
          rewritten.instructions.filter((i) => redirected.has(i.id)),
          new Set([...taken, storeId, ...knl.instructions.map((i) => i.id)]),
        )
      : { store, barriers: [], waitFor: storeId };
  const waitFor = synced.waitFor;
  const instructions = rewritten.instructions.map((insn) =>
    redirected.has(insn.id) ? { ...insn, dependsOn: [...insn.dependsOn, waitFor] } : insn,
  );
  const temporaries = new Map(knl.temporaries);
  if (!temporaries.has(tempName)) {
    temporaries.set(tempName, {
      name: tempName,
      dtype: spec.dtype,
      shape: stored.map(boxSize),
      addressSpace: spec.addressSpace ?? 'auto',
    });
  }
  // rules the redirected uses called and nothing calls any more go (loopy drops them too)
  const called = rulesStillCalled(knl);
  const result = rewritten.with({
    substitutions: new Map([...rewritten.substitutions, ...(kept?.rules ?? [])]),
    domains: rebased.domain ? [...domains, rebased.domain] : domains,
    inameTags: new Map([...rewritten.inameTags, ...rebased.tags]),
    instructions: [synced.store, ...synced.barriers, ...instructions],
    temporaries,
  });
  const left = rulesStillCalled(result);
  const substitutions = new Map([...result.substitutions].filter(([n]) => !called.has(n) || left.has(n)));
  const finished = finishRuleVariants(result.with({ substitutions }), new Map([...copies, ...(kept?.originals ?? [])]));
  return tagStoreInames(finished, spec, stored);
}

/** A rule body's arguments in the names of the instruction that calls it; undefined where not affine there. */
function inCaller(args: readonly Linear[], context: ReadonlyMap<string, Expr>): Linear[] | undefined {
  const out: Linear[] = [];
  for (const a of args) {
    const l = toLinear(substitute(fromLinear(a), context));
    if (!l) return undefined;
    out.push(l);
  }
  return out;
}

/**
 * The loops (not hardware axes) that the bounds of the store's inames depend on, through
 * their domains, and theirs in turn (loopy's domain-based propagation of an instruction's
 * inames): the store must run inside them, or no order of loops exists (its loops could
 * only be entered inside a loop it is not in). The box alone does not always name them: k
 * split by its own extent (`0 <= k_outer < 1`) puts the box of `a[8*k_outer + k_inner]` at
 * 0, but clips it to `8*k_outer <= ...`, and a second store swept over a part of the first
 * one's inames runs in the others, bounded in `k_outer` too. Inside, each is scheduled as
 * for more steps. (A work-item's or group's id in a bound is known everywhere: the store
 * keeps out of those axes, which would repeat it on each work-item.)
 */
function enclosingLoops(
  knl: LoopKernel,
  inames: readonly string[],
  boxes: readonly Constraint[],
  fresh: readonly StoredAxis[],
): Set<string> {
  const isFresh = new Set(fresh.map((f) => f.iname));
  const known = new Set(knl.inames);
  const freshParents = [...new Set(boxes.flatMap((c) => c.expr.variables).filter((v) => known.has(v)))];
  const parents = (n: string) => (isFresh.has(n) ? freshParents : parentInames(knl, n));
  const out = new Set<string>();
  for (const pending = [...inames]; pending.length; ) {
    for (const p of parents(pending.pop()!)) {
      if (out.has(p) || inames.includes(p) || isParallelTag(knl.inameTags.get(p))) continue;
      out.add(p);
      pending.push(p);
    }
  }
  return out;
}

/** The stored axes (those the sweep moves), each with the name of its iname. */
function nameAxes(
  knl: LoopKernel,
  spec: FootprintStore,
  axes: readonly AxisFootprint[],
  taken: Set<string>,
): StoredAxis[] {
  return axes.flatMap((a, axis): StoredAxis[] => {
    if (a.extent === undefined) return [];
    const given = spec.axisNames?.[axis];
    if (given === undefined) {
      const iname = uniqueName(spec.defaultAxisName(axis), taken);
      taken.add(iname);
      return [{ ...a, axis, extent: a.extent, iname, existing: false }];
    }
    checkName(given, `${spec.what}: the name of a new iname`);
    const existing = knl.inames.includes(given);
    if (!existing && taken.has(given)) throw new LoomError(`${spec.what}: the iname name '${given}' is already used`);
    taken.add(given);
    return [{ ...a, axis, extent: a.extent, iname: given, existing }];
  });
}

/** The temporary's name: a new one, or an existing temporary of the same shape (two stores into one buffer). */
function temporaryFor(
  knl: LoopKernel,
  spec: FootprintStore,
  stored: readonly StoredAxis[],
  taken: Set<string>,
): string {
  if (spec.temporaryName === undefined) {
    const name = uniqueName(spec.defaultTemporaryName, taken);
    taken.add(name);
    return name;
  }
  const name = checkName(spec.temporaryName, `${spec.what}: the temporary's name`);
  const existing = knl.temporaries.get(name);
  if (!existing) {
    if (taken.has(name)) throw new LoomError(`${spec.what}: the name '${name}' is already used`);
    taken.add(name);
    return name;
  }
  const shape = existing.shape.map((s) => printExpr(s)).join(', ');
  const wanted = stored.map((f) => printExpr(boxSize(f))).join(', ');
  if (shape !== wanted)
    throw new LoomError(
      `${spec.what}: the temporary '${name}' exists with shape (${shape}); this footprint needs (${wanted})`,
    );
  if (spec.dtype && existing.dtype && spec.dtype !== existing.dtype)
    throw new LoomError(
      `${spec.what}: the temporary '${name}' is ${existing.dtype}, the values stored are ${spec.dtype}`,
    );
  if (spec.addressSpace && existing.addressSpace !== 'auto' && existing.addressSpace !== spec.addressSpace) {
    throw new LoomError(`${spec.what}: the temporary '${name}' is ${existing.addressSpace}, not ${spec.addressSpace}`);
  }
  return name;
}

/** The box of a stored axis, clipped to where every use keeps its argument and to the array. */
function boxConstraints(spec: FootprintStore, f: StoredAxis): Constraint[] {
  const v = Linear.variable(f.iname);
  const out: Constraint[] = [{ kind: 'ge', expr: v }, lastOffsetBound(f, v)];
  const at = f.base.add(v);
  for (const lo of f.lower ?? []) out.push({ kind: 'ge', expr: at.sub(lo) });
  for (const hi of f.upper ?? []) out.push({ kind: 'ge', expr: hi.sub(at) });
  const limit = spec.limit?.(f.axis);
  if (limit) out.push({ kind: 'ge', expr: at }, { kind: 'ge', expr: limit.sub(1).sub(at) });
  return out;
}

/** An existing iname reused as a store's loop must run over exactly the values the box needs. */
function checkExistingIname(knl: LoopKernel, spec: FootprintStore, f: StoredAxis, boxes: readonly Constraint[]): void {
  const mine = boxes.filter((c) => c.expr.dependsOn(f.iname));
  const other = mine.flatMap((c) => c.expr.variables).find((v) => v !== f.iname && knl.inames.includes(v));
  if (other !== undefined) {
    throw new LoomError(
      `${spec.what}: the existing iname '${f.iname}' cannot run the store: the values needed along axis ${f.axis} depend on '${other}'`,
    );
  }
  const existing = domainOf(knl, [f.iname]);
  const needed = BasicSet.fromConstraints([], [f.iname], mine);
  const same =
    mine.every((c) => existing.implies(c)) &&
    existing.constraints.every((c) =>
      needed.intersect(BasicSet.universe(knl.assumptions.params, [])).intersect(knl.assumptions).implies(c),
    );
  if (!same) {
    throw new LoomError(
      `${spec.what}: the domain of the existing iname '${f.iname}' (${existing.toString()}) does not match the domain needed (${needed.toString()})`,
    );
  }
}

/**
 * What the store waits for: the instructions its users waited for that write something the
 * stored value reads, and the last global barrier before each user (the value may have
 * been written before it, by another work-group).
 */
export function storeDependencies(knl: LoopKernel, users: readonly string[], value: Expr): string[] {
  const read = new Set([...freeVariables(value), ...arraysAccessed(value).keys()]);
  const byId = new Map(knl.instructions.map((i) => [i.id, i]));
  const prerequisites = prerequisiteClosure(knl.instructions);
  const out = new Set<string>();
  for (const id of users) {
    const user = byId.get(id)!;
    for (const d of user.dependsOn) {
      const dep = byId.get(d);
      if (dep && namesWritten(dep).some((w) => read.has(w))) out.add(d);
    }
    const barriers = [...prerequisites(id)].filter(
      (d) => byId.get(d)?.kind === 'barrier' && byId.get(d)?.barrierScope === 'global',
    );
    for (const b of barriers) if (!barriers.some((o) => o !== b && prerequisites(o).has(b))) out.add(b);
  }
  for (const id of users) out.delete(id);
  return knl.instructions.map((i) => i.id).filter((id) => out.has(id));
}

/**
 * Data the kernel writes can be stored only once written: every writer of what the value
 * reads must come before the store (through its dependencies), and none may be a user.
 */
function checkWritersBefore(
  knl: LoopKernel,
  spec: FootprintStore,
  value: Expr,
  dependsOn: readonly string[],
  users: ReadonlySet<string>,
): void {
  const read = new Set([...freeVariables(value), ...arraysAccessed(value).keys()]);
  const prerequisites = prerequisiteClosure(knl.instructions);
  const before = new Set(dependsOn.flatMap((d) => [d, ...prerequisites(d)]));
  for (const insn of knl.instructions) {
    const written = namesWritten(insn).find((w) => read.has(w));
    if (written === undefined || before.has(insn.id)) continue;
    const why = users.has(insn.id)
      ? 'which also reads the copy'
      : 'which does not come before the store (add a dependency, or a global barrier between them)';
    throw new LoomError(
      `${spec.what}: '${written}' is written by instruction '${insn.id}', ${why}; only data that is final when the store runs can be stored`,
      insn.span,
    );
  }
}

/** Tags for the store's new inames: per axis where given, else the default. */
function tagStoreInames(result: LoopKernel, spec: FootprintStore, stored: readonly StoredAxis[]): LoopKernel {
  const fresh = stored.filter((f) => !f.existing);
  const tagOf = (f: StoredAxis) => spec.axisTag?.(f.axis) ?? spec.defaultTag;
  // l.auto as loopy resolves it before precompute returns: fitted to the work-group, once the
  // other tags are in place (automatic-axes.ts)
  const auto = fresh.filter((f) => tagOf(f) === 'l.auto').map((f) => f.iname);
  const explicit = fresh
    .filter((f) => spec.axisTag?.(f.axis) !== undefined && tagOf(f) !== 'l.auto')
    .map((f) => [f.iname, spec.axisTag!(f.axis)] as const);
  if (explicit.length) result = tagInames(result, explicit);
  const rest = fresh.filter((f) => spec.axisTag?.(f.axis) === undefined).map((f) => f.iname);
  if (spec.defaultTag !== undefined && spec.defaultTag !== null && spec.defaultTag !== 'l.auto' && rest.length) {
    // the last axis moves fastest in memory: local axis 0 lets neighbouring work-items read neighbouring words
    const order = spec.defaultTag === 'unused.l' ? [...rest].reverse() : rest;
    result = tagInames(
      result,
      order.map((dim) => [dim, spec.defaultTag] as const),
    );
  }
  if (!auto.length) return result;
  let placed = assignAutomaticAxes(result, auto);
  const rounds = auto.map((n) => `${n}_outer`).filter((n) => placed.inames.includes(n) && !result.inames.includes(n));
  // rounds along two axes go row by row, as the array lies in memory (stated: the nesting is not left to chance)
  if (rounds.length > 1) placed = prioritizeLoops(placed, rounds);
  if (spec.roundTag === undefined || spec.roundTag === null) return placed;
  return rounds.length
    ? tagInames(
        placed,
        rounds.map((n) => [n, spec.roundTag] as const),
      )
    : placed;
}

/** `x + 0` and friends, from adding a zero base. */
export function tidy(e: Expr): Expr {
  const lin = toLinear(e);
  return lin ? fromLinear(lin) : e;
}
