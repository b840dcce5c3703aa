/**
 * The kernels of bench/reductions.ts: a row sum and a full sum, reducing across the
 * work-items of a group (a tree in local memory), written with the DSL.
 */
import type { LoopKernel } from '@loom/core';
import { kernel } from '@loom/dsl';

/** Work-items per group. */
export const LOCAL = 256;

/** out[i] = sum over row i; a work-group per row, LOCAL work-items striding along it. */
export function rowSumKernel(n: number, m: number): LoopKernel {
  return kernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'out[i] = sum(j, a[i, j])', { name: 'row_sum' })
    .dtypes({ a: 'float32' })
    .fix({ n, m })
    .tag({ i: 'g.0' })
    .split('j', LOCAL, { inner: 'l.0' }).kernel;
}

/**
 * out = sum of x's `size` elements: `groups` work-groups of LOCAL reduce grid-strided slices
 * (work-item t of group g reads x[(k*groups + g)*LOCAL + t], neighbours reading neighbours)
 * into `partial`, a global temporary; after the global barrier one work-group reduces it.
 */
export function fullSumKernel(size: number, groups: number): LoopKernel {
  const strides = size / (groups * LOCAL);
  if (!Number.isInteger(strides)) throw new Error(`${size} elements do not split into ${groups} groups of ${LOCAL}`);
  return kernel(
    [
      `{ [g, t, k]: 0<=g<${groups} and 0<=t<${LOCAL} and 0<=k<${strides} }`,
      `{ [t2, k2]: 0<=t2<${LOCAL} and 0<=k2 and ${LOCAL}*k2 + t2<${groups} }`,
    ],
    [
      '<float32> partial[g] = sum((k, t), x[(k*G + g)*L + t]) {id=per_group}',
      '... gbarrier {id=all_groups, dep=per_group}',
      'out[0] = sum((k2, t2), partial[k2*L + t2]) {id=total, dep=all_groups}',
    ].map((line) => line.replaceAll('G', String(groups)).replaceAll('L', String(LOCAL))),
    { name: 'full_sum' },
  )
    .dtypes({ x: 'float32' })
    .tag({ g: 'g.0', t: 'l.0', t2: 'l.0' })
    .space('partial', 'global').kernel;
}
