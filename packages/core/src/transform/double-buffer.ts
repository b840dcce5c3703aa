/**
 * `doubleBuffer(knl, 'a_fetch', 'k_outer')`: a local-memory fetch filled one step ahead, in
 * a second buffer. Staged as written, every step of the loop `k_outer` fills the fetched
 * temporary, waits at a barrier, computes from it and waits again before the next fill:
 *
 *     for k_outer
 *       a_fetch[...] = a[..., k_outer ...]          (fetch)
 *       barrier
 *       ... what reads a_fetch ...
 *       barrier
 *
 * Afterwards the temporary has two buffers; each step fills the other one with the next
 * step's values while it computes from its own, and one barrier a step is enough:
 *
 *     a_fetch[0, ...] = a[..., first step]          (fetch_first, before the loop)
 *     barrier
 *     for k_outer_pair
 *       for k_outer_parity (unrolled)               k_outer = 2*k_outer_pair + k_outer_parity
 *         a_fetch[1 - k_outer_parity, ...] = a[..., k_outer + 1]   (fetch, if there is a next step)
 *         ... what reads a_fetch[k_outer_parity, ...] ...
 *         barrier
 *
 * The loop is split by two so that the buffer a step uses is an iname (`k_outer_parity`):
 * every index stays affine, and the barrier analysis sees that a step's fill and its reads
 * touch different buffers (schedule/barriers.ts compares the accesses of one iteration). The
 * fill of the next step goes before the reads (they depend on it), so its global loads are
 * in flight while the step computes. Local memory doubles.
 *
 * The fetch instructions are copied at the first and the next step as pipelinePrefetch copies
 * them (transform/loop-steps.ts): their loops inside `k_outer` get `_first` and `_next`
 * copies, the next step's empty past the last one. The loop's first value must be a constant
 * (it tells which buffer the first step fills), and every access of the temporary must be
 * inside the loop.
 *
 * With `{ stages: s, ahead: d }` the temporary has s buffers and each step fills the one d steps on
 * (d < s): the loop is split in rounds of s steps, step k reads buffer k % s and fills buffer
 * (k + d) % s, and a prologue loop fills the first d steps. Still one barrier a step; the fills of
 * the d - 1 steps after the next may be in flight at it (asynchronous copies waited for only as far
 * as the step read next), and with d < s - 1 the reads of the latest s - 1 - d steps need not be
 * over (matrix products left running): the fills carry `fillAhead`, which code generation reads.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { add, binary, int, sub, subscript, variable, type Expr } from '../expr/nodes.ts';
import { mapExpr, toLinear } from '../expr/index.ts';
import { floorConstraints, quasiAffine } from '../codegen/quasi-affine.ts';
import { Linear } from '../linear.ts';
import { eq, ge } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import { forEachSubscript, namesRead, namesWritten, reductionInames } from '../kernel/accesses.ts';
import type { DimTag, Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { kernelNamer } from '../kernel/rename.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { checkLoadAhead, copiedLoops, isAround, loopRange, stepCopies } from './loop-steps.ts';
import { splitIname } from './split-iname.ts';

/** The options doubleBuffer reads; any other key is an error. */
const DOUBLE_BUFFER_OPTIONS = optionKeys<DoubleBufferOptions>()([
  'pairIname',
  'parityIname',
  'stages',
  'ahead',
  'prologueIname',
]);

/** Options of `doubleBuffer`: how many buffers, how far ahead they are filled, and the names of the new loops. */
export interface DoubleBufferOptions {
  /**
   * The buffers of each temporary (default 2): a pipeline of `stages` buffers, one per step of the
   * loop in a round of `stages` steps.
   */
  readonly stages?: number;
  /**
   * How many steps ahead of its reads a buffer is filled (default `stages - 1`, at most that). With
   * more than one, the fills of the next `ahead - 1` steps may still be in flight at a step's
   * barrier: a target's asynchronous copies (`asyncCopies`) are then waited for only as far as the
   * step about to be read (CUDA's `cp.async.wait_group`). Fewer than `stages - 1` leaves a buffer
   * that no fill is waiting on, for readers that finish after the barrier (matrix instructions
   * left in flight).
   */
  readonly ahead?: number;
  /** The loop over rounds of `stages` steps (default `k_pair` for `k`). */
  readonly pairIname?: string;
  /** The unrolled loop over the steps of a round, which picks the buffer (default `k_parity` for `k`). */
  readonly parityIname?: string;
  /** With `ahead` > 1: the loop before `iname` that fills its first `ahead` steps (default `k_prologue`). */
  readonly prologueIname?: string;
}

/**
 * Fills local temporaries one step of `iname` ahead, in a second buffer (see the file's comment).
 * ```ts
 * knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { temporaryAddressSpace: 'local' });
 * knl = doubleBuffer(knl, 'a_fetch', 'k_outer');
 * ```
 * @param temporaries the local temporaries to double (each filled by its fetch instructions inside `iname`)
 * @param iname the sequential loop whose steps the fetches follow
 */
export function doubleBuffer(
  knl: LoopKernel,
  temporaries: string | readonly string[],
  iname: string,
  options: DoubleBufferOptions = {},
): LoopKernel {
  checkOptionKeys('doubleBuffer', options, DOUBLE_BUFFER_OPTIONS);
  const names = [temporaries].flat();
  if (names.length === 0) throw new LoomError('doubleBuffer: no temporary named');
  if (!knl.inames.includes(iname))
    throw new LoomError(`doubleBuffer: unknown iname '${iname}' (inames: ${knl.inames.join(', ')})`);
  const tag = knl.inameTags.get(iname);
  if (tag && tag.kind !== 'for')
    throw new LoomError(
      `doubleBuffer: '${iname}' is tagged ${tag.kind}; only a sequential loop has steps to fill ahead (split it before tagging)`,
    );
  if (knl.loopSlabs.has(iname))
    throw new LoomError(
      `doubleBuffer: loop '${iname}' has slabs; split off its partial step after double buffering instead`,
    );
  const { stages = 2 } = options;
  if (!Number.isInteger(stages) || stages < 2)
    throw new LoomError(`doubleBuffer: option stages must be an integer of at least 2 (the buffers), not ${stages}`);
  const { ahead = stages - 1 } = options;
  if (!Number.isInteger(ahead) || ahead < 1 || ahead > stages - 1)
    throw new LoomError(
      `doubleBuffer: option ahead must be an integer from 1 to stages - 1 = ${stages - 1} (a buffer filled ${stages} or more steps ahead would be the one being read), not ${ahead}`,
    );
  const pair = checkName(options.pairIname ?? `${iname}_pair`, 'doubleBuffer: option pairIname');
  const parity = checkName(options.parityIname ?? `${iname}_parity`, 'doubleBuffer: option parityIname');
  const prologue =
    ahead > 1
      ? checkName(options.prologueIname ?? `${iname}_prologue`, 'doubleBuffer: option prologueIname')
      : undefined;
  if (prologue === undefined && options.prologueIname !== undefined)
    throw new LoomError(
      'doubleBuffer: option prologueIname names the loop that fills the first steps when ahead > 1; with one step ahead there is none',
    );
  const range = loopRange(knl, iname, 'doubleBuffer');
  if (!range.lower.isConstant)
    throw new LoomError(
      `doubleBuffer: loop '${iname}' starts at ${range.lower.toString()}; its first value must be a constant, which tells the buffer the first step fills`,
    );
  const firstBuffer = ((range.lower.constant % stages) + stages) % stages;

  const { taken, fresh } = kernelNamer(knl);
  for (const n of [pair, parity, ...(prologue ? [prologue] : [])])
    if (taken.has(n)) throw new LoomError(`doubleBuffer: the name '${n}' is already used`);

  const group = fillGroup(knl, names, iname);
  const fills = new Set(group.map((i) => i.id));
  const nested = (i: Instruction) => i.withinInames.includes(iname) || reductionInames(i, knl.substitutions).has(iname);

  // the fills: their first step before the loop, their next step in place of the step itself
  const steps = stepCopies(knl, group, iname, `doubleBuffer: '${group[0].id}'`, fresh, ahead, prologue);
  if (!steps.hasNext)
    throw new LoomError(
      ahead === 1
        ? `doubleBuffer: loop '${iname}' runs one step; there is no next step to fill a second buffer for`
        : `doubleBuffer: loop '${iname}' runs at most ${ahead} steps; there is no step ${ahead} ahead to fill a buffer for (ask for fewer ahead)`,
    );
  const ids = new Set(knl.instructions.map((i) => i.id));
  const firstIds = new Map(group.map((i) => [i.id, fresh(`${i.id}_first`)]));
  const firsts = new Set(firstIds.values());
  const added: Instruction[] = group.map((insn) => ({
    ...insn,
    id: firstIds.get(insn.id)!,
    assignees: insn.assignees.map(steps.atFirst),
    expression: steps.atFirst(insn.expression!),
    withinInames: steps.firstWithin(insn),
    // the first step's copies wait for each other as the fills do, and for what the loop waits for
    dependsOn: insn.dependsOn.flatMap((d) =>
      firstIds.has(d) ? [firstIds.get(d)!] : ids.has(d) && !nested(knl.instruction(d)) ? [d] : [],
    ),
    predicates: steps.firstPredicates(insn),
    groups: [],
    conflictsWithGroups: [],
  }));
  const replaced = new Map(
    group.map((insn) => [
      insn.id,
      {
        ...insn,
        assignees: insn.assignees.map(steps.atNext),
        expression: steps.atNext(insn.expression!),
        withinInames: steps.nextWithin(insn),
        predicates: steps.nextPredicates(insn),
      },
    ]),
  );
  const domains = [...knl.domains, ...steps.domains];
  const copied = [steps.nextOf, steps.firstOf];
  // what reads a buffer waits for the first step's fill and the next step's (issued before it)
  const readers = knl.instructions.filter(
    (i) => !fills.has(i.id) && names.some((n) => namesRead(i, knl.substitutions).has(n)),
  );
  const readerIds = new Set(readers.map((i) => i.id));
  const instructions = [
    ...added,
    ...knl.instructions.map((i) => {
      const made = replaced.get(i.id) ?? i;
      if (!readerIds.has(i.id)) return made;
      return { ...made, dependsOn: [...new Set([...made.dependsOn, ...fills, ...firsts])] };
    }),
  ];
  let result = knl.with({ domains, instructions, ...copiedLoops(knl, copied) });

  // the loop in rounds of `stages` steps; the step's place in its round picks the buffer
  result = splitIname(result, iname, stages, { outerIname: pair, innerIname: parity, innerTag: 'unr' });
  result = result.with({ loopPriorities: [...result.loopPriorities, [pair, parity]] });
  // the buffer each instruction touches: a read its step's (its place in the round), a fill the
  // one `ahead` steps on, a first step's fill the prologue step's (no wrap where those fit)
  const offset = (e: Expr, by: number) => (by ? add(e, int(by)) : e);
  const firstFill = !prologue
    ? int(firstBuffer)
    : firstBuffer + ahead <= stages
      ? offset(variable(prologue), firstBuffer)
      : modulo(offset(variable(prologue), firstBuffer), stages);
  const nextFill = stages === 2 ? sub(int(1), variable(parity)) : modulo(offset(variable(parity), ahead), stages);
  const bufferOf = (insn: Instruction): Expr =>
    firsts.has(insn.id) ? firstFill : fills.has(insn.id) ? nextFill : variable(parity);
  result = mapKernelExpressions(
    result,
    (e, insn) =>
      mapExpr(e, (x) => {
        // a scalar temporary becomes an array of its two buffers
        if (x.kind === 'var' && names.includes(x.name) && insn) return subscript(x.name, [bufferOf(insn)]);
        if (x.kind !== 'subscript' || !names.includes(x.array) || !insn) return x;
        if (x.linear)
          throw new LoomError(`doubleBuffer: '${insn.id}' indexes '${x.array}' by one flat index`, insn.span);
        return subscript(x.array, [bufferOf(insn), ...x.indices], false, x.tag, x.field);
      }),
    { what: 'doubleBuffer', assignee: 'whole', rules: 'keep' },
  );
  const temps = new Map(result.temporaries);
  for (const name of names) temps.set(name, withBufferAxis(temps.get(name)!, stages));
  if (stages === 2) return result.with({ temporaries: temps });
  // each round's step and each prologue step fills one step's buffers: code generation may leave
  // the latest fills, and the latest reads, in flight at a barrier
  const fillAhead = { steps: ahead, stages, stepLoops: [pair, parity, ...(prologue ? [prologue] : [])] };
  return result.with({
    temporaries: temps,
    instructions: result.instructions.map((i) => (fills.has(i.id) || firsts.has(i.id) ? { ...i, fillAhead } : i)),
  });
}

/** `e % divisor`, written as a constant where `e` is one (`(0 + 2) % 3` is 2). */
function modulo(e: Expr, divisor: number): Expr {
  const lin = toLinear(e);
  if (lin?.isConstant) return int(((lin.constant % divisor) + divisor) % divisor);
  return binary('%', e, int(divisor));
}

/**
 * The instructions that fill the `names` buffers a step of `iname` ahead, in the kernel's order:
 * their writers, and the loads into private registers only those writers read (a float4 loaded,
 * then stored lane by lane). Each is checked: inside the loop, reading nothing the loop changes
 * but the other fills, writing each element of a buffer once a step; and every use of a buffer
 * is inside the loop.
 */
function fillGroup(knl: LoopKernel, names: readonly string[], iname: string): Instruction[] {
  // the instructions that fill the buffers (run a step ahead), by id
  const fills = new Set<string>();
  for (const name of names) {
    const t = knl.temporaries.get(name);
    if (!t) throw new LoomError(`doubleBuffer: '${name}' is not a temporary of kernel '${knl.name}'`);
    if (t.addressSpace !== 'local')
      throw new LoomError(
        `doubleBuffer: '${name}' is in ${t.addressSpace === 'auto' ? 'no address space yet' : `${t.addressSpace} memory`}; only a local temporary is shared by a work-group's fills and reads (addPrefetch with temporaryAddressSpace: 'local')`,
      );
    const writers = knl.instructions.filter((i) => namesWritten(i).includes(name));
    if (writers.length === 0) throw new LoomError(`doubleBuffer: no instruction writes '${name}'`);
    for (const insn of knl.instructions) {
      const touches = namesWritten(insn).includes(name) || namesRead(insn, knl.substitutions).has(name);
      if (touches && !insn.withinInames.includes(iname) && !reductionInames(insn, knl.substitutions).has(iname))
        throw new LoomError(
          `doubleBuffer: '${insn.id}' uses '${name}' outside loop '${iname}'; after the loop the last step's buffer is not known`,
          insn.span,
        );
      if (namesWritten(insn).includes(name) && namesRead(insn, knl.substitutions).has(name))
        throw new LoomError(`doubleBuffer: '${insn.id}' reads and writes '${name}'; a fill only writes it`, insn.span);
    }
    if ([...knl.substitutions.values()].some((r) => readsArray(r.expression, name)))
      throw new LoomError(`doubleBuffer: a substitution rule reads '${name}'; expand it first (expandSubst)`);
    for (const w of writers) fills.add(w.id);
  }
  // a fill staged through private registers (a float4 loaded, then stored): the loads that
  // write them run a step ahead too, when nothing but the fills reads those registers
  const nested = (i: Instruction) => i.withinInames.includes(iname) || reductionInames(i, knl.substitutions).has(iname);
  for (let grew = true; grew; ) {
    grew = false;
    for (const id of [...fills])
      for (const name of namesRead(knl.instruction(id), knl.substitutions)) {
        if (knl.temporaries.get(name)?.addressSpace !== 'private' && knl.temporaries.get(name)?.addressSpace !== 'auto')
          continue;
        const readBeyond = knl.instructions.some((i) => !fills.has(i.id) && namesRead(i, knl.substitutions).has(name));
        if (readBeyond) continue;
        for (const w of knl.instructions)
          if (nested(w) && namesWritten(w).includes(name) && !fills.has(w.id)) fills.add(w.id), (grew = true);
      }
  }
  // in the kernel's order: a load before the store of what it loaded
  const group = knl.instructions.filter((i) => fills.has(i.id));
  for (const w of group) checkLoadAhead(knl, w, iname, `doubleBuffer: instruction '${w.id}'`, fills);
  // a step's fill runs whole before the step's reads: an element it wrote twice in one step (a
  // scalar refilled in a loop the reads share) would be read at its last value only
  for (const w of group)
    for (const name of namesWritten(w).filter((n) => names.includes(n)))
      if (!fillsEachElementOnce(knl, w, iname))
        throw new LoomError(
          `doubleBuffer: '${w.id}' writes an element of '${name}' more than once in a step of '${iname}' (in its loops ${w.withinInames.filter((n) => n !== iname).join(', ')}); a step's fill must complete before its reads, so each element may be filled once a step`,
          w.span,
        );
  return group;
}

/** A temporary with a first axis of `stages` buffers, the slowest: each buffer laid out as the whole was. */
function withBufferAxis(t: TemporaryVariable, stages: number): TemporaryVariable {
  const dimTags = t.dimTags && [bufferTag(t), ...t.dimTags];
  return {
    ...t,
    shape: [int(stages), ...t.shape],
    ...(dimTags ? { dimTags } : {}),
    ...(t.dimNames ? { dimNames: ['buffer', ...t.dimNames] } : {}),
  };
}

/**
 * The buffer axis's layout: the level above the others' (nested axes), or a stride past the
 * last element a buffer of fixed strides reaches (padded panels), rounded up to 4 elements so
 * that the second buffer is aligned as the first for 16-byte vector reads.
 */
function bufferTag(t: TemporaryVariable): DimTag {
  const tags = t.dimTags!;
  const strides = tags.flatMap((d) => (d.kind === 'stride' ? [d.stride] : []));
  const nested = tags.flatMap((d) => (d.kind === 'nested' ? [d.level] : []));
  if (tags.some((d) => d.kind === 'sep') || (strides.length && nested.length))
    throw new LoomError(
      `doubleBuffer: '${t.name}' has separate axes, or fixed strides beside nested ones; double buffer it before tagging its axes`,
    );
  if (!strides.length) return { kind: 'nested', level: nested.length ? Math.max(...nested) + 1 : 0 };
  let reach = 1;
  for (const [k, d] of tags.entries()) {
    if (d.kind !== 'stride') continue;
    const extent = t.shape[k];
    if (d.stride.kind !== 'int' || extent.kind !== 'int')
      throw new LoomError(
        `doubleBuffer: '${t.name}' has a stride or a length that is not a constant; the second buffer's place needs one`,
      );
    reach += (extent.value - 1) * d.stride.value;
  }
  return { kind: 'stride', stride: int(Math.ceil(reach / 4) * 4) };
}

/**
 * Whether `insn` (a fill: one assignee) writes each element at most once per step of `iname` and
 * work-item: no two points of its sequential loops (those not on hardware axes) that agree on
 * every other loop write the same element. Indices that are not affine may repeat: false.
 */
function fillsEachElementOnce(knl: LoopKernel, insn: Instruction, iname: string): boolean {
  const target = insn.assignees[0];
  const parallel = (n: string) => ['local', 'group'].includes(knl.inameTags.get(n)?.kind ?? '');
  // a loop around `iname` (a batch's loop) holds every step in one of its iterations: it repeats no fill within a step
  const sequential = insn.withinInames.filter((n) => n !== iname && !parallel(n) && !isAround(knl, n, iname));
  if (sequential.length === 0) return true;
  // each index affine in the loops and in a variable per floor division (a float4 panel's `x // 4`, `x % 4`)
  const indices = (target.kind === 'subscript' ? target.indices : []).map((e, k) => quasiAffine(e, `_loom_fill${k}_`));
  if (indices.some((q) => q === undefined || q.products.length)) return false;
  const floors = indices.flatMap((q) => q!.floors);
  const primedName = new Map([...sequential, ...floors.map((f) => f.name)].map((n) => [n, `${n}'`] as const));
  const prime = (f: Linear) =>
    Linear.of(
      [...f.coeffs].map(([n, c]) => [primedName.get(n) ?? n, c] as const),
      f.constant,
    );
  const primedFloors = floors.map((f) => ({ ...f, name: primedName.get(f.name)!, numerator: prime(f.numerator) }));
  const set = domainOf(knl, insn.withinInames);
  const primed = sequential.reduce((d, n) => d.renameVariable(n, primedName.get(n)!), set);
  const both = set
    .intersect(primed)
    .addParams([...floors, ...primedFloors].map((f) => f.name))
    .addConstraints([
      ...floorConstraints(floors),
      ...floorConstraints(primedFloors),
      ...indices.map((q) => eq(q!.lin.sub(prime(q!.lin)))),
    ]);
  // two points apart: some sequential loop larger at the second (the other order is the same pair)
  return sequential.every((n) =>
    both.addConstraints([ge(Linear.variable(primedName.get(n)!).sub(Linear.variable(n)).sub(1))]).isEmpty(),
  );
}

function readsArray(e: Expr, name: string): boolean {
  let found = false;
  forEachSubscript(e, (s) => {
    found ||= s.array === name;
  });
  return found;
}
