/**
 * How one axis's transform is cut into stage kernels (as VkFFT and cuFFT cut it): N = R1 R2
 * ... Rm, stage i one Stockham pass of radix Ri after sub-transforms of ns = R1 ... R(i-1)
 * points, whose Ri-point DFT a work-group computes in local memory. Each stage reads and
 * writes global memory once, so m is the transform's round trips through global memory: the
 * plan takes the fewest stages whose radices fit local memory, then as many sub-transforms
 * per work-group (units) as make each global access of a warp a contiguous run.
 *
 * What a work-group's units are depends on where the axis's neighbours lie in memory:
 *
 *   rows      one stage on a contiguous axis: whole rows of the innermost batch axis, each
 *             row contiguous (the copies run along the row)
 *   subs      several stages on a contiguous axis: U consecutive sub-transforms j, whose
 *             inputs j + r N/R are neighbours for each r
 *   columns   an axis with contiguous axes after it: U consecutive elements of the last
 *             axis of extent above 1, neighbours for every r and every output
 *
 * Local memory holds two buffers of U R elements (the passes between them in turn), padded
 * when a warp's work-items would otherwise touch one bank many times (stage-kernel.ts).
 */
import { byteSize, LoomError, type DType } from '@loom/core';
import type { DeviceParameters } from '../../computation/device-parameters.ts';
import type { AxisLayout } from './layout.ts';
import { passRadices, smoothFactors } from './radices.ts';

/** Which neighbours a work-group's units are (see above). */
export type UnitKind = 'rows' | 'subs' | 'columns';

/** One stage kernel of an axis's transform. */
export interface StagePlan {
  /** The transform's size along the axis. */
  readonly n: number;
  /** This stage's radix, computed in local memory. */
  readonly radix: number;
  /** Points of the sub-transforms done by the stages before. */
  readonly ns: number;
  /** The radices of the passes in local memory (radices.ts's, largest first). */
  readonly passes: readonly number[];
  readonly units: UnitKind;
  /** Units per work-group. */
  readonly perGroup: number;
  /** The axis whose consecutive elements are the units (`rows`, `columns`); -1 for `subs` or when there is none. */
  readonly unitAxis: number;
  /** Work-items per work-group. */
  readonly threads: number;
  /** Elements of local memory per padding element (0: no padding). */
  readonly padEvery: number;
}

/** A global access of a warp should cover at least a DRAM sector (32 bytes), ideally a cache line (128). */
const SECTOR_BYTES = 32;
const LINE_BYTES = 128;
/** Work-items a work-group aims at: enough warps to hide latency, few enough for several groups per core. */
const GROUP_TARGET = 256;

/**
 * The padding of a buffer of `units` elements per radix point: none when a warp's 32 banks of
 * 4 bytes see a cache line of neighbours (units of 128 bytes or more: every pass reads and
 * writes consecutive units), else one element per 128 bytes, which makes the stride-R
 * accesses of a pass (j R + s, R a power of two) land on consecutive banks.
 */
export function padEvery(units: number, bytes: number): number {
  return units * bytes >= LINE_BYTES ? 0 : Math.max(1, LINE_BYTES / bytes);
}

/** A buffer's elements with its padding. */
export const paddedSize = (size: number, every: number): number => (every ? size + Math.floor(size / every) : size);

/** Local memory a stage takes: two buffers of `units * radix` complex elements. */
function stageBytes(units: number, radix: number, bytes: number): number {
  return 2 * paddedSize(units * radix, padEvery(units, bytes)) * bytes;
}

/** Whether every axis after the transformed one has one element (its points are neighbours). */
const contiguous = (layout: AxisLayout) => layout.shape.slice(layout.axis + 1).every((s) => s === 1);

/** The last axis of extent above 1 among `axes`, or -1. */
function lastLong(layout: AxisLayout, axes: readonly number[]): number {
  const long = axes.filter((m) => layout.shape[m] > 1);
  return long.length ? long[long.length - 1] : -1;
}

/** The prime factors of a smooth n, largest first. */
function primes(n: number): number[] {
  const out: number[] = [];
  for (const [p, e] of smoothFactors(n) ?? []) for (let k = 0; k < e; k++) out.push(p);
  return out.sort((a, b) => b - a);
}

/** n cut into m factors as equal as may be (each prime, largest first, joins the smallest factor so far), largest first. */
function balanced(n: number, m: number): number[] {
  const parts = new Array<number>(m).fill(1);
  for (const p of primes(n)) {
    let k = 0;
    for (let q = 1; q < m; q++) if (parts[q] < parts[k]) k = q;
    parts[k] *= p;
  }
  return parts.filter((r) => r > 1).sort((a, b) => b - a);
}

/** The smallest divisor of `extent` at least `least`. */
function smallestDivisor(extent: number, least: number): number {
  for (let d = Math.max(1, least); d < extent; d++) if (extent % d === 0) return d;
  return extent;
}

/** The largest divisor of `extent` at most `limit` that `fits`. */
function largestDivisor(extent: number, limit: number, fits: (d: number) => boolean): number {
  for (let d = Math.min(extent, Math.max(1, Math.floor(limit))); d > 1; d--) if (extent % d === 0 && fits(d)) return d;
  return 1;
}

/**
 * The stages of a smooth transform along `layout.axis` on `device`: the fewest whose radices
 * fit local memory with enough units for contiguous accesses, each with its units and
 * work-items. A LoomError when a single point does not fit (a device with almost no local memory).
 */
export function planAxis(dtype: DType, layout: AxisLayout, device: DeviceParameters): StagePlan[] {
  const n = layout.shape[layout.axis];
  const bytes = byteSize(dtype);
  const maxItems = Math.min(device.maxWorkGroupSize, device.maxWorkGroupSizes[0]);
  const dense = contiguous(layout);
  const sector = Math.max(1, Math.ceil(SECTOR_BYTES / bytes));
  const fits = (units: number, radix: number) =>
    stageBytes(units, radix, bytes) <= device.localMemoryBytes &&
    (units * radix) / Math.max(...passRadices(radix)) <= maxItems;
  // one stage on a contiguous axis reads whole rows; otherwise a run needs a sector of units (the
  // smallest divisor of their count that makes one), if any stages fit at all
  const columns = dense
    ? 1
    : layout.shape[
        lastLong(
          layout,
          layout.shape.map((_, m) => m).filter((m) => m > layout.axis),
        )
      ];
  const sectorOf = (extent: number) => smallestDivisor(extent, Math.min(sector, extent));
  const stagesFor = (need: (m: number, r: number) => number): number[] | undefined => {
    for (let m = 1; m <= Math.max(1, Math.ceil(Math.log2(n))); m++) {
      const cut = balanced(n, m);
      if (cut.every((r) => fits(need(m, r), r))) return cut;
    }
    return undefined;
  };
  const radices =
    stagesFor((m, r) => (dense ? (m === 1 ? 1 : sectorOf(n / r)) : sectorOf(columns))) ?? stagesFor(() => 1);
  if (!radices) throw new LoomError(`fft: a transform of ${n} points does not fit the device's local memory`);
  const stages: StagePlan[] = [];
  let ns = 1;
  for (const radix of radices) {
    stages.push(stagePlan(layout, n, radix, ns, radices.length, dense, bytes, maxItems, device));
    ns *= radix;
  }
  return stages;
}

function stagePlan(
  layout: AxisLayout,
  n: number,
  radix: number,
  ns: number,
  count: number,
  dense: boolean,
  bytes: number,
  maxItems: number,
  device: DeviceParameters,
): StagePlan {
  const passes = passRadices(radix);
  const after = layout.shape.map((_, m) => m).filter((m) => m > layout.axis);
  const before = layout.shape.map((_, m) => m).filter((m) => m < layout.axis);
  const units: UnitKind = !dense ? 'columns' : count === 1 ? 'rows' : 'subs';
  const unitAxis = units === 'columns' ? lastLong(layout, after) : units === 'rows' ? lastLong(layout, before) : -1;
  const extent = units === 'subs' ? n / radix : unitAxis < 0 ? 1 : layout.shape[unitAxis];
  const butterflies = (u: number) => (u * radix) / passes[0];
  const fits = (u: number) => stageBytes(u, radix, bytes) <= device.localMemoryBytes && butterflies(u) <= maxItems;
  // rows: as many as make GROUP_TARGET work-items; subs and columns: a cache line of neighbours, or
  // more while the work-group has fewer than half GROUP_TARGET work-items
  const limit =
    units === 'rows'
      ? GROUP_TARGET / butterflies(1)
      : Math.max(Math.ceil(LINE_BYTES / bytes), GROUP_TARGET / 2 / butterflies(1));
  const perGroup = largestDivisor(extent, limit, fits);
  const threads = Math.min(maxItems, Math.max(1, butterflies(perGroup)));
  return { n, radix, ns, passes, units, perGroup, unitAxis, threads, padEvery: padEvery(perGroup, bytes) };
}
