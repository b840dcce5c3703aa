/**
 * A whole transform in one work-group (Reikna's "local" kernels), for rows that are
 * contiguous (every axis after the transformed one of size 1) and small enough: T = N / R0
 * work-items per row (R0 the largest radix), W rows per work-group. The first pass reads the
 * row from global memory (work-item l takes l + r N/R: coalesced), the passes between
 * exchange it through local memory (two buffers in turn, a barrier between passes), and the
 * last pass writes it to global memory, also coalesced (its outputs are N/R apart). A pass
 * with more butterflies than work-items (a smaller radix) gives each work-item several.
 *
 * Each row is read before any of it is written, by the work-group that owns it: the kernel
 * runs in place (output and input the same array).
 */
import {
  byteSize,
  globalArg,
  makeKernel,
  tagInames,
  temporaryVariable,
  valueArg,
  type DType,
  type LoopKernel,
} from '@loom/core';
import type { DeviceParameters } from '../../computation/device-parameters.ts';
import { passLines } from './global-pass.ts';
import {
  batchAxes,
  batchIname,
  element,
  takesInverse,
  loaded,
  stored,
  type AxisLayout,
  type Direction,
} from './layout.ts';

/** Work-items a work-group aims at for short rows (several rows per work-group), as Reikna's 64. */
const GROUP_TARGET = 64;
/** The largest transform a local kernel takes. */
export const LOCAL_MAX_SIZE = 4096;

/** How a local kernel is cut: work-items per row and rows per work-group. */
export interface LocalShape {
  readonly threads: number;
  readonly rows: number;
}

/** Buffers of local memory the passes between the first and the last need. */
const buffersFor = (passes: number) => Math.min(2, Math.max(0, passes - 1));

/**
 * The work-items and rows of a local kernel for `n` points in `radices`, or undefined when the
 * transform does not fit a work-group of the device (or its rows are not contiguous).
 */
export function localShape(
  dtype: DType,
  layout: AxisLayout,
  radices: readonly number[],
  device: DeviceParameters,
): LocalShape | undefined {
  const n = layout.shape[layout.axis];
  if (n > LOCAL_MAX_SIZE || layout.shape.slice(layout.axis + 1).some((s) => s !== 1)) return undefined;
  const threads = n / radices[0];
  const bytes = (rows: number) => buffersFor(radices.length) * rows * n * byteSize(dtype);
  const maxItems = Math.min(device.maxWorkGroupSize, device.maxWorkGroupSizes[0]);
  if (threads > maxItems || bytes(1) > device.localMemoryBytes) return undefined;
  // rows per work-group: a divisor of the innermost batch axis (no partial work-group around the barriers)
  const last = batchAxes(layout)
    .filter((m) => layout.shape[m] > 1)
    .pop();
  const extent = last === undefined ? 1 : layout.shape[last];
  let rows = 1;
  for (let w = 2; w <= extent && w * threads <= GROUP_TARGET; w++) {
    if (extent % w === 0 && w * threads <= device.maxWorkGroupSize && w <= device.maxWorkGroupSizes[1])
      if (bytes(w) <= device.localMemoryBytes) rows = w;
  }
  return { threads, rows };
}

export function localKernel(
  dtype: DType,
  layout: AxisLayout,
  radices: readonly number[],
  shape: LocalShape,
  direction: Direction,
): LoopKernel {
  const n = layout.shape[layout.axis];
  const { threads: t, rows: w } = shape;
  const batch = batchAxes(layout);
  const last = batch.filter((m) => layout.shape[m] > 1).pop();
  const others = batch.filter((m) => m !== last);
  const rowIname = (m: number) => (m === last ? `(g * ${w} + w)` : batchIname(m));
  const groups = last === undefined ? 1 : layout.shape[last] / w;
  const passes = radices.length;
  const loopInames = radices.map((r, p) => (n / r > t ? `t${p}` : undefined));
  const bounds = [
    ...others.map((m) => `0 <= ${batchIname(m)} < ${layout.shape[m]}`),
    `0 <= g < ${groups}`,
    `0 <= w < ${w}`,
    `0 <= l < ${t}`,
    ...radices.flatMap((r, p) => (loopInames[p] ? [`0 <= t${p} < ${Math.ceil(n / r / t)}`] : [])),
  ];
  const inameList = [...others.map(batchIname), 'g', 'w', 'l', ...loopInames.filter((x) => x !== undefined)];
  const domain = `{ [${inameList.join(', ')}]: ${bounds.join(' and ')} }`;
  const lines: string[] = [];
  let ns = 1;
  radices.forEach((r, p) => {
    const count = n / r;
    const loop = loopInames[p];
    const inames = [...others.map(batchIname), 'g', 'w', 'l', ...(loop ? [loop] : [])].join(':');
    const j = loop ? `(${loop} * ${t} + l)` : 'l';
    const load =
      p === 0
        ? (k: string) => loaded(element('src', layout, k, rowIname), direction)
        : (k: string) => `buf${(p - 1) % 2}[w, ${k}]`;
    const store =
      p === passes - 1
        ? (k: string, v: string) => `${element('dst', layout, k, rowIname)} = ${stored(v, direction)}`
        : (k: string, v: string) => `buf${p % 2}[w, ${k}] = ${v}`;
    const guarded = count % t !== 0;
    if (guarded) lines.push(`if ${j} < ${count}`);
    const after = p > 0 ? `p${p - 1}store*` : undefined;
    lines.push(...passLines(n, { radix: r, ns }, dtype, `p${p}`, inames, j, load, store, after));
    if (guarded) lines.push('end');
    ns *= r;
  });
  const knl = makeKernel(
    domain,
    lines.join('\n'),
    [
      globalArg('src', { dtype, shape: layout.shape }),
      globalArg('dst', { dtype, shape: layout.shape }),
      ...(passes > 1 ? [globalArg('tw', { dtype, shape: [n] })] : []),
      ...(takesInverse(direction) ? [valueArg('inverse', 'int32')] : []),
      ...Array.from({ length: buffersFor(passes) }, (_, b) =>
        temporaryVariable(`buf${b}`, { dtype, shape: [w, n], addressSpace: 'local' }),
      ),
    ],
    { name: `fft_local_${n}` },
  );
  const tags: Record<string, string> = { l: 'l.0', w: 'l.1', g: 'g.0' };
  const outer = others.filter((m) => layout.shape[m] > 1).reverse();
  if (outer[0] !== undefined) tags[batchIname(outer[0])] = 'g.1';
  if (outer[1] !== undefined) tags[batchIname(outer[1])] = 'g.2';
  return tagInames(knl, tags);
}
