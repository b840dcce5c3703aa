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
 * Local memory holds up to two buffers of U R elements (the passes between them in turn), padded
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

/**
 * A global access of a warp should cover at least 64 contiguous bytes (two 32-byte sectors, what the
 * H200's memory fetches at once), ideally a cache line (128). With 32-byte runs, 16 transforms of
 * 2^20 took two stages of radix 1024 at 5993 GFLOP/s (OpenCL); with 64, three stages at 6888.
 */
const SECTOR_BYTES = 64;
const LINE_BYTES = 128;
/** Work-items a work-group aims at: enough warps to hide latency, few enough for several groups per core. */
const GROUP_TARGET = 256;
/**
 * Work-items a work-group of whole rows aims at: fewer than GROUP_TARGET, because such a group
 * holds R U elements in local memory and registers at once; with half as many rows a group, more
 * groups fit a core (2^14 transforms of 2^10 on the H200: 128 work-items 8656 GFLOP/s, 64 8540,
 * 256 8106, through OpenCL in one run).
 */
const ROWS_GROUP_TARGET = 128;

/**
 * The padding of a buffer of `units` complex elements per radix point, of `bytes` each. Local
 * complex arrays are stored as two arrays of parts (bytes / 2 each), so a warp meets the 32
 * banks of 4 bytes every 128 bytes of parts. No padding when the units of one point fill that
 * (each pass then reads and writes consecutive units) and the stage stores `direct`ly; else
 * one element per 128 / bytes (16 for complex64), which puts the strided accesses on
 * consecutive banks: a first pass's stores (j R + s, R 16) and a copy out's reads (a stride of U).
 */
export function padEvery(units: number, bytes: number, direct = true): number {
  return direct && units * (bytes / 2) >= LINE_BYTES ? 0 : Math.max(1, LINE_BYTES / bytes);
}

/** A buffer's elements with its padding. */
export const paddedSize = (size: number, every: number): number => (every ? size + Math.floor(size / every) : size);

/**
 * Whether a stage's last pass stores straight to global memory (stage-kernel.ts): when a warp's
 * work-items, units the fastest, write neighbours there: rows and columns always, sub-transforms
 * when a group's U units lie in one block of ns (ns a multiple of U). Otherwise (the first of
 * several stages on a contiguous axis, whose outputs lie R apart) a copy through local memory
 * puts the stores in the order of their addresses.
 */
export const storesDirectly = (units: UnitKind, ns: number, perGroup: number): boolean =>
  units !== 'subs' || ns % perGroup === 0;

/** Whether a stage's pre-twiddles take a unit table (twiddles.ts): a group's sub-transforms in one block of ns. */
export const unitTwiddles = (stage: Pick<StagePlan, 'units' | 'ns' | 'perGroup'>): boolean =>
  stage.units === 'subs' && stage.ns > 1 && stage.perGroup > 1 && stage.ns % stage.perGroup === 0;

/**
 * The local buffers a stage's passes go between (`passes` its radices, largest first): the
 * first pass reads global memory into registers, so only the passes that write local memory
 * need one (the last does not when it stores `direct`ly). One buffer does when every pass that
 * both reads and writes local memory has a radix dividing the first's (the work-items are the
 * first pass's butterflies, so each then takes a whole number of the pass's butterflies): each
 * loads all its inputs into registers before any stores its outputs, and Loom puts a barrier
 * between. Otherwise two, in turn.
 */
export function localBuffers(passes: readonly number[], direct: boolean): number {
  const writers = direct ? passes.length - 1 : passes.length;
  if (writers <= 0) return 0;
  return passes.slice(1, writers).every((r) => passes[0] % r === 0) ? 1 : 2;
}

/** Local memory a stage takes: `buffers` buffers of `units * radix` complex elements. */
function stageBytes(units: number, radix: number, bytes: number, buffers: number, direct: boolean): number {
  return buffers * paddedSize(units * radix, padEvery(units, bytes, direct)) * bytes;
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
  // a stage of `radix` after sub-transforms of `ns`, `units` a group, one of `count` stages
  const fits = (units: number, radix: number, ns: number, count: number) => {
    const kind: UnitKind = !dense ? 'columns' : count === 1 ? 'rows' : 'subs';
    const direct = storesDirectly(kind, ns, units);
    return (
      stageBytes(units, radix, bytes, localBuffers(passRadices(radix, device.livePrivateValues), direct), direct) <=
        device.localMemoryBytes &&
      (units * radix) / Math.max(...passRadices(radix, device.livePrivateValues)) <= maxItems
    );
  };
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
      const before = (k: number) => cut.slice(0, k).reduce((a, b) => a * b, 1);
      if (cut.every((r, k) => fits(need(m, r), r, before(k), m))) return cut;
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
  const passes = passRadices(radix, device.livePrivateValues);
  const after = layout.shape.map((_, m) => m).filter((m) => m > layout.axis);
  const before = layout.shape.map((_, m) => m).filter((m) => m < layout.axis);
  const units: UnitKind = !dense ? 'columns' : count === 1 ? 'rows' : 'subs';
  const unitAxis = units === 'columns' ? lastLong(layout, after) : units === 'rows' ? lastLong(layout, before) : -1;
  const extent = units === 'subs' ? n / radix : unitAxis < 0 ? 1 : layout.shape[unitAxis];
  const butterflies = (u: number) => (u * radix) / passes[0];
  const direct = (u: number) => storesDirectly(units, ns, u);
  const fits = (u: number) =>
    stageBytes(u, radix, bytes, localBuffers(passes, direct(u)), direct(u)) <= device.localMemoryBytes &&
    butterflies(u) <= maxItems;
  // rows: as many as make ROWS_GROUP_TARGET work-items; subs and columns: a cache line of neighbours,
  // or more while the work-group has fewer than half GROUP_TARGET work-items
  const limit =
    units === 'rows'
      ? ROWS_GROUP_TARGET / butterflies(1)
      : Math.max(Math.ceil(LINE_BYTES / bytes), GROUP_TARGET / 2 / butterflies(1));
  const perGroup = largestDivisor(extent, limit, fits);
  const threads = Math.min(maxItems, Math.max(1, butterflies(perGroup)));
  return {
    n,
    radix,
    ns,
    passes,
    units,
    perGroup,
    unitAxis,
    threads,
    padEvery: padEvery(perGroup, bytes, direct(perGroup)),
  };
}
