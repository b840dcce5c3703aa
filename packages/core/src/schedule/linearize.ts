/**
 * Linearization: an order of loops and instructions that honours every dependency,
 * with each sequential loop entered exactly once.
 *
 * The search enters loops, schedules ready instructions, and leaves loops, with
 * backtracking over the choice of which loop to enter next. Loop priorities
 * (`prioritizeLoops`) are advice used to break ties. When no order exists, the
 * error says why: a dependency cycle, or a loop that would have to be entered
 * twice because something outside it sits between two of its instructions.
 */
import { DependencyCycleFound, LinearizationError, LoomWarning, reportWarning } from '../errors.ts';
import { isParallelTag, type Instruction, type LoopKernel } from '../kernel/model.ts';
import { homeDomainIndex, parentInames } from '../kernel/domains.ts';
import { nameWritten } from '../kernel/accesses.ts';
import { prerequisiteClosure } from '../kernel/dependencies.ts';

/** An item of a linearized kernel: entering or leaving a loop, running an instruction, a barrier. */
export type ScheduleItem =
  | { readonly kind: 'loop'; readonly iname: string; readonly body: readonly ScheduleItem[] }
  | { readonly kind: 'insn'; readonly id: string }
  /**
   * Inserted by the barrier pass (`schedule/barriers.ts`), or a user's `... lbarrier`, whose id
   * `originatingInsnId` keeps (loopy's `originating_insn_id`: the dependency graph draws it there).
   */
  | {
      readonly kind: 'barrier';
      readonly scope: 'local' | 'global';
      readonly comment?: string;
      readonly originatingInsnId?: string;
    };

export function linearize(knl: LoopKernel): ScheduleItem[] {
  const insns = knl.instructions;
  // hardware axes are not loops, and ILP inames are opened around each instruction by itself
  // ILP and vec inames are opened around each instruction on its own (codegen/builder.ts), as in loopy,
  // and a tensor tile's inames are one matrix instruction (tensorize)
  const isLoop = (n: string) => {
    const tag = knl.inameTags.get(n);
    return !isParallelTag(tag) && tag?.kind !== 'ilp' && tag?.kind !== 'vec' && tag?.kind !== 'tensor';
  };
  const loopsOf = new Map(insns.map((i) => [i.id, new Set(i.withinInames.filter(isLoop))]));
  explainImpossibleOrders(insns, loopsOf);
  explainLoopsOutsideTheirBounds(knl, loopsOf, isLoop);

  const search = new Search(knl, loopsOf);
  const result = search.run();
  if (!result) throw new LinearizationError(search.explainFailure());
  for (const [a, b] of search.ambiguities) {
    reportWarning(
      new LoomWarning(
        `kernel '${knl.name}': the nesting of loops '${a}' and '${b}' is ambiguous; chose '${a}' outside '${b}' (use prioritizeLoops(knl, "${a},${b}") to decide)`,
        'LoopNestAmbiguityWarning',
      ),
    );
  }
  return result;
}

/** Ids of the instructions in a schedule, in order (loops entered). */
export function scheduledInstructions(items: readonly ScheduleItem[]): string[] {
  return items.flatMap((it) =>
    it.kind === 'insn' ? [it.id] : it.kind === 'loop' ? scheduledInstructions(it.body) : [],
  );
}

/** Loop and instruction ids, depth first, for printing and tests. */
export function scheduleToString(items: readonly ScheduleItem[], indent = ''): string {
  return items
    .map((it) =>
      it.kind === 'insn'
        ? `${indent}${it.id}`
        : it.kind === 'barrier'
          ? `${indent}... ${it.scope === 'global' ? 'gbarrier' : 'lbarrier'}`
          : `${indent}for ${it.iname}\n${scheduleToString(it.body, `${indent}  `)}\n${indent}end ${it.iname}`,
    )
    .join('\n');
}

function explainImpossibleOrders(
  insns: readonly Instruction[],
  loopsOf: ReadonlyMap<string, ReadonlySet<string>>,
): void {
  const byId = new Map(insns.map((i) => [i.id, i]));
  // dependency cycles
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(id)), id];
      throw new DependencyCycleFound(
        `dependency cycle: ${cycle.map((c) => `'${c}'`).join(' depends on ')}; no instruction can go first`,
      );
    }
    state.set(id, 'visiting');
    path.push(id);
    for (const d of byId.get(id)?.dependsOn ?? []) if (byId.has(d)) visit(d);
    path.pop();
    state.set(id, 'done');
  };
  for (const i of insns) visit(i.id);

  // a loop entered once cannot surround both ends of a chain that leaves it in the middle
  const prereqs = prerequisiteClosure(insns);
  const allLoops = new Set(insns.flatMap((i) => [...loopsOf.get(i.id)!]));
  for (const loop of allLoops) {
    for (const b of insns) {
      if (!loopsOf.get(b.id)!.has(loop)) continue;
      for (const x of prereqs(b.id)) {
        if (loopsOf.get(x)!.has(loop)) continue;
        const a = [...prereqs(x)].find((id) => loopsOf.get(id)!.has(loop));
        if (a) {
          throw new LinearizationError(
            `no valid order: instruction '${b.id}' (inside loop '${loop}') depends on '${x}' (outside loop '${loop}'), ` +
              `which depends on '${a}' (inside loop '${loop}'). Each loop is entered once, so '${x}' would have to run ` +
              `both after and inside loop '${loop}'. Put '${x}' into loop '${loop}' (inames=+${loop}), or give one side its own iname (duplicateInames).`,
          );
        }
      }
    }
  }
}

/**
 * A loop whose bounds name another loop (its domain has that iname as a parameter) is
 * entered only inside that one; an instruction that runs in the first but not in the
 * second could only be scheduled outside the second: no order exists. (Hardware axes are
 * known everywhere.) Transformations keep their instructions inside such loops
 * (footprint-store.ts); a kernel written so is refused here, saying which.
 */
function explainLoopsOutsideTheirBounds(
  knl: LoopKernel,
  loopsOf: ReadonlyMap<string, ReadonlySet<string>>,
  isLoop: (iname: string) => boolean,
): void {
  for (const insn of knl.instructions) {
    const loops = loopsOf.get(insn.id)!;
    for (const loop of loops) {
      const outside = parentInames(knl, loop).find((p) => isLoop(p) && !loops.has(p));
      if (outside === undefined) continue;
      throw new LinearizationError(
        `kernel '${knl.name}': no valid order: instruction '${insn.id}' runs in loop '${loop}', whose bounds depend on loop '${outside}' (${homeDomainText(knl, loop)}), ` +
          `but '${insn.id}' is not inside '${outside}': '${loop}' can only be entered inside '${outside}', and '${insn.id}' only outside it. ` +
          `Put '${insn.id}' into loop '${outside}' (inames=+${outside}).`,
      );
    }
  }
}

function homeDomainText(knl: LoopKernel, iname: string): string {
  return knl.domains[homeDomainIndex(knl, iname)].toString();
}

interface State {
  readonly stack: readonly string[];
  readonly scheduled: ReadonlySet<string>;
  readonly closed: ReadonlySet<string>;
}

class Search {
  readonly ambiguities: [string, string][] = [];
  private readonly failed = new Set<string>();
  private steps = 0;
  private furthest: State | undefined;
  private readonly insns: readonly Instruction[];
  private readonly order: readonly Instruction[];
  private readonly ids: ReadonlySet<string>;
  /** Each iname's place in the kernel's declaration order, the last tie-break between loops. */
  private readonly declared: ReadonlyMap<string, number>;

  /** Per iname: the writers of the temporaries its bounds read (loopy's data-dependent domains). */
  private readonly boundWriters: ReadonlyMap<string, readonly string[]>;

  constructor(
    private readonly knl: LoopKernel,
    private readonly loopsOf: ReadonlyMap<string, ReadonlySet<string>>,
  ) {
    this.insns = knl.instructions;
    this.ids = new Set(this.insns.map((i) => i.id));
    this.declared = new Map(knl.inames.map((n, k) => [n, k]));
    // higher priority first, then declaration order
    this.order = [...this.insns].sort((a, b) => b.priority - a.priority);
    this.boundWriters = new Map(
      knl.inames.map((n) => {
        const read = knl.domains[homeDomainIndex(knl, n)].params.filter((p) => knl.temporaries.has(p));
        return [n, this.insns.filter((i) => read.includes(nameWritten(i) ?? '')).map((i) => i.id)];
      }),
    );
  }

  /** Whether the temporaries that bound these inames are all written already. */
  private boundsKnown(inames: Iterable<string>, s: State): boolean {
    return [...inames].every((n) => this.boundWriters.get(n)!.every((w) => s.scheduled.has(w)));
  }

  run(): ScheduleItem[] | undefined {
    const start: State = { stack: [], scheduled: new Set(), closed: new Set() };
    const items = this.step(start);
    return items && buildTree(items);
  }

  /** A flat list of events ('enter i', 'insn x', 'leave i') that completes the schedule, or undefined. */
  private step(start: State): string[] | undefined {
    // 1. instructions that are ready here: always safe to do them now, so they are taken in
    // a loop, not a recursion, which would cost a stack frame per instruction (10,000
    // instructions in one loop overflowed the stack). Only the state where the loop stops
    // is a branching point, remembered when it fails.
    const done: string[] = [];
    let s = start;
    let scheduled: Set<string> | undefined; // this step's own copy, once it adds to it
    for (;;) {
      if (++this.steps > 200_000) return undefined;
      if (!this.furthest || s.scheduled.size > this.furthest.scheduled.size) this.furthest = s;
      if (s.scheduled.size === this.insns.length && s.stack.length === 0) return done;
      const active = new Set(s.stack);
      const ready = this.order.find(
        (i) =>
          !s.scheduled.has(i.id) &&
          sameSet(this.loopsOf.get(i.id)!, active) &&
          i.dependsOn.every((d) => s.scheduled.has(d) || !this.has(d)) &&
          this.boundsKnown(i.withinInames, s),
      );
      if (!ready) break;
      scheduled ??= new Set(s.scheduled);
      scheduled.add(ready.id);
      s = { ...s, scheduled };
      done.push(`insn ${ready.id}`);
    }
    if (scheduled) s = { ...s, scheduled: new Set(scheduled) }; // frozen from here: later states share it
    const rest = this.branch(s);
    return rest && [...done, ...rest];
  }

  /** Steps 2 and 3, from a state where no instruction is ready: the choices, tried in turn. */
  private branch(s: State): string[] | undefined {
    const key = `${[...s.scheduled].sort().join(',')}|${s.stack.join(',')}|${[...s.closed].sort().join(',')}`;
    if (this.failed.has(key)) return undefined;
    const active = new Set(s.stack);
    // 2. enter a loop that some waiting instruction needs
    for (const loop of this.candidates(s, active)) {
      const rest = this.step({ ...s, stack: [...s.stack, loop] });
      if (rest) return [`enter ${loop}`, ...rest];
    }
    // 3. leave the innermost loop once nothing left needs it
    const top = s.stack[s.stack.length - 1];
    if (top !== undefined && !this.insns.some((i) => !s.scheduled.has(i.id) && this.loopsOf.get(i.id)!.has(top))) {
      const rest = this.step({ ...s, stack: s.stack.slice(0, -1), closed: new Set([...s.closed, top]) });
      if (rest) return [`leave ${top}`, ...rest];
    }
    this.failed.add(key);
    return undefined;
  }

  private has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Loops that may be entered now, best first (needed by a ready instruction, then by priority). */
  private candidates(s: State, active: ReadonlySet<string>): string[] {
    const needing = this.insns.filter(
      (i) => !s.scheduled.has(i.id) && [...active].every((n) => this.loopsOf.get(i.id)!.has(n)),
    );
    const depsDone = (i: Instruction) =>
      i.dependsOn.every((d) => s.scheduled.has(d) || !this.has(d) || this.loopsOf.get(d) === undefined);
    const score = new Map<string, number>();
    for (const insn of needing) {
      for (const loop of this.loopsOf.get(insn.id)!) {
        if (active.has(loop) || s.closed.has(loop)) continue;
        if (!parentInames(this.knl, loop).every((p) => active.has(p) || isParallelTag(this.knl.inameTags.get(p))))
          continue;
        // a loop bounded by a temporary starts once the temporary is written
        if (!this.boundsKnown([loop], s)) continue;
        score.set(loop, Math.max(score.get(loop) ?? 0, depsDone(insn) ? 2 : 1));
      }
    }
    const loops = [...score.keys()];
    const mustBeOutside = (a: string, b: string) =>
      this.knl.loopPriorities.some((p) => p.includes(a) && p.includes(b) && p.indexOf(a) < p.indexOf(b));
    loops.sort((a, b) => {
      if (mustBeOutside(a, b)) return -1;
      if (mustBeOutside(b, a)) return 1;
      return score.get(b)! - score.get(a)! || this.declared.get(a)! - this.declared.get(b)!;
    });
    // an ambiguity: the first choice and another are both required by one ready instruction, with no priority between them
    if (loops.length > 1) {
      const first = loops[0];
      // asked once per loop: the instructions that need the first are few, the loops many (a long kernel)
      const needingFirst = needing.filter((i) => this.loopsOf.get(i.id)!.has(first) && depsDone(i));
      for (const other of loops.slice(1)) {
        const together = needingFirst.some((i) => this.loopsOf.get(i.id)!.has(other));
        if (
          together &&
          !mustBeOutside(first, other) &&
          !mustBeOutside(other, first) &&
          !this.ambiguities.some(([x, y]) => x === first && y === other)
        ) {
          this.ambiguities.push([first, other]);
        }
      }
    }
    return loops;
  }

  explainFailure(): string {
    const s = this.furthest;
    if (!s) return `kernel '${this.knl.name}': no valid order of loops and instructions was found`;
    const waiting = this.insns
      .filter((i) => !s.scheduled.has(i.id))
      .map((i) => {
        const missing = i.dependsOn.filter((d) => !s.scheduled.has(d));
        const loops = [...this.loopsOf.get(i.id)!];
        return `'${i.id}' (loops: ${loops.join(', ') || 'none'}${missing.length ? `; waits for ${missing.join(', ')}` : ''})`;
      });
    return (
      `kernel '${this.knl.name}': no valid order of loops and instructions was found. ` +
      `Furthest point: scheduled ${[...s.scheduled].join(', ') || 'nothing'}; open loops: ${s.stack.join(', ') || 'none'}; ` +
      `loops already closed (each loop is entered once): ${[...s.closed].join(', ') || 'none'}. Still waiting: ${waiting.join('; ')}.`
    );
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function buildTree(events: readonly string[]): ScheduleItem[] {
  const root: ScheduleItem[] = [];
  const stack: { iname: string; body: ScheduleItem[] }[] = [];
  const current = () => (stack.length ? stack[stack.length - 1].body : root);
  for (const ev of events) {
    const [what, name] = ev.split(' ');
    if (what === 'insn') current().push({ kind: 'insn', id: name });
    else if (what === 'enter') stack.push({ iname: name, body: [] });
    else {
      const done = stack.pop()!;
      current().push({ kind: 'loop', iname: done.iname, body: done.body });
    }
  }
  return root;
}
