/**
 * Spreading a kernel over the device: the loops over a result's axes become the grid.
 * The last axis (contiguous in row-major arrays) runs along work-group axis 0, split into
 * work-groups of up to `workGroupSize(...)` work-items, so neighbouring work-items touch
 * neighbouring elements; the two axes before it become the grid's axes 1 and 2, one
 * work-group row each. Axes before those stay loops inside each work-item.
 */
import { splitIname, tagInames, type LoopKernel } from '@loom/core';
import type { DeviceParameters } from '../computation/device-parameters.ts';

/** A work-group size for elementwise work: 256 where allowed (a common sweet spot), a multiple of the subgroup. */
export function workGroupSize(device: DeviceParameters, extent = Infinity): number {
  let size = Math.min(256, largestWorkGroup(device));
  // a small extent needs no larger group than the next multiple of the subgroup
  const sub = Math.max(1, device.subgroupSize);
  if (extent < size) size = Math.max(1, Math.min(size, Math.ceil(extent / sub) * sub));
  return size;
}

/** The most work-items a one-dimensional work-group may hold on the device (along axis 0). */
export function largestWorkGroup(device: DeviceParameters): number {
  return Math.min(device.maxWorkGroupSize, device.maxWorkGroupSizes[0]);
}

/** The largest power of two no greater than `n` (1 for n < 2). */
export function powerOfTwoAtMost(n: number): number {
  let p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/** The smallest power of two no less than `n` (1 for n <= 1). */
export function powerOfTwoAtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * `inames` (outermost first, with their extents) spread over the grid as described above.
 * With `runtimeSizes` the extents are this call's, but the kernel's loop bounds are parameters
 * that other calls set otherwise: the last axis is always split (never one work-group), but
 * an axis of 1 (which the code holds constant), by the work-group size its extent here
 * suggests (a short axis does not leave most of 256 work-items idle).
 */
export function spreadOverGrid(
  knl: LoopKernel,
  inames: readonly string[],
  extents: readonly number[],
  device: DeviceParameters,
  options: { readonly runtimeSizes?: boolean } = {},
): LoopKernel {
  const r = inames.length;
  if (r === 0) return knl;
  const last = inames[r - 1];
  const size = workGroupSize(device, extents[r - 1]);
  knl =
    (!options.runtimeSizes || extents[r - 1] === 1) && size >= extents[r - 1] && extents[r - 1] > 0
      ? tagInames(knl, { [last]: 'l.0' })
      : splitIname(knl, last, size, { outerTag: 'g.0', innerTag: 'l.0' });
  const tags: Record<string, string> = {};
  if (r >= 2) tags[inames[r - 2]] = 'g.1';
  if (r >= 3) tags[inames[r - 3]] = 'g.2';
  return Object.keys(tags).length ? tagInames(knl, tags) : knl;
}
