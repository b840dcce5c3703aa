/**
 * `pipelinePrefetch(knl, 'a_fetch_rule', 'k_outer')`: software pipelining of a fetch through
 * registers. The fetch `a_fetch[...] = a[..., k_outer ...]` runs once per iteration of the
 * loop `k_outer`, and what reads its temporary waits for it: the global loads' latency is
 * exposed at every step. Afterwards each work-item loads the values of step `k_outer + 1`
 * into private registers while step `k_outer` computes:
 *
 *     a_fetch_next[r] = a[..., first step]              a_fetch_rule_first (before the loop)
 *     for k_outer
 *       a_fetch[...] = a_fetch_next[r]                  a_fetch_rule (keeps its id)
 *       a_fetch_next[r] = a[..., k_outer + 1]           a_fetch_rule_next (if there is a next step)
 *       ... barrier, what reads a_fetch ...
 *
 * `r` runs over the loops of the fetch inside `k_outer` that are not hardware axes (unrolled:
 * one register each); the hardware axes stay what they were (each work-item keeps its own
 * values). The loads go before the instructions that read the fetched temporary (they depend
 * on them, so the scheduler puts them first), which is what hides their latency. One local
 * buffer, the same barriers as before, no extra local memory.
 *
 * Why registers and not a second local buffer indexed by `k_outer % 2`: every access stays
 * affine, so the barrier and race analyses see the same local accesses as before (they
 * would not see through `% 2`), and local memory, which limits how many work-groups share a
 * multiprocessor, is not doubled.
 *
 * The fetch's inner loops get copies for the first step (`_first`) and the next one (`_next`),
 * their domains those of the original at `k_outer` = its first value and at `k_outer + 1`
 * (empty after the last step: that is the guard). The first step is `k_outer`'s lower bound,
 * which must be a single affine expression. A fetch with no loops inside `k_outer` has no
 * domain to copy: its next step's load is guarded by a condition instead. A loop of one step
 * has no next step: only the first step's loads are made (before the loop), no `_next` copy.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { add, compare, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { fromLinear, mapExpr, printExpr, substitute, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { substitute as substituteInConstraint } from '../sets/constraint.ts';
import { namesRead, namesWritten, reductionInames } from '../kernel/accesses.ts';
import { domainOf, parentInames } from '../kernel/domains.ts';
import { prerequisiteClosure } from '../kernel/dependencies.ts';
import type { Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { findInstructions, type Within } from './match.ts';
import { uniqueName } from '../kernel/rename.ts';
import { tagArrayAxes } from './tag-array-axes.ts';

/** The options pipelinePrefetch reads; any other key is an error. */
const PIPELINE_PREFETCH_OPTIONS = optionKeys<PipelinePrefetchOptions>()(['temporaryName']);

/** Options of `pipelinePrefetch`. */
export interface PipelinePrefetchOptions {
  /** The private registers' name (default: the fetched temporary's with `_next`). */
  readonly temporaryName?: string;
}

/** `fetch`: the fetch instructions (a match expression: an id, `writes:a_fetch`, ...); `iname`: the sequential loop they run in. */
export function pipelinePrefetch(
  knl: LoopKernel,
  fetch: Within,
  iname: string,
  options: PipelinePrefetchOptions = {},
): LoopKernel {
  checkOptionKeys('pipelinePrefetch', options, PIPELINE_PREFETCH_OPTIONS);
  if (options.temporaryName !== undefined) checkName(options.temporaryName, 'pipelinePrefetch: option temporaryName');
  checkLoop(knl, iname);
  const picked = findInstructions(knl, fetch);
  if (picked.length === 0)
    throw new LoomError(
      `pipelinePrefetch: '${[fetch].flat().join("', '")}' matches no instruction (ids: ${knl.instructions.map((i) => i.id).join(', ')})`,
    );
  if (picked.length > 1 && options.temporaryName !== undefined)
    throw new LoomError('pipelinePrefetch: option temporaryName names one temporary; pick one fetch instruction');
  for (const insn of picked) knl = pipelineOne(knl, knl.instruction(insn.id), iname, options);
  return knl;
}

function checkLoop(knl: LoopKernel, iname: string): void {
  if (!knl.inames.includes(iname)) throw new LoomError(`pipelinePrefetch: unknown iname '${iname}'`);
  const tag = knl.inameTags.get(iname);
  if (tag && tag.kind !== 'for')
    throw new LoomError(
      `pipelinePrefetch: '${iname}' is tagged ${tag.kind}; only a sequential loop has a next iteration to load ahead for (a hardware axis or an unrolled loop has none)`,
    );
}

function pipelineOne(knl: LoopKernel, insn: Instruction, iname: string, options: PipelinePrefetchOptions): LoopKernel {
  const what = `pipelinePrefetch: instruction '${insn.id}'`;
  if (insn.kind !== 'assign' || insn.assignees.length !== 1 || !insn.expression)
    throw new LoomError(`${what} is not a single assignment`, insn.span);
  if (!insn.withinInames.includes(iname))
    throw new LoomError(
      `${what} does not run in loop '${iname}' (it runs in ${insn.withinInames.join(', ') || 'no loop'})`,
      insn.span,
    );
  if (reductionInames(insn, knl.substitutions).size)
    throw new LoomError(`${what} contains a reduction; pipeline a plain load`, insn.span);
  const value = insn.expression;
  const written = namesWritten(insn)[0];
  const nested = (i: Instruction) => i.withinInames.includes(iname) || reductionInames(i, knl.substitutions).has(iname);
  // the value of the next step is read during this one: nothing in the loop may change what it reads
  for (const name of namesRead(insn, knl.substitutions)) {
    const writer = knl.instructions.find((i) => nested(i) && namesWritten(i).includes(name));
    if (writer || name === written)
      throw new LoomError(
        `${what} reads '${name}', which '${writer?.id ?? insn.id}' writes inside loop '${iname}': the next iteration's value is not known one iteration early`,
        insn.span,
      );
  }

  // the fetch's loops inside `iname`: those that only instructions inside `iname` run in (a
  // reduction over `iname` runs in loops around it); a loop that bounds `iname` is around it
  const range = loopRange(knl, iname, what);
  const inner = insn.withinInames.filter(
    (n) =>
      n !== iname &&
      !range.parents.includes(n) &&
      knl.instructions.every((i) => !i.withinInames.includes(n) || i.withinInames.includes(iname)),
  );
  const outer = insn.withinInames.filter((n) => n !== iname && !inner.includes(n));
  const isAxis = (n: string) => ['local', 'group'].includes(knl.inameTags.get(n)?.kind ?? '');
  // a vector lane loop indexes the registers' last axis (their lanes)
  const lanesLast = (n: string) => (knl.inameTags.get(n)?.kind === 'vec' ? 1 : 0);
  const registers = inner.filter((n) => !isAxis(n)).sort((a, b) => lanesLast(a) - lanesLast(b));
  const extents = registers.map((r) => constantRange(knl, r, what));

  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.instructions.map((i) => i.id),
  ]);
  const fresh = (base: string) => {
    const name = uniqueName(base, taken);
    taken.add(name);
    return name;
  };
  if (options.temporaryName !== undefined && taken.has(options.temporaryName))
    throw new LoomError(`pipelinePrefetch: option temporaryName: the name '${options.temporaryName}' is already used`);
  const regName = options.temporaryName ?? fresh(`${written}_next`);
  taken.add(regName);
  const nextOf = new Map(inner.map((n) => [n, fresh(`${n}_next`)]));
  const firstOf = new Map(inner.map((n) => [n, fresh(`${n}_first`)]));
  const nextId = fresh(`${insn.id}_next`);
  const firstId = fresh(`${insn.id}_first`);

  // domains of the copies: the original's at `iname + 1` (empty past the last step) and at its first value
  const shifted = Linear.variable(iname).add(1);
  // a loop of one step (k split by its own extent) has no next step to load ahead: only the
  // first step's loads stay (the next step's copies would run over nothing, and an unrolled
  // loop over nothing has no constant length)
  const atNext = range.constraints.map((c) => substituteInConstraint(c, iname, shifted));
  const hasNext = !range.set.addConstraints(atNext).isEmpty();
  // a fetch with no loops of its own inside `iname` has no domain to copy: its next step's
  // load is guarded by the bounds of `iname` at `iname + 1` (those one step does not keep)
  const nextGuard = atNext
    .filter((c) => !range.set.implies(c))
    .map((c) => compare(c.kind === 'eq' ? '==' : '>=', fromLinear(c.expr), int(0)));
  const domains = [...knl.domains];
  if (inner.length) {
    const around = innerDomain(knl, inner, [...outer, iname, ...range.parents]);
    const copy = (names: ReadonlyMap<string, string>) =>
      inner.reduce((d, n) => d.renameVariable(n, names.get(n)!), around);
    if (hasNext) domains.push(atStep(copy(nextOf), iname, shifted, range));
    const first = atStep(copy(firstOf), iname, range.lower, range);
    const stray = first.params.filter((p) => knl.inames.includes(p) && !outer.includes(p));
    if (stray.length)
      throw new LoomError(
        `${what}: the bounds of its loops inside '${iname}' depend on '${stray.join("', '")}', which the first step before the loop does not run in`,
        insn.span,
      );
    domains.push(first);
  }

  // one register per value of the register loops (a scalar when there are none)
  const registerAt = (names: ReadonlyMap<string, string> | undefined): Expr =>
    registers.length === 0
      ? variable(regName)
      : subscript(
          regName,
          registers.map((r, k) => {
            const at: Expr = variable(names?.get(r) ?? r);
            return extents[k].min === 0 ? at : add(at, int(-extents[k].min));
          }),
        );
  // affine indices written out again after the substitution (`16*0 + x` is `x`)
  const at = (e: Expr, values: ReadonlyMap<string, Expr>) =>
    mapExpr(substitute(e, values), (x) =>
      x.kind === 'subscript' ? subscript(x.array, x.indices.map(tidy), x.linear, x.tag, x.field) : x,
    );
  const toNext = new Map<string, Expr>([
    [iname, fromLinear(shifted)],
    ...[...nextOf].map(([n, c]) => [n, variable(c)] as const),
  ]);
  const toFirst = new Map<string, Expr>([
    [iname, fromLinear(range.lower)],
    ...[...firstOf].map(([n, c]) => [n, variable(c)] as const),
  ]);
  const renamedWithin = (names: ReadonlyMap<string, string>, keepLoop: boolean) =>
    insn.withinInames.filter((n) => keepLoop || n !== iname).map((n) => names.get(n) ?? n);
  const ids = new Set(knl.instructions.map((i) => i.id));
  const outsideDeps = insn.dependsOn.filter((d) => ids.has(d) && !nested(knl.instruction(d)));
  const base = {
    kind: 'assign' as const,
    noSyncWith: insn.noSyncWith,
    priority: insn.priority,
    tags: insn.tags,
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
    span: insn.span,
  };
  const first: Instruction = {
    ...base,
    id: firstId,
    assignees: [registerAt(firstOf)],
    expression: at(value, toFirst),
    withinInames: renamedWithin(firstOf, false),
    dependsOn: outsideDeps,
    predicates: insn.predicates.map((p) => at(p, toFirst)),
  };
  const store: Instruction = { ...insn, expression: registerAt(undefined), dependsOn: [...insn.dependsOn, firstId] };
  const next: Instruction = {
    ...base,
    id: nextId,
    assignees: [registerAt(nextOf)],
    expression: at(value, toNext),
    withinInames: renamedWithin(nextOf, true),
    // after the store has read the registers; the readers of the fetch wait for it (below), so it is issued before them
    dependsOn: [...insn.dependsOn, insn.id],
    predicates: [...insn.predicates.map((p) => at(p, toNext)), ...(inner.length ? [] : nextGuard)],
  };
  // what uses the fetched values inside the loop waits for the next step's loads, so they are
  // issued first; not what shares a loop with the fetch (a vector staged through registers
  // in the same round), which the loads' loop cannot go around
  const prerequisites = prerequisiteClosure(knl.instructions);
  const waits = (i: Instruction) =>
    hasNext && nested(i) && prerequisites(i.id).has(insn.id) && !i.withinInames.some((n) => registers.includes(n));
  const instructions = knl.instructions.flatMap((i): Instruction[] => {
    if (i.id === insn.id) return hasNext ? [store, next] : [store];
    if (waits(i)) return [{ ...i, dependsOn: [...i.dependsOn, nextId] }];
    return [i];
  });
  instructions.unshift(first);
  const source = knl.temporaries.get(written) ?? knl.arg(written);
  const registersTemp: TemporaryVariable = {
    name: regName,
    dtype: source?.dtype,
    shape: extents.map((e) => int(e.max - e.min + 1)),
    addressSpace: 'private',
  };
  const tags = new Map(knl.inameTags);
  const copied = hasNext ? [nextOf, firstOf] : [firstOf];
  for (const [n, tag] of knl.inameTags) for (const copies of copied) if (copies.has(n)) tags.set(copies.get(n)!, tag);
  // the copies nest as the loops they copy were asked to (prioritizeLoops)
  const copiedPriorities = copied.flatMap((copies) =>
    knl.loopPriorities.filter((p) => p.every((n) => copies.has(n))).map((p) => p.map((n) => copies.get(n)!)),
  );
  const result = knl.with({
    domains,
    instructions,
    inameTags: tags,
    temporaries: new Map([...knl.temporaries, [regName, registersTemp]]),
    loopPriorities: [...knl.loopPriorities, ...copiedPriorities],
  });
  const vec = registers.findIndex((r) => knl.inameTags.get(r)?.kind === 'vec');
  if (vec >= 0 && vec !== registers.length - 1)
    throw new LoomError(`${what}: more than one of its loops is a vector lane loop`, insn.span);
  return vec >= 0
    ? tagArrayAxes(result, regName, registers.map((_, k) => (k === vec ? 'vec' : 'c')).join(','))
    : result;
}

/** An affine index written out again (`16*0 + x` is `x`); others as they are. */
function tidy(e: Expr): Expr {
  const lin = toLinear(e);
  return lin ? fromLinear(lin) : e;
}

/** `name`'s values over the whole kernel, which must be constants: one register each. */
function constantRange(knl: LoopKernel, name: string, what: string): { min: number; max: number } {
  const set = domainOf(knl, [name]);
  // the tightest constant among the bounds (others, such as a clip to an array's end, are within them)
  const constants = (bounds: readonly { expr: Linear; divisor: number }[], round: (x: number) => number) =>
    bounds.filter((b) => b.expr.isConstant).map((b) => round(b.expr.constant / b.divisor));
  const lows = constants(set.lowerBounds(name, []), Math.ceil);
  const highs = constants(set.upperBounds(name, []), Math.floor);
  if (lows.length === 0 || highs.length === 0)
    throw new LoomError(
      `${what}: its loop '${name}' has no constant bounds; the registers that hold a step's values need a fixed count`,
    );
  return { min: Math.max(...lows), max: Math.min(...highs) };
}

/** The loop's values over the inames its bounds depend on: its first value and the constraints that bound it. */
function loopRange(
  knl: LoopKernel,
  iname: string,
  what: string,
): { lower: Linear; set: BasicSet; constraints: readonly Constraint[]; parents: readonly string[] } {
  // the inames its bounds depend on, directly or through others
  const parents: string[] = [];
  for (const pending = [iname]; pending.length; )
    for (const p of parentInames(knl, pending.pop()!)) if (!parents.includes(p)) parents.push(p), pending.push(p);
  const set = domainOf(knl, [iname, ...parents], false, false);
  if (set.existentials.length)
    throw new LoomError(
      `${what}: the bounds of loop '${iname}' are not affine (${set.toString()}); its next iteration cannot be tested`,
    );
  const lowers = set.lowerBounds(iname, parents);
  if (lowers.length !== 1 || lowers[0].divisor !== 1)
    throw new LoomError(
      `${what}: loop '${iname}' has no single affine first value (${lowers.map((b) => printExpr(fromLinear(b.expr))).join(', ') || 'none'}); its first step cannot be loaded before it`,
    );
  return { lower: lowers[0].expr, set, constraints: set.constraints.filter((c) => c.expr.dependsOn(iname)), parents };
}

/**
 * The values of the fetch's loops inside the pipelined one, over the loops around them (as
 * parameters): one domain for all of them, other inames their domains name projected out,
 * what the loops around imply on their own dropped.
 */
function innerDomain(knl: LoopKernel, inner: readonly string[], around: readonly string[]): BasicSet {
  const aroundSet = domainOf(knl, around, false, false);
  const set = domainOf(knl, [...inner, ...around], false, false);
  return set
    .moveDimsToParams(set.dims.filter((d) => !inner.includes(d)))
    .gist(aroundSet.moveDimsToParams(aroundSet.dims));
}

/** A copied domain with `iname` replaced by `at`, bounded to where `iname`'s range holds at `at`. */
function atStep(
  copy: BasicSet,
  iname: string,
  at: Linear,
  range: { set: BasicSet; constraints: readonly Constraint[] },
): BasicSet {
  // bounds the range implies go first (clipping a fetch to its array is, for whole tiles): the guard is then the range's own
  const constraints = [...copy.gist(range.set).constraints, ...range.constraints].map((c) =>
    substituteInConstraint(c, iname, at),
  );
  const used = new Set(constraints.flatMap((c) => c.expr.variables));
  const params = [
    ...copy.params.filter((p) => p !== iname),
    ...[...used].filter((v) => !copy.params.includes(v) && !copy.dims.includes(v) && !copy.existentials.includes(v)),
  ].filter((p) => used.has(p));
  return BasicSet.fromConstraints(params, copy.dims, constraints, copy.existentials);
}
