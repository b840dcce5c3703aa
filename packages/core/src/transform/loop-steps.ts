/**
 * Copies of an instruction at another step of a sequential loop around it: its first step
 * (before the loop) and the next one (`iname + 1`, inside the loop), or for a pipeline of
 * several buffers its first `ahead` steps (a prologue loop before it) and the step `iname + ahead`.
 * What pipelinePrefetch (registers loaded one step ahead) and doubleBuffer (local memory filled
 * ahead) share: the loops of the instruction inside `iname` get copies (`x_first`, `x_next`) whose
 * domains are the original's at that step, the next step's empty past the last one (that is
 * its guard); an instruction with no loop of its own inside `iname` is guarded by the
 * bounds of `iname` at `iname + 1` instead.
 */
import { InternalError, LoomError } from '../errors.ts';
import { compare, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { fromLinear, mapExpr, printExpr, substitute, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { substitute as substituteInConstraint } from '../sets/constraint.ts';
import { domainOf, homeDomainIndex, parentInames } from '../kernel/domains.ts';
import { namesRead, namesWritten, reductionInames } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';

/** A sequential loop's values over the inames its bounds depend on. */
export interface LoopRange {
  /** Its first value, affine in the `parents`. */
  readonly lower: Linear;
  /** The loop's values and its parents'. */
  readonly set: BasicSet;
  /** The constraints of `set` that bound the loop. */
  readonly constraints: readonly Constraint[];
  /** The inames its bounds depend on, directly or through others. */
  readonly parents: readonly string[];
}

/**
 * The copies of instructions at the first and the next step of a loop (see the file's
 * comment): instructions that run together (a load into registers and its store) share
 * their loops' copies.
 */
export interface StepCopies {
  /** The instruction's loops inside the stepped one (copied), and those around it (kept). */
  readonly inner: readonly string[];
  readonly outer: readonly string[];
  readonly range: LoopRange;
  /** Whether some iteration has a next one (a loop of one step has none). */
  readonly hasNext: boolean;
  /** The copied loops' names at each step. */
  readonly nextOf: ReadonlyMap<string, string>;
  readonly firstOf: ReadonlyMap<string, string>;
  /** The domains of the copied loops (the next step's only when there is one). */
  readonly domains: readonly BasicSet[];
  /** An expression of the instruction at each step. */
  atNext(e: Expr): Expr;
  atFirst(e: Expr): Expr;
  /** The loops an instruction's copy runs in (the next step's in the stepped loop, the first step's outside it). */
  nextWithin(insn: Instruction): readonly string[];
  firstWithin(insn: Instruction): readonly string[];
  /** The conditions of an instruction's copy (the next step's guarded when it has no loop of its own to bound). */
  nextPredicates(insn: Instruction): readonly Expr[];
  firstPredicates(insn: Instruction): readonly Expr[];
}

/**
 * The copies of `insns` at the first and the next step of `iname`; `fresh(base)` names a new
 * iname. `what` begins the errors' messages. With `ahead` > 1 (a pipeline of several buffers) the
 * "next" step is `iname + ahead`, and the first steps are `ahead` of them, the loop's first value
 * plus each value of a new loop `prologue` (0 to ahead - 1, bounded to the loop's steps too), whose
 * domain is the first of `domains`.
 */
export function stepCopies(
  knl: LoopKernel,
  insns: readonly Instruction[],
  iname: string,
  what: string,
  fresh: (base: string) => string,
  ahead = 1,
  prologue?: string,
): StepCopies {
  if (ahead > 1 && !prologue) throw new InternalError('stepCopies: a lookahead of several steps needs a prologue loop');
  // the loops inside `iname`: those that only instructions inside `iname` run in (a reduction
  // over `iname` runs in loops around it); a loop that bounds `iname` is around it
  const range = loopRange(knl, iname, what);
  const within = [...new Set(insns.flatMap((i) => i.withinInames))];
  const inner = within.filter((n) => n !== iname && !range.parents.includes(n) && !isAround(knl, n, iname));
  const outer = within.filter((n) => n !== iname && !inner.includes(n));
  const nextOf = new Map(inner.map((n) => [n, fresh(`${n}_next`)]));
  const firstOf = new Map(inner.map((n) => [n, fresh(`${n}_first`)]));

  const shifted = Linear.variable(iname).add(ahead);
  // the first step, or the prologue's steps
  const firstStep = ahead > 1 ? range.lower.add(Linear.variable(prologue!)) : range.lower;
  const atNextStep = range.constraints.map((c) => substituteInConstraint(c, iname, shifted));
  const hasNext = !range.set.addConstraints(atNextStep).isEmpty();
  const nextGuard = atNextStep
    .filter((c) => !range.set.implies(c))
    .map((c) => compare(c.kind === 'eq' ? '==' : '>=', fromLinear(c.expr), int(0)));
  // one copied domain per home domain of the copied loops: loops of different domains (a
  // fetch's and the loops a pipelined fetch already copied) keep their own bounds, as one set
  // of all of them would be empty wherever one of them is
  const domains: BasicSet[] = ahead > 1 ? [prologueDomain(range, iname, firstStep, prologue!, ahead)] : [];
  const homes = new Map<number, string[]>();
  for (const n of inner) homes.set(homeDomainIndex(knl, n), [...(homes.get(homeDomainIndex(knl, n)) ?? []), n]);
  for (const loops of homes.values()) {
    const around = innerDomain(knl, loops, [...outer, iname, ...range.parents]);
    const copy = (names: ReadonlyMap<string, string>) =>
      loops.reduce((d, n) => d.renameVariable(n, names.get(n)!), around);
    if (hasNext) domains.push(atStep(copy(nextOf), iname, shifted, range));
    const first = atStep(copy(firstOf), iname, firstStep, range);
    const stray = first.params.filter((p) => knl.inames.includes(p) && !outer.includes(p));
    if (stray.length)
      throw new LoomError(
        `${what}: the bounds of its loops inside '${iname}' depend on '${stray.join("', '")}', which the first step before the loop does not run in`,
        insns[0].span,
      );
    domains.push(first);
  }

  // affine indices written out again after the substitution (`16*0 + x` is `x`)
  const at = (values: ReadonlyMap<string, Expr>) => (e: Expr) =>
    mapExpr(substitute(e, values), (x) =>
      x.kind === 'subscript' ? subscript(x.array, x.indices.map(tidy), x.linear, x.tag, x.field) : x,
    );
  const atNext = at(
    new Map<string, Expr>([[iname, fromLinear(shifted)], ...[...nextOf].map(([n, c]) => [n, variable(c)] as const)]),
  );
  const atFirst = at(
    new Map<string, Expr>([[iname, fromLinear(firstStep)], ...[...firstOf].map(([n, c]) => [n, variable(c)] as const)]),
  );
  const renamedWithin = (insn: Instruction, names: ReadonlyMap<string, string>, keepLoop: boolean) =>
    insn.withinInames.filter((n) => keepLoop || n !== iname).map((n) => names.get(n) ?? n);
  // an instruction with no loop of its own inside `iname` is guarded at the next step instead
  const ownLoops = (insn: Instruction) => insn.withinInames.some((n) => inner.includes(n));
  return {
    inner,
    outer,
    range,
    hasNext,
    nextOf,
    firstOf,
    domains,
    atNext,
    atFirst,
    nextWithin: (insn) => renamedWithin(insn, nextOf, true),
    firstWithin: (insn) => [...(ahead > 1 ? [prologue!] : []), ...renamedWithin(insn, firstOf, false)],
    nextPredicates: (insn) => [...insn.predicates.map(atNext), ...(ownLoops(insn) ? [] : nextGuard)],
    firstPredicates: (insn) => insn.predicates.map(atFirst),
  };
}

/**
 * `insn` can be run a step ahead of `iname`: a single assignment in that loop, no reduction,
 * reading nothing the loop changes (the next step's value must be known during this one)
 * but what the instructions run `ahead` with it write.
 */
export function checkLoadAhead(
  knl: LoopKernel,
  insn: Instruction,
  iname: string,
  what: string,
  ahead: ReadonlySet<string> = new Set(),
): void {
  if (insn.kind !== 'assign' || insn.assignees.length !== 1 || !insn.expression)
    throw new LoomError(`${what} is not a single assignment`, insn.span);
  if (!insn.withinInames.includes(iname))
    throw new LoomError(
      `${what} does not run in loop '${iname}' (it runs in ${insn.withinInames.join(', ') || 'no loop'})`,
      insn.span,
    );
  if (reductionInames(insn, knl.substitutions).size)
    throw new LoomError(`${what} contains a reduction; load a plain value ahead`, insn.span);
  const written = namesWritten(insn)[0];
  const nested = (i: Instruction) => i.withinInames.includes(iname) || reductionInames(i, knl.substitutions).has(iname);
  for (const name of namesRead(insn, knl.substitutions)) {
    const writer = knl.instructions.find((i) => nested(i) && namesWritten(i).includes(name) && !ahead.has(i.id));
    if (writer || name === written)
      throw new LoomError(
        `${what} reads '${name}', which '${writer?.id ?? insn.id}' writes inside loop '${iname}': the next iteration's value is not known one iteration early`,
        insn.span,
      );
  }
}

/**
 * The tags and loop priorities of a kernel whose loops were copied (`copies`: old name to
 * copy's, one map per copy): each copy tagged and nested as its original was asked to be.
 */
export function copiedLoops(
  knl: LoopKernel,
  copied: readonly ReadonlyMap<string, string>[],
): Pick<LoopKernel, 'inameTags' | 'loopPriorities'> {
  const inameTags = new Map(knl.inameTags);
  for (const [n, tag] of knl.inameTags)
    for (const copies of copied) if (copies.has(n)) inameTags.set(copies.get(n)!, tag);
  const copiedPriorities = copied.flatMap((copies) =>
    knl.loopPriorities.filter((p) => p.every((n) => copies.has(n))).map((p) => p.map((n) => copies.get(n)!)),
  );
  return { inameTags, loopPriorities: [...knl.loopPriorities, ...copiedPriorities] };
}

/** An affine index written out again (`16*0 + x` is `x`); others as they are. */
function tidy(e: Expr): Expr {
  const lin = toLinear(e);
  return lin ? fromLinear(lin) : e;
}

/**
 * Whether loop `n` runs around loop `iname`: some instruction runs in `n` but not in `iname` (a sum
 * over `iname` included, whose loops are around the sum's), so `n` is not a loop inside `iname`.
 */
export function isAround(knl: LoopKernel, n: string, iname: string): boolean {
  return knl.instructions.some((i) => i.withinInames.includes(n) && !i.withinInames.includes(iname));
}

/** `name`'s values over the whole kernel, which must be constants (one register, or one buffer, each). */
export function constantRange(knl: LoopKernel, name: string, what: string): { min: number; max: number } {
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
export function loopRange(knl: LoopKernel, iname: string, what: string): LoopRange {
  const parents: string[] = [];
  for (const pending = [iname]; pending.length; ) {
    const n = pending.pop()!;
    for (const p of [...parentInames(knl, n), ...boundingWorkItems(knl, n)])
      if (p !== iname && !parents.includes(p)) parents.push(p), pending.push(p);
  }
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
 * The work-item inames (local or group axes) that bound `iname` in its own domain (`j <= i` with `i`
 * on g.0): those run around every loop, so they are the loop's parents as much as a parent domain's
 * inames are, never loops inside it that a step's copy would repeat (differential seed 503548).
 */
function boundingWorkItems(knl: LoopKernel, iname: string): string[] {
  const home = knl.domains[homeDomainIndex(knl, iname)];
  const parallel = (n: string) => ['local', 'group'].includes(knl.inameTags.get(n)?.kind ?? '');
  const coupled = home.constraints.filter((c) => c.expr.dependsOn(iname)).flatMap((c) => c.expr.variables);
  return [...new Set(coupled)].filter((n) => n !== iname && home.dims.includes(n) && parallel(n));
}

/**
 * The values of the loops inside the stepped one, over the loops around them (as
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

/** The prologue's steps: 0 <= p < ahead, where the loop has a step `first` (its first value plus p). */
function prologueDomain(range: LoopRange, iname: string, first: Linear, prologue: string, ahead: number): BasicSet {
  const p = Linear.variable(prologue);
  const constraints: Constraint[] = [
    { kind: 'ge', expr: p },
    { kind: 'ge', expr: Linear.constant(ahead - 1).sub(p) },
    ...range.constraints.map((c) => substituteInConstraint(c, iname, first)),
  ];
  const used = new Set(constraints.flatMap((c) => c.expr.variables));
  const params = [...used].filter((v) => v !== prologue);
  return BasicSet.fromConstraints(params, [prologue], constraints, []);
}

/** A copied domain with `iname` replaced by `at`, bounded to where `iname`'s range holds at `at`. */
function atStep(copy: BasicSet, iname: string, at: Linear, range: LoopRange): BasicSet {
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
