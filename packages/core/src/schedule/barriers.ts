/**
 * Synchronization. Within one device kernel, a dependency between instructions run
 * by different work-items of a group, through local memory (or global memory within
 * a single group), needs a local barrier between them; this pass inserts one where
 * the dependency is realized — before the dependent instruction, or at the end of a
 * loop body for a dependency carried to the next iteration. A dependency that may
 * cross work-groups through global memory needs a global barrier, which only a
 * `... gbarrier` (splitting the kernel) provides: otherwise `MissingBarrierError`.
 */
import { MissingBarrierError } from '../errors.ts';
import { toLinear } from '../expr/affine.ts';
import { floorConstraints, quasiAffine, type FloorVariable } from '../codegen/quasi-affine.ts';
import type { Expr } from '../expr/nodes.ts';
import { allAccesses, atomicFetchOf, namesRead, soleAssignee, type Access } from '../kernel/accesses.ts';
import { prerequisiteClosure, waivesBarrier } from '../kernel/dependencies.ts';
import { domainOf } from '../kernel/domains.ts';
import { Linear } from '../linear.ts';
import { eq, ge, type BasicSet } from '../sets/index.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { scheduledInstructions, type ScheduleItem } from './linearize.ts';

/**
 * A barrier across the work-group that a dependency needs, and the memory it must fence: local
 * memory, or global memory that only the work-items of one group share (OpenCL's
 * CLK_GLOBAL_MEM_FENCE, WGSL's storageBarrier).
 */
interface Need {
  readonly fence: 'local' | 'global' | 'both';
  readonly comment: string;
}

/** The barriers a need is met by: one fencing its memory, or (`both`) one for each, global memory's first. */
function barriersFor(need: Need, comment = need.comment): ScheduleItem[] {
  const fences = need.fence === 'both' ? (['global', 'local'] as const) : [need.fence];
  return fences.map((scope) => ({ kind: 'barrier', scope, comment }));
}

/**
 * How the iterations of two instructions' loops relate when one must wait for the other: the
 * loops open around both run the `same` iteration (a pair in one loop body, or a dependency
 * carried by an inner loop within one iteration of those around it). An element two
 * work-items share only in different iterations of those loops is no conflict here: a barrier
 * between the iterations separates them (the two buffers of `doubleBuffer`). The loop a
 * dependency is carried by is compared over all its iterations, as loopy does (its next
 * iteration may touch what this one did: test_barrier_counter_barriers counts those barriers).
 */
interface Iterations {
  readonly same: readonly string[];
}

/** A loop of the schedule being walked; loops are told apart by identity, as an iname may be entered twice. */
type OpenLoop = Extract<ScheduleItem, { kind: 'loop' }>;

export function insertBarriers(knl: LoopKernel, items: readonly ScheduleItem[]): ScheduleItem[] {
  const analysis = new SyncAnalysis(knl);
  return analysis.walk(items, []).out;
}

/**
 * loopy's check of global barriers, over the whole schedule before it is split into device
 * kernels: a dependency through global memory between instructions that different
 * work-groups run needs a `... gbarrier` between them, else `MissingBarrierError`. The end
 * of a host loop also ends a launch, but it is not a barrier the kernel states, and loopy
 * asks for the barrier there too (test_missing_global_barrier). As in loopy's
 * insert_barriers, each loop is a block at its own level (what runs before it meets the
 * instructions its body runs before any global barrier, as it may run no iteration), and
 * the body's last instructions meet its first ones of the next iteration.
 */
export function checkGlobalBarriers(knl: LoopKernel, items: readonly ScheduleItem[]): void {
  const analysis = new SyncAnalysis(knl);
  const isGlobalBarrier = (id: string) =>
    knl.instruction(id).kind === 'barrier' && knl.instruction(id).barrierScope === 'global';
  const check = (earlier: Iterable<string>, later: Iterable<string>, mode: 'forward' | 'carried') => {
    for (const w of earlier) for (const r of later) analysis.need(w, r, mode, 'global');
  };
  const level = (list: readonly ScheduleItem[]) => {
    let since: string[] = [];
    for (const item of list) {
      if (item.kind === 'barrier') continue;
      if (item.kind === 'insn') {
        if (isGlobalBarrier(item.id)) since = [];
        else {
          check(since, [item.id], 'forward');
          since.push(item.id);
        }
        continue;
      }
      const head = reachedFromStart(item.body, isGlobalBarrier);
      const tail = reachingEnd(item.body, isGlobalBarrier);
      check(since, head, 'forward');
      check(tail, head, 'carried');
      level(item.body);
      since = [...since, ...tail];
    }
  };
  level(items);
}

/** The instructions of a loop body that run before its first global barrier (a nested loop's up to its own, as it may run no iteration). */
function reachedFromStart(items: readonly ScheduleItem[], isGlobalBarrier: (id: string) => boolean): string[] {
  const out: string[] = [];
  for (const it of items) {
    if (it.kind === 'barrier') continue;
    if (it.kind === 'insn') {
      if (isGlobalBarrier(it.id)) break;
      out.push(it.id);
    } else out.push(...reachedFromStart(it.body, isGlobalBarrier));
  }
  return out;
}

/** The instructions of a loop body that run after its last global barrier (a barrier in a nested loop orders nothing outside it). */
function reachingEnd(items: readonly ScheduleItem[], isGlobalBarrier: (id: string) => boolean): string[] {
  let out: string[] = [];
  for (const it of items) {
    if (it.kind === 'barrier') continue;
    if (it.kind === 'insn') {
      if (isGlobalBarrier(it.id)) out = [];
      else out.push(it.id);
    } else out.push(...reachingEnd(it.body, isGlobalBarrier));
  }
  return out;
}

function containsBarrier(items: readonly ScheduleItem[]): boolean {
  return items.some((it) => it.kind === 'barrier' || (it.kind === 'loop' && containsBarrier(it.body)));
}

function instructionsBeforeBarrier(items: readonly ScheduleItem[]): string[] {
  const out: string[] = [];
  for (const it of items) {
    if (it.kind === 'barrier') break;
    if (it.kind === 'insn') out.push(it.id);
    else {
      out.push(...instructionsBeforeBarrier(it.body));
      if (containsBarrier(it.body)) break;
    }
  }
  return out;
}

class SyncAnalysis {
  private readonly byId: Map<string, Instruction>;
  private readonly accesses: Map<string, Access[]>;
  private readonly prerequisites: (id: string) => ReadonlySet<string>;
  private readonly parallel: boolean;

  constructor(private readonly knl: LoopKernel) {
    this.byId = new Map(knl.instructions.map((i) => [i.id, i]));
    this.prerequisites = prerequisiteClosure(knl.instructions);
    this.accesses = new Map();
    // an asynchronous copy is waited for at a barrier even by the one work-item that issued it
    this.parallel =
      [...knl.inameTags.values()].some((t) => t.kind === 'local' || t.kind === 'group') ||
      knl.instructions.some((i) => i.asyncCopy);
    // without work-items to synchronize no barrier is ever needed (firstNeed): the accesses go unread
    if (!this.parallel) return;
    for (const a of allAccesses(knl))
      this.accesses.set(a.instruction.id, [...(this.accesses.get(a.instruction.id) ?? []), a]);
    for (const insn of knl.instructions) {
      const target = insn.kind === 'assign' ? soleAssignee(insn) : undefined;
      const list = this.accesses.get(insn.id) ?? [];
      if (target?.kind === 'var')
        list.push({
          array: target.name,
          indices: [],
          isWrite: true,
          reductionInames: [],
          instruction: insn,
          guards: insn.predicates,
        });
      // reads of scalar temporaries too: a local scalar written by one work-item (a reduction's
      // lane 0) and read by all needs its barrier like any array (differential seed 642683201)
      for (const name of namesRead(insn, knl.substitutions)) {
        const t = knl.temporaries.get(name);
        if (t && t.shape.length === 0)
          list.push({
            array: name,
            indices: [],
            isWrite: false,
            reductionInames: [],
            instruction: insn,
            guards: insn.predicates,
          });
      }
      this.accesses.set(insn.id, list);
    }
  }

  /** The loops open where each instruction of the walk ran (see Iterations). */
  private readonly openLoops = new Map<string, readonly OpenLoop[]>();

  walk(
    items: readonly ScheduleItem[],
    since: readonly string[],
    loops: readonly OpenLoop[] = [],
  ): { out: ScheduleItem[]; since: string[] } {
    const out: ScheduleItem[] = [];
    let pending = [...since];
    for (const item of items) {
      if (item.kind === 'barrier') {
        out.push(item);
        pending = [];
      } else if (item.kind === 'insn') {
        const insn = this.byId.get(item.id)!;
        if (insn.kind === 'barrier') {
          // a barrier item's scope is the memory it fences: `{mem_kind=global}` asks for global memory too
          out.push({
            kind: 'barrier',
            scope: insn.memKind === 'global' ? 'global' : (insn.barrierScope ?? 'local'),
            originatingInsnId: insn.id,
          });
          pending = [];
          continue;
        }
        const need = this.firstNeed(pending, insn.id, 'forward', loops);
        if (need) {
          out.push(...barriersFor(need));
          pending = [];
        }
        out.push(item);
        this.openLoops.set(insn.id, loops);
        pending.push(insn.id);
      } else {
        // a write before the loop that something in the loop depends on: synchronize once, before the loop
        const entry = scheduledInstructions(item.body)
          .map((r) => this.firstNeed(pending, r, 'forward', loops))
          .find((n) => n);
        if (entry) {
          out.push(...barriersFor(entry));
          pending = [];
        }
        const inner = this.walk(item.body, pending, [...loops, item]);
        const body = [...inner.out];
        let after = inner.since;
        // the next iteration's first instructions (before any barrier) meet this iteration's last ones
        const head: string[] = [];
        for (const x of inner.out) {
          if (x.kind === 'barrier') break;
          if (x.kind === 'insn') head.push(x.id);
          else {
            // a nested loop: its instructions up to its own first barrier run before any barrier here
            head.push(...instructionsBeforeBarrier(x.body));
            if (containsBarrier(x.body)) break;
          }
        }
        const carried = head.map((r) => this.firstNeed(inner.since, r, 'carried', loops)).find((n) => n);
        if (carried) {
          body.push(...barriersFor(carried, `${carried.comment} across iterations of '${item.iname}'`));
          after = [];
        }
        out.push({ kind: 'loop', iname: item.iname, body });
        pending = [...new Set([...pending, ...after])];
      }
    }
    return { out, since: pending };
  }

  /**
   * The first of `pending` that `reader` must wait for. `loops`: the loops open at the reader
   * (around the loop that carries the dependency, in 'carried' mode); the loops open at both
   * run the same iteration.
   */
  private firstNeed(
    pending: readonly string[],
    reader: string,
    mode: 'forward' | 'carried',
    loops: readonly OpenLoop[],
  ): Need | undefined {
    if (!this.parallel) return undefined;
    // every pending write is asked: the barrier must fence each memory one of them needs
    let first: Need | undefined;
    const fences = new Set<Need['fence']>();
    for (const writer of pending) {
      const open = this.openLoops.get(writer) ?? [];
      let shared = 0;
      while (shared < Math.min(open.length, loops.length) && open[shared] === loops[shared]) shared++;
      const iterations = { same: loops.slice(0, shared).map((l) => l.iname) };
      const need = this.need(writer, reader, mode, undefined, iterations);
      if (!need) continue;
      first ??= need;
      fences.add(need.fence);
    }
    if (!first) return undefined;
    return fences.size > 1 ? { ...first, fence: 'both' } : first;
  }

  /**
   * Whether `later` (after `earlier` in the schedule) must wait for it at a barrier: a
   * local one is returned, a missing global one is a MissingBarrierError (`only: 'global'`
   * looks for the latter alone).
   */
  need(
    earlier: string,
    later: string,
    mode: 'forward' | 'carried',
    only?: 'global',
    iterations: Iterations = { same: [] },
  ): Need | undefined {
    // no work-items to synchronize, no accesses recorded: asking which instruction depends on
    // which would only build the dependency closure (instructions² for a long sequence)
    if (earlier === later || !this.parallel) return undefined;
    const related =
      mode === 'forward'
        ? this.dependsOn(later, earlier)
        : this.dependsOn(later, earlier) || this.dependsOn(earlier, later);
    if (!related) return undefined;
    const a = this.byId.get(earlier)!;
    const b = this.byId.get(later)!;
    for (const v of this.sharedWrittenVariables(earlier, later)) {
      const space = this.addressSpaceOf(v);
      if (space === 'private') continue;
      // two atomic accesses of one variable (updates, fetches) need no order between them
      const atomicOn = (i: Instruction) => i.atomic || atomicFetchOf(i)?.element.array === v;
      if (atomicOn(a) && atomicOn(b)) continue;
      const [dependent, prerequisite] = this.dependsOn(later, earlier) ? [later, earlier] : [earlier, later];
      // what a work-item copied asynchronously is not there for its own reads until a barrier's wait
      const pendingCopy = this.byId.get(prerequisite)!.asyncCopy === true;
      if (this.sameWorkItem(v, a, b, iterations, pendingCopy)) continue;
      // global memory that work-items of different groups share needs a global barrier; shared
      // only within each group (softmax's row maximum, a group a row), a barrier fencing it
      const crossesGroups = space === 'global' && this.usesGroups(a, b) && !this.withinEachGroup(v, a, b, iterations);
      const scope = crossesGroups ? 'global' : 'local';
      if (only === 'global' && scope !== 'global') continue;
      if (waivesBarrier(a, b.id, scope) || waivesBarrier(b, a.id, scope)) continue;
      if (scope === 'global') {
        throw new MissingBarrierError(
          `${this.knl.name}: Dependency '${dependent} depends on ${prerequisite}' (for variable '${v}') requires synchronization by a global barrier (add a 'no_sync_with' instruction option to state that no synchronization is needed)`,
        );
      }
      return { fence: space, comment: `for ${v} (${dependent} depends on ${prerequisite})` };
    }
    return undefined;
  }

  private dependsOn(a: string, b: string): boolean {
    return this.prerequisites(a).has(b);
  }

  private sharedWrittenVariables(a: string, b: string): string[] {
    const mine = this.accesses.get(a) ?? [];
    const theirs = this.accesses.get(b) ?? [];
    const names = new Set<string>();
    for (const x of mine) {
      for (const y of theirs) if (x.array === y.array && (x.isWrite || y.isWrite)) names.add(x.array);
    }
    return [...names];
  }

  private addressSpaceOf(name: string): 'private' | 'local' | 'global' {
    const t = this.knl.temporaries.get(name);
    if (t) return t.addressSpace === 'auto' ? 'private' : t.addressSpace;
    return 'global';
  }

  /**
   * No work-item reaches an element of `v` in `a` that another reaches in `b` (one of the
   * two writing it): each works on its own elements (`t[l]` in both), or the two touch
   * disjoint ones (`a[2*l]` and `a[2*l + 1]`, loopy's test_no_barriers_for_nonoverlapping_access).
   * For local memory (one copy per work-group) the work-items told apart are those of the
   * local inames; for global memory those of every parallel iname. With a `pendingCopy` (the
   * prerequisite an asynchronous copy) only elements apart are enough.
   */
  private sameWorkItem(
    v: string,
    a: Instruction,
    b: Instruction,
    iterations: Iterations,
    pendingCopy = false,
  ): boolean {
    const of = (i: Instruction) => (this.accesses.get(i.id) ?? []).filter((x) => x.array === v);
    const conflicts = (apart: readonly string[] | 'any') =>
      of(a).some((x) =>
        of(b).some(
          (y) => (x.isWrite || y.isWrite) && !this.noElementShared(x.indices, a, y.indices, b, apart, iterations),
        ),
      );
    // iterations that touch different elements (the two buffers of a double buffer), whichever work-items run them
    if (iterations.same.length && !conflicts('any')) return true;
    if (pendingCopy) return !conflicts('any');
    const parallelOf = (i: Instruction) =>
      i.withinInames.filter((n) => {
        const t = this.knl.inameTags.get(n);
        return t?.kind === 'local' || t?.kind === 'group';
      });
    const pa = parallelOf(a);
    const pb = parallelOf(b);
    if (pa.length !== pb.length || pa.some((n) => !pb.includes(n))) return false;
    const distinguishing =
      this.addressSpaceOf(v) === 'local' ? pa.filter((n) => this.knl.inameTags.get(n)?.kind === 'local') : pa;
    return !conflicts(distinguishing);
  }

  /**
   * Whether no element that `first` reaches in `a` from one work-item (a value of the
   * `distinguishing` inames) `second` reaches in `b` from another: the pairs of points of
   * their domains with equal indices and a different value of one distinguishing iname
   * are empty. Indices that are not affine in the inames and parameters may share: false.
   */
  private noElementShared(
    first: readonly Expr[],
    a: Instruction,
    second: readonly Expr[],
    b: Instruction,
    distinguishing: readonly string[] | 'any',
    iterations: Iterations,
  ): boolean {
    if (first.length !== second.length) return false;
    const [da, db] = [a, b].map((i) => domainOf(this.knl, i.withinInames));
    // the axes both index affinely: equal indices there are necessary for a shared element, so
    // when no pair of points has them, none shares one (a double buffer's first axis, or a
    // work-item's own row, is enough whatever the other axes' divisions and remainders)
    const forms = first.map((_, k) => {
      const f = indexForm(first[k], `_loom_ea${k}_`);
      const g = indexForm(second[k], `_loom_eb${k}_`);
      return f && g && knownIn(da, f) && knownIn(db, g) ? ([f, g] as const) : undefined;
    });
    const affine = forms.filter((x) => x !== undefined && !x[0].floors.length && !x[1].floors.length);
    if (affine.length && this.apartOn(affine, da, db, distinguishing, iterations)) return true;
    // then with the axes of one division or remainder a side too (a buffer `(parity + 2) % 3` of a
    // three-stage pipeline); more (a core matrix's index) would cost the test more than it tells
    const single = forms.filter((x) => x !== undefined && x[0].floors.length <= 1 && x[1].floors.length <= 1);
    return single.length > affine.length && this.apartOn(single, da, db, distinguishing, iterations);
  }

  /** Whether no pair of points of `da` and `db` with equal indices on `axes` is apart as noElementShared asks. */
  private apartOn(
    axes: readonly (readonly [IndexForm, IndexForm] | undefined)[],
    da: BasicSet,
    db: BasicSet,
    distinguishing: readonly string[] | 'any',
    iterations: Iterations,
  ): boolean {
    const pairs = axes.filter((x) => x !== undefined);
    // the second point's inames primed, so that the two points are apart
    const other = new Map(db.dims.map((d) => [d, `${d}'`] as const));
    const renamed = [...other].reduce((set, [from, to]) => set.renameVariable(from, to), db);
    const primed = (f: Linear) =>
      Linear.of(
        [...f.coeffs].map(([n, c]) => [other.get(n) ?? n, c] as const),
        f.constant,
      );
    const floors = pairs.flatMap(([f, g]) => [
      ...f.floors,
      ...g.floors.map((q) => ({ ...q, numerator: primed(q.numerator) })),
    ]);
    const sameElement = pairs.map(([f, g]) => eq(f.lin.sub(primed(g.lin))));
    // the loops around both run the same iteration
    const inBoth = (n: string) => da.dims.includes(n) && other.has(n);
    const sameIteration = iterations.same
      .filter(inBoth)
      .map((n) => eq(Linear.variable(other.get(n)!).sub(Linear.variable(n))));
    const both = da
      .intersect(renamed)
      .addParams(floors.map((q) => q.name))
      .addConstraints([...floorConstraints(floors), ...sameElement, ...sameIteration]);
    const apart = (n: string, sign: 1 | -1) =>
      ge(
        Linear.variable(other.get(n) ?? n)
          .sub(Linear.variable(n))
          .scale(sign)
          .sub(1),
      );
    if (distinguishing === 'any') return both.isEmpty();
    return distinguishing.every(
      (n) => both.addConstraints([apart(n, 1)]).isEmpty() && both.addConstraints([apart(n, -1)]).isEmpty(),
    );
  }

  /**
   * Whether the work-items that share an element of global `v` between `a` and `b` are always of
   * one group: both run within the same group inames, and no element is reached from two values
   * of one of them (`mx[i]` with i on g.0, written by one work-item of the group and read by all).
   */
  private withinEachGroup(v: string, a: Instruction, b: Instruction, iterations: Iterations): boolean {
    const groupsOf = (i: Instruction) => i.withinInames.filter((n) => this.knl.inameTags.get(n)?.kind === 'group');
    const [ga, gb] = [groupsOf(a), groupsOf(b)];
    if (ga.length === 0 || ga.length !== gb.length || ga.some((n) => !gb.includes(n))) return false;
    const of = (i: Instruction) => (this.accesses.get(i.id) ?? []).filter((x) => x.array === v);
    return of(a).every((x) =>
      of(b).every((y) => !(x.isWrite || y.isWrite) || this.noElementShared(x.indices, a, y.indices, b, ga, iterations)),
    );
  }

  private usesGroups(a: Instruction, b: Instruction): boolean {
    return [...a.withinInames, ...b.withinInames].some((n) => this.knl.inameTags.get(n)?.kind === 'group');
  }
}

/** An index as an affine form, with a variable for each floor division or remainder by a constant. */
interface IndexForm {
  readonly lin: Linear;
  readonly floors: readonly FloorVariable[];
}

/** `e` as an IndexForm; undefined where it is not quasi-affine. */
function indexForm(e: Expr, prefix: string): IndexForm | undefined {
  const lin = toLinear(e);
  if (lin) return { lin, floors: [] };
  const q = quasiAffine(e, prefix);
  return q && q.products.length === 0 ? { lin: q.lin, floors: q.floors } : undefined;
}

/** Every variable of the form is one of the set's, or one of its own floor variables. */
function knownIn(set: BasicSet, form: IndexForm): boolean {
  const own = new Set(form.floors.map((q) => q.name));
  const known = (f: Linear) =>
    [...f.coeffs.keys()].every((n) => own.has(n) || set.dims.includes(n) || set.params.includes(n));
  return known(form.lin) && form.floors.every((q) => known(q.numerator));
}
