/**
 * `saveAndReloadTemporaries`: private and local temporaries die when a device kernel
 * ends, so a value one device kernel leaves in one and a later one reads must be saved to
 * global memory and reloaded (loopy's save_and_reload_temporaries). The kernel is split
 * at its global barriers as code generation splits it (codegen/subkernels.ts), host loops
 * included; then, in execution order, with each host loop's body run twice (what its last
 * kernel writes, the next iteration's first may read):
 *
 *  - a kernel that reads a temporary before writing it, after an earlier kernel wrote it,
 *    reloads it first (`<t>_reload`, after the global barrier before the kernel);
 *  - a kernel that writes a temporary some later kernel reloads saves it last (`<t>_save`,
 *    before the global barrier after the kernel).
 *
 * One global slot per temporary (`<t>_save_slot`) holds it, indexed by the hardware axes of
 * the instructions that use it (each work-item saves its own copy; a local array is saved
 * whole by each) and by the temporary's own axes. Saves and reloads run in the host loops
 * around their kernel.
 */
import { collectWarnings, LoomError } from '../errors.ts';
import { binary, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { Linear } from '../linear.ts';
import { fromLinear, printExpr } from '../expr/index.ts';
import { BasicSet } from '../sets/index.ts';
import { namesRead, namesWritten } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import { tagToString, type Instruction, type LoopKernel, type TemporaryVariable } from '../kernel/model.ts';
import { linearize, scheduledInstructions, type ScheduleItem } from '../schedule/linearize.ts';
import type { HostScheduleItem, Subkernel } from '../schedule/host-schedule.ts';
import { splitAtGlobalBarriers } from '../codegen/subkernels.ts';
import { uniqueName } from '../kernel/rename.ts';

/** Saves the temporaries that live across global barriers to global memory and reloads them after (loopy's `save_and_reload_temporaries`). */
export function saveAndReloadTemporaries(knl: LoopKernel): LoopKernel {
  // (the linearizer's warnings come again, to the user, when the result is generated)
  const { subkernels, host } = collectWarnings(() =>
    splitAtGlobalBarriers(knl, linearize(knl), { checkDefinitions: false }),
  ).result;
  const carried = [...knl.temporaries.values()].filter((t) => t.addressSpace !== 'global' && !t.initializer);
  if (subkernels.length < 2 || carried.length === 0) return knl;

  const uses = subkernels.map((sub) => usesOf(knl, sub.schedule));
  const order = executionOrder(host);
  const neighbours = barrierNeighbours(host);

  let instructions = [...knl.instructions];
  const temporaries = new Map(knl.temporaries);
  const domains = [...knl.domains];
  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...temporaries.keys(),
    ...instructions.map((i) => i.id),
  ]);
  const fresh = (base: string) => {
    const n = uniqueName(base, taken);
    taken.add(n);
    return n;
  };
  const base = {
    noSyncWith: [],
    priority: 0,
    predicates: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  } as const;
  const addDependency = (ids: ReadonlySet<string>, on: string) => {
    instructions = instructions.map((i) => (ids.has(i.id) ? { ...i, dependsOn: [...i.dependsOn, on] } : i));
  };

  for (const t of carried) {
    // (S, t) is reloaded when S reads t first, after a kernel that wrote it
    const reloads = new Set<number>();
    order.forEach((s, at) => {
      if (uses[s].readsFirst.has(t.name) && order.slice(0, at).some((w) => uses[w].writes.has(t.name))) reloads.add(s);
    });
    if (reloads.size === 0) continue;
    const saves = new Set<number>();
    order.forEach((w, at) => {
      if (uses[w].writes.has(t.name) && order.slice(at + 1).some((s) => reloads.has(s))) saves.add(w);
    });

    const axes = slotAxes(knl, t, subkernels, [...saves, ...reloads]);
    const slot = fresh(`${t.name}_save_slot`);
    temporaries.set(slot, {
      name: slot,
      dtype: t.dtype,
      shape: [...axes.extents, ...t.shape],
      addressSpace: 'global',
    } satisfies TemporaryVariable);
    // each save and reload runs over the temporary's elements with inames of its own
    const elementDims = (): string[] => {
      const dims = t.shape.map((_, k) => fresh(`${t.name}_dim_${k}`));
      if (dims.length) domains.push(elementDomain(t, dims));
      return dims;
    };
    const ends = (sub: number, dims: readonly string[]) => {
      const hw = axes.inamesIn(sub);
      return {
        slot: subscript(slot, [...hw.map((n) => variable(n)), ...dims.map((d) => variable(d))]),
        element: dims.length
          ? subscript(
              t.name,
              dims.map((d) => variable(d)),
            )
          : variable(t.name),
        within: [...hw, ...dims, ...subkernels[sub].hostInames],
      };
    };

    for (const w of saves) {
      const dims = elementDims();
      const { slot: into, element, within } = ends(w, dims);
      const id = fresh(`${t.name}_save`);
      instructions.push({
        ...base,
        kind: 'assign',
        id,
        assignees: [into],
        expression: element,
        withinInames: within,
        dependsOn: [...uses[w].writers(t.name)],
      });
      // the save ends its kernel: the next global barrier waits for it
      const next = neighbours.get(w)?.next;
      if (next) addDependency(new Set([next]), id);
    }
    for (const s of reloads) {
      const dims = elementDims();
      const { slot: from, element, within } = ends(s, dims);
      const id = fresh(`${t.name}_reload`);
      const previous = neighbours.get(s)?.previous;
      instructions.push({
        ...base,
        kind: 'assign',
        id,
        assignees: [element],
        expression: from,
        withinInames: within,
        dependsOn: previous ? [previous] : [],
      });
      // the reload starts its kernel: whatever the kernel does with t comes after it
      addDependency(uses[s].users(t.name), id);
    }
  }
  return knl.with({ instructions, temporaries, domains });
}

interface KernelUses {
  /** Temporaries the kernel reads before it writes them (it needs them from an earlier kernel). */
  readonly readsFirst: ReadonlySet<string>;
  readonly writes: ReadonlySet<string>;
  writers(name: string): ReadonlySet<string>;
  users(name: string): ReadonlySet<string>;
}

function usesOf(knl: LoopKernel, schedule: readonly ScheduleItem[]): KernelUses {
  const readsFirst = new Set<string>();
  const writes = new Set<string>();
  const insns = scheduledInstructions(schedule).map((id) => knl.instruction(id));
  for (const insn of insns) {
    for (const n of namesRead(insn, knl.substitutions)) if (!writes.has(n)) readsFirst.add(n);
    for (const n of namesWritten(insn)) writes.add(n);
  }
  const ids = (test: (i: Instruction) => boolean) => new Set(insns.filter(test).map((i) => i.id));
  return {
    readsFirst,
    writes,
    writers: (name) => ids((i) => namesWritten(i).includes(name)),
    users: (name) => ids((i) => namesWritten(i).includes(name) || namesRead(i, knl.substitutions).has(name)),
  };
}

/** The kernels in the order the host launches them, each host loop's body twice. */
function executionOrder(host: readonly HostScheduleItem[]): number[] {
  return host.flatMap((h) =>
    h.kind === 'launch'
      ? [h.subkernel]
      : h.kind === 'loop'
        ? [...executionOrder(h.body), ...executionOrder(h.body)]
        : [],
  );
}

/** Per kernel, the global barriers next to it in its loop body: the last one before, the first one after. */
function barrierNeighbours(host: readonly HostScheduleItem[]): Map<number, { previous?: string; next?: string }> {
  const out = new Map<number, { previous?: string; next?: string }>();
  const barriersIn = (items: readonly HostScheduleItem[]): string[] =>
    items.flatMap((h) => (h.kind === 'barrier' ? [h.id] : h.kind === 'loop' ? barriersIn(h.body) : []));
  const visit = (items: readonly HostScheduleItem[]) => {
    items.forEach((h, k) => {
      if (h.kind === 'loop') visit(h.body);
      if (h.kind !== 'launch') return;
      out.set(h.subkernel, { previous: barriersIn(items.slice(0, k)).at(-1), next: barriersIn(items.slice(k + 1))[0] });
    });
  };
  visit(host);
  return out;
}

/**
 * The slot's leading axes: one per hardware axis the temporary's users run on (the same
 * axes, of the same lengths, in every kernel that saves or reloads it), and, per kernel,
 * the iname on each axis there.
 */
function slotAxes(knl: LoopKernel, t: TemporaryVariable, subkernels: readonly Subkernel[], kernels: readonly number[]) {
  const users = (sub: number) =>
    scheduledInstructions(subkernels[sub].schedule)
      .map((id) => knl.instruction(id))
      .filter((i) => namesWritten(i).includes(t.name) || namesRead(i, knl.substitutions).has(t.name));
  const axesOf = (insn: Instruction) =>
    new Map(
      insn.withinInames
        .filter((n) => ['local', 'group'].includes(knl.inameTags.get(n)?.kind ?? ''))
        .map((n) => [tagToString(knl.inameTags.get(n)), n] as const),
    );
  const first = users(kernels[0])[0];
  const tags = [...axesOf(first).keys()].sort();
  const extents = tags.map((tag) => extentOf(knl, axesOf(first).get(tag)!));
  const perKernel = new Map<number, string[]>();
  for (const sub of kernels) {
    for (const insn of users(sub)) {
      const mine = axesOf(insn);
      const same =
        mine.size === tags.length &&
        tags.every((tag, k) => mine.has(tag) && printExpr(extentOf(knl, mine.get(tag)!)) === printExpr(extents[k]));
      if (!same) {
        throw new LoomError(
          `saveAndReloadTemporaries: '${t.name}' is used by '${first.id}' on the hardware axes (${tags.join(', ') || 'none'}) and by '${insn.id}' on (${[...mine.keys()].sort().join(', ') || 'none'}), or with other lengths: its save slot would need both layouts`,
        );
      }
      if (!perKernel.has(sub))
        perKernel.set(
          sub,
          tags.map((tag) => mine.get(tag)!),
        );
    }
  }
  return { extents, inamesIn: (sub: number) => perKernel.get(sub)! };
}

function elementDomain(t: TemporaryVariable, dims: readonly string[]): BasicSet {
  return BasicSet.fromConstraints(
    [],
    dims,
    t.shape.flatMap((s, k) => {
      if (s.kind !== 'int') throw new LoomError(`saveAndReloadTemporaries: '${t.name}' needs a constant shape`);
      return [
        { kind: 'ge' as const, expr: Linear.variable(dims[k]) },
        { kind: 'ge' as const, expr: Linear.constant(s.value - 1).sub(Linear.variable(dims[k])) },
      ];
    }),
  );
}

/** Number of values of an iname (its upper bound + 1, lower bound 0 required), in the parameters. */
function extentOf(knl: LoopKernel, iname: string): Expr {
  const domain = domainOf(knl, [iname]);
  const lows = domain.lowerBounds(iname, []);
  if (!lows.some((b) => b.expr.isConstant && b.expr.constant === 0 && b.divisor === 1)) {
    throw new LoomError(`saveAndReloadTemporaries: '${iname}' must start at 0 to index a save slot`);
  }
  const up = domain.upperBounds(iname, []).find((b) => b.divisor === 1) ?? domain.upperBounds(iname, [])[0];
  if (!up) throw new LoomError(`saveAndReloadTemporaries: '${iname}' has no upper bound`);
  const plusOne = up.expr.add(up.divisor);
  return up.divisor === 1 ? fromLinear(plusOne) : binary('//', fromLinear(plusOne), int(up.divisor));
}
