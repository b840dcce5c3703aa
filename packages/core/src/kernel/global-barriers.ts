/**
 * What a kernel's global barriers divide it into, read from its dependencies (loopy's
 * kernel/tools.py): the order of the `... gbarrier` instructions, the latest one each
 * instruction waits for, and, once linearized, the device kernels and the instructions
 * each one runs.
 */
import { DependencyCycleFound, LoomError } from '../errors.ts';
import type { LinearizedKernel } from '../codegen/generate.ts';
import type { ScheduleItem } from '../schedule/linearize.ts';
import type { Instruction, LoopKernel } from './model.ts';

const isGlobalBarrier = (insn: Instruction) => insn.kind === 'barrier' && insn.barrierScope === 'global';

/**
 * The ids of the kernel's global barriers in the one order its dependencies allow
 * (loopy's get_global_barrier_order): each depends, directly or not, on the one before.
 * Two barriers no dependency orders are a LoomError: the kernel could run them either way.
 *
 * @example
 * const knl = makeKernel('{[i]: 0<=i<n}', `
 *   ... gbarrier {id=first}
 *   out[i] = 1 {id=w, dep=first}
 *   ... gbarrier {id=second, dep=w}`);
 * getGlobalBarrierOrder(knl); // ['first', 'second']
 */
export function getGlobalBarrierOrder(knl: LoopKernel): string[] {
  const barriers = topologicalOrder(knl).filter((id) => isGlobalBarrier(knl.instruction(id)));
  for (let k = 1; k < barriers.length; k++) {
    if (!reaches(knl, barriers[k], barriers[k - 1])) {
      throw new LoomError(
        `global barriers '${barriers[k - 1]}' and '${barriers[k]}' are not ordered: make one depend on the other ({dep=${barriers[k - 1]}} on '${barriers[k]}')`,
        knl.instruction(barriers[k]).span,
      );
    }
  }
  return barriers;
}

/**
 * The latest global barrier that instruction `id` depends on, directly or through other
 * instructions, or undefined where it depends on none (loopy's find_most_recent_global_barrier).
 *
 * @example
 * findMostRecentGlobalBarrier(knl, 'w'); // 'first', with the kernel of getGlobalBarrierOrder's example
 */
export function findMostRecentGlobalBarrier(knl: LoopKernel, id: string): string | undefined {
  const insn = knl.instructions.find((i) => i.id === id);
  if (!insn) throw new LoomError(`findMostRecentGlobalBarrier: no instruction '${id}' in kernel '${knl.name}'`);
  if (insn.dependsOn.length === 0) return undefined;
  const order = getGlobalBarrierOrder(knl);
  if (order.length === 0) return undefined;
  const ordinal = new Map(order.map((b, k) => [b, k]));
  const latest = (ids: readonly (string | undefined)[]) =>
    ids.reduce<string | undefined>(
      (best, b) => (b !== undefined && (best === undefined || ordinal.get(b)! > ordinal.get(best)!) ? b : best),
      undefined,
    );
  const memo = new Map<string, string | undefined>();
  const visit = (at: string): string | undefined => {
    if (memo.has(at)) return memo.get(at);
    const deps = knl.instruction(at).dependsOn;
    const direct = deps.filter((d) => isGlobalBarrier(knl.instruction(d)));
    const found = direct.length ? latest(direct) : latest(deps.map(visit));
    memo.set(at, found);
    return found;
  };
  return visit(id);
}

/**
 * The names of the device kernels a linearized kernel launches, in launch order (loopy's
 * get_subkernels).
 *
 * @example
 * getSubkernels(getOneLinearizedKernel(knl)); // ['loopy_kernel', 'loopy_kernel_0']
 */
export function getSubkernels(linearized: LinearizedKernel): string[] {
  return linearized.subkernels.map((sub) => sub.name);
}

/**
 * Each device kernel's name, with the ids of the instructions it runs (loopy's
 * get_subkernel_to_insn_id_map; barriers are not instructions it runs).
 *
 * @example
 * getSubkernelToInsnIdMap(getOneLinearizedKernel(knl)).get('loopy_kernel_0'); // Set {'w'}
 */
export function getSubkernelToInsnIdMap(linearized: LinearizedKernel): Map<string, Set<string>> {
  const ids = (items: readonly ScheduleItem[]): string[] =>
    items.flatMap((it) =>
      it.kind === 'loop'
        ? ids(it.body)
        : it.kind === 'insn' && linearized.kernel.instruction(it.id).kind !== 'barrier'
          ? [it.id]
          : [],
    );
  return new Map(linearized.subkernels.map((sub) => [sub.name, new Set(ids(sub.schedule))]));
}

/** The instruction ids, each after all it depends on (ties in the kernel's order); a cycle is a DependencyCycleFound. */
function topologicalOrder(knl: LoopKernel): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting')
      throw new DependencyCycleFound(`the dependencies of kernel '${knl.name}' form a cycle through '${id}'`);
    state.set(id, 'visiting');
    for (const d of knl.instruction(id).dependsOn) visit(d);
    state.set(id, 'done');
    order.push(id);
  };
  for (const insn of knl.instructions) visit(insn.id);
  return order;
}

/** Whether `from` depends on `to`, directly or through other instructions. */
function reaches(knl: LoopKernel, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const at = stack.pop()!;
    if (at === to) return true;
    if (seen.has(at)) continue;
    seen.add(at);
    stack.push(...knl.instruction(at).dependsOn);
  }
  return false;
}
