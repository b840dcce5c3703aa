/**
 * Running a kernel's work-groups and work-items on one thread.
 *
 * Without barriers the work-items of a group are simply called one after another.
 * With barriers each work-item is a generator that yields at every barrier (the
 * yielded number says which barrier statement); the work-items of a group advance
 * round-robin, each to its next barrier, so none passes a barrier before all have
 * reached it: what a GPU guarantees, and all it guarantees. Work-items that reach
 * different barriers, or where some finish while others wait, would hang or be
 * undefined on a GPU; here they are a LoomError ("barrier divergence").
 *
 * Group and item order is x fastest, then y, then z. Local temporaries are fresh
 * (zero-filled) for every group; global temporaries once per launch.
 */
import { hostArrayConstructor, LoomError, type Expr } from '@loom/core';
import type { KernelLayout, SharedTemporary } from './layout.ts';

export interface CompiledKernel {
  readonly layout: KernelLayout;
  /** The generated function; a generator function when the kernel has barriers. */
  readonly fn: (...args: unknown[]) => unknown;
}

type Vec3 = readonly [number, number, number];

/**
 * Runs `groupCount` work-groups of `localSize` work-items; `args` are the kernel's parameters,
 * converted; `lengthOf` evaluates a temporary's size known only at launch.
 */
export function runWorkGroups(
  kernel: CompiledKernel,
  args: readonly unknown[],
  groupCount: readonly number[],
  localSize: readonly number[],
  lengthOf: (length: Expr) => number,
): void {
  const groups = toVec3(groupCount, 'groupCount');
  const local = toVec3(localSize, 'localSize');
  // each size once per launch: a local array of n*n elements is the same in every group
  const shared = kernel.layout.shared.map((s) =>
    typeof s.length === 'number' ? { ...s, length: s.length } : { ...s, length: lengthOf(s.length) },
  );
  const perLaunch = shared.map((s) => (s.scope === 'global' ? allocate(s) : undefined));
  const argv: unknown[] = [0, 0, 0, 0, 0, 0, ...args, ...perLaunch];
  const sharedAt = 6 + args.length;

  forEachPoint(groups, (group) => {
    shared.forEach((s, k) => {
      if (s.scope === 'local') argv[sharedAt + k] = allocate(s);
    });
    argv[0] = group[0];
    argv[1] = group[1];
    argv[2] = group[2];
    if (kernel.layout.barriers === 0) {
      forEachPoint(local, (item) => {
        argv[3] = item[0];
        argv[4] = item[1];
        argv[5] = item[2];
        kernel.fn(...argv);
      });
    } else {
      runInLockstep(kernel, group, local, argv);
    }
  });
}

interface WorkItem {
  readonly id: Vec3;
  readonly steps: Iterator<unknown, unknown>;
}

function runInLockstep(kernel: CompiledKernel, group: Vec3, local: Vec3, argv: unknown[]): void {
  const items: WorkItem[] = [];
  forEachPoint(local, (id) => {
    argv[3] = id[0];
    argv[4] = id[1];
    argv[5] = id[2];
    // a generator takes its arguments when created, so argv may change afterwards
    items.push({ id, steps: kernel.fn(...argv) as Iterator<unknown, unknown> });
  });
  for (let passed = 0; ; passed++) {
    let waiting: { item: WorkItem; barrier: unknown } | undefined;
    let finished: WorkItem | undefined;
    for (const item of items) {
      const step = item.steps.next();
      if (step.done) {
        finished ??= item;
        continue;
      }
      if (waiting === undefined) waiting = { item, barrier: step.value };
      else if (step.value !== waiting.barrier) {
        throw divergence(
          kernel,
          group,
          passed,
          `work-item ${show(waiting.item.id)} waits at barrier #${String(waiting.barrier)} but work-item ${show(item.id)} at barrier #${String(step.value)}`,
        );
      }
    }
    if (waiting === undefined) return; // every work-item finished
    if (finished !== undefined) {
      throw divergence(
        kernel,
        group,
        passed,
        `work-item ${show(finished.id)} finished while work-item ${show(waiting.item.id)} waits at barrier #${String(waiting.barrier)}`,
      );
    }
  }
}

function divergence(kernel: CompiledKernel, group: Vec3, passed: number, what: string): LoomError {
  return new LoomError(
    `barrier divergence in kernel '${kernel.layout.name}', work-group ${show(group)}, after ${passed} barrier${passed === 1 ? '' : 's'}: ${what}. ` +
      'Every work-item of a group must reach the same barriers in the same order.',
  );
}

function allocate(s: SharedTemporary & { readonly length: number }): ArrayBufferView {
  return new (hostArrayConstructor(s.dtype))(s.length);
}

function toVec3(sizes: readonly number[], what: string): Vec3 {
  if (sizes.length > 3) throw new LoomError(`${what} has ${sizes.length} axes; at most 3 are supported`);
  const v = [0, 1, 2].map((k) => sizes[k] ?? 1);
  if (v.some((n) => !Number.isInteger(n) || n < 0))
    throw new LoomError(`${what} must be non-negative integers, got (${sizes.join(', ')})`);
  return [v[0], v[1], v[2]];
}

function forEachPoint(size: Vec3, visit: (p: Vec3) => void): void {
  for (let z = 0; z < size[2]; z++) {
    for (let y = 0; y < size[1]; y++) {
      for (let x = 0; x < size[0]; x++) visit([x, y, z]);
    }
  }
}

function show(v: Vec3): string {
  return `(${v.join(', ')})`;
}
