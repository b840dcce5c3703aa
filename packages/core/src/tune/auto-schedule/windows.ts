/**
 * The window staging of `autoSchedule`'s space: for a kernel whose reductions run over a small
 * window (a convolution's taps, `KernelAnalysis.window`), the inputs a work-group's tile reads,
 * halo included, staged whole in local memory, and a small window's taps unrolled where the
 * target's compilers would not, as a hand-written convolution reads its tile.
 */
import type { KernelAnalysis, Placement } from './space.ts';
import type { ScheduleStep } from './steps.ts';

/**
 * The steps that stage `window`'s inputs for the tile `placed` makes (`localParts`: the inames
 * each parallel iname became within the work-group; `loops`: the parallel inames left as loops,
 * in their order), with a label; undefined where no input is shared by the tile's work-items.
 */
export function windowStaging(
  window: NonNullable<KernelAnalysis['window']>,
  placed: readonly Placement[],
  localParts: ReadonlyMap<string, readonly string[]>,
  loops: readonly string[],
): { readonly steps: ScheduleStep[]; readonly label: string } | undefined {
  const windowInames = new Set(window.inames.map((w) => w.iname));
  const grouped = placed.filter((p) => p.axis !== undefined && p.local > 1).map((p) => p.iname);
  // staged where the tile's work-items share what they read: an input every work-item of the
  // group reads whole (a filter), or one its neighbours read shifted by the window (an image)
  const fetches = window.reads.filter(
    ({ inames }) =>
      [...inames].every((i) => windowInames.has(i) || localParts.has(i)) &&
      (grouped.some((g) => !inames.has(g)) || [...inames].some((i) => windowInames.has(i))),
  );
  if (fetches.length === 0) return undefined;
  const steps: ScheduleStep[] = fetches.map(({ array, inames }) => ({
    kind: 'prefetch',
    array,
    sweep: [...inames].flatMap((i) => (windowInames.has(i) ? [i] : localParts.get(i)!)),
  }));
  // a small window's taps unrolled where the target's compilers keep them loops (Dawn's WGSL on
  // NVIDIA's Vulkan driver); NVIDIA's OpenCL and CUDA compilers, left to unroll them as they see
  // fit, ran the staged candidates 1.1-1.5x faster than with Loom's unrolled taps
  const unrolled = window.unrollTaps ? window.inames.map((w) => w.iname) : [];
  if (unrolled.length > 0) steps.push({ kind: 'tag', tags: Object.fromEntries(unrolled.map((i) => [i, 'unr'])) });
  const order = [...loops, ...unrolled];
  if (order.length > 1) steps.push({ kind: 'prioritize', order });
  const label = `window staged ${fetches.map((f) => f.array).join(',')}${unrolled.length > 0 ? ', taps unrolled' : ''}`;
  return { steps, label };
}
