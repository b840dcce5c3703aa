/**
 * The cost model of `autoSchedule`: a time for a candidate kernel from its exact counts at the
 * tuning sizes and the device's measured profile. Where `estimateTime` weighs a kernel's
 * footprint (blind to how the work is laid out), this weighs what the schedule changes (what one
 * work-item holds and repeats is counted in work-item.ts, the sectors a warp's access touches in
 * warps.ts):
 *
 *  - global memory in 32-byte sectors, at three levels, counting the work every work-group repeats
 *    (a panel each group along j fetches again: `countRedundantWork`). The L1 cache: the 128-byte
 *    lines a warp of 32 consecutive work-items loads per access, as the cache looks them up (a row
 *    of l.0, then rows along l.1 when l.0 is narrower: `warpShape`; 8 floats of 4 rows are 4 lines,
 *    32 floats of a row one), from `getMemAccessMap`'s per-work-item strides along each local
 *    axis, at an assumed 3× the global bandwidth (the profile's, a copy's); a warp's stores write through to L2, sector by
 *    sector, at an assumed 2×. The L2 cache: the sectors the whole work-group touches per access
 *    (a warp across rows reads 32 sectors, but the warps beside it along l.1 read the rest of each:
 *    a 16 x 16 transpose tile moves what a coalesced copy moves), at 2×. Memory: the bytes the
 *    kernel needs, plus the unfilled part of every sector a warp's store fills only in part (it is
 *    read back or written twice: a transpose storing down columns ran 2.2x slower than one loading
 *    down them on the H200, bench/fit-cost-model.ts). An access the same for the whole sub-group is
 *    one sector; loads that the unrolled copies of an instruction repeat count once
 *    (`globalReuse`). A prefetch shows up as fewer global accesses and more local ones;
 *  - local memory traffic, at an assumed 8× the global bandwidth, a read counted once for the
 *    unrolled copies (`ilp`, `unr`) that read the same element, which the compiler keeps in a
 *    register (`localReuse`: a 4 x 4 register tile of matmul reads 4 + 4 elements of its panels a
 *    step, not 32; a convolution's 8 unrolled rows and 5 taps down read 12 rows, not 40, the taps'
 *    short loops counted as unrolled where the target's compilers unroll them), and a warp's access as many times over as its words meet in one of the 32
 *    banks (`bankConflicts`: a 16 x 2 warp reading two rows of a 68-float tile, twice; mean tau-b on
 *    the H200's recorded candidates 0.61 to 0.62 on CUDA, 0.60 to 0.64 on OpenCL, 0.53 to 0.56 on
 *    WebGPU); and local barriers, each
 *    costing an assumed 64 floating-point operations per work-item (guesses: the measured
 *    correction in search.ts absorbs their scale);
 *  - flops at the measured rate, at a narrow work-group's share of it (a warp issues for its 32
 *    lanes, however few of them a group of 8 fills); these overlap: the largest counts, and a quarter of each of the
 *    others (an assumed leak, which also orders schedules the largest part would tie);
 *  - latency: a work-item's global loads that follow one another (a loop's; the unrolled copies of
 *    a load issue together) each wait for memory, once per round of the warps the compute units
 *    hold at once (32 groups, 64 warps, as registers allow): a bound of its own, beside the
 *    throughput's (a softmax row reduced by 32 work-items, 32 loads each, ran 1.4x slower than by
 *    64 on the H200, though it moves the same bytes with less local memory traffic);
 *  - live values: past what the target's compilers keep live (`livePrivateValues`, WGSL's 80), a
 *    work-item's accumulators and operands slow it in proportion;
 *  - parallelism: a launch of fewer warps than the device runs at once is slowed in proportion
 *    (`parallelism` work-items, from the options: devices do not report it; a work-group narrower
 *    than a warp still takes one, so 4096 work-items in groups of 8 are 512 warps); and a launch of
 *    fewer work-groups than the device has compute units (`computeUnits`, which OpenCL and CUDA
 *    report) leaves the others idle: what each unit does by itself (flops, the L1 cache, local
 *    memory, barriers) takes as much longer as fewer units share it (a softmax over 4096 rows,
 *    a work-item a row, ran 6x slower in 8 work-groups of 512 than in 512 of 8 on the H200's 132
 *    multiprocessors).
 */
import { byteSize } from '../../dtypes.ts';
import type { ProgramAst } from '../../codegen/ast.ts';
import { programShape } from '../../codegen/generate.ts';
import type { Device } from '../../runtime/device.ts';
import { checkProgramLimits } from '../../runtime/limits.ts';
import { parseExpression } from '../../expr/parse.ts';
import type { LoopKernel } from '../../kernel/model.ts';
import { evaluateInt, valuesEnv } from '../../runtime/evaluate.ts';
import { getStatistics } from '../../statistics/all.ts';
import type { DeviceProfile } from '../../statistics/roofline.ts';
import { kernelWork } from '../../statistics/roofline.ts';
import { targetFacts } from '../../codegen/target-facts.ts';
import { L1_LINE, SECTOR, WARP, bankConflicts, groupSectors, warpShape } from './warps.ts';
import {
  globalReuse,
  liveValues,
  loadCopies,
  localReuse,
  registersPerWorkItem,
  residencySlowdown,
  residentWarps,
} from './work-item.ts';

const LOCAL_SPEEDUP = 8;
const L1_SPEEDUP = 3;
const L2_SPEEDUP = 2;
const OVERLAP_LEAK = 0.25;
const BARRIER_FLOPS = 64;

/**
 * Seconds a work-item waits, on average, for each global load of a loop: a memory latency of
 * most of a microsecond over the few iterations a compiler's unrolling issues together (fitted,
 * bench/fit-cost-model.ts on the H200's recorded candidates of all ten kernels: mean tau-b 0.57 to
 * 0.61 on CUDA, 0.55 to 0.60 on OpenCL, 0.32 to 0.49 on WebGPU; from 0.2 to 0.3 µs alike).
 */
const LOAD_LATENCY = 2.5e-7;

/** What the model counted for one candidate, and the time it predicts. */
export interface CostBreakdown {
  /** The predicted seconds per launch. */
  readonly seconds: number;
  /** Bytes of global memory moved, in the whole sectors each work-group touches. */
  readonly globalBytes: number;
  /** Bytes of global memory requested through the L1 cache, in the whole sectors each warp touches. */
  readonly l1Bytes: number;
  /** Of `l1Bytes`, the stores': the L1 cache writes through, so each sector a warp stores reaches L2. */
  readonly storeBytes: number;
  /** Bytes of local memory read and written. */
  readonly localBytes: number;
  /** Local barriers per work-item. */
  readonly barriers: number;
  /** Floating-point operations. */
  readonly flops: number;
  /** Work-items of the largest launch. */
  readonly workItems: number;
}

/** What the model knows of the device beyond its profile. */
export interface DeviceShape {
  /** Work-items the device runs at once (devices do not report it). */
  readonly parallelism: number;
  /** The values a work-item may keep live before the target's compilers slow it down (`livePrivateValues`); undefined: no such limit. */
  readonly livePrivateValues?: number;
  /** Compute units running work-groups side by side; undefined: not known, not modelled. */
  readonly computeUnits?: number;
  /**
   * Whether the target's compilers unroll short loops of constant trip count themselves
   * (`Target.unrollsConstantLoops`): reads their copies share are made once (work-item.ts).
   */
  readonly unrollsConstantLoops?: boolean;
}

/** The model's time for `knl` (shaped as `program`: its grid is what is read) at `sizes` on a device with this profile. */
export function predictCost(
  knl: LoopKernel,
  program: ProgramAst,
  profile: DeviceProfile,
  sizes: Readonly<Record<string, number>>,
  { parallelism, computeUnits, livePrivateValues, unrollsConstantLoops }: DeviceShape,
): CostBreakdown {
  const env = valuesEnv(new Map(Object.entries(sizes)), `the cost of '${knl.name}'`);
  let workItems = 1;
  let workGroups = 1;
  let groupShape: number[] = [1];
  for (const k of program.kernels) {
    const local = k.localSize.map((e) => evaluateInt(e, env, 'a work-group size'));
    const groups = k.groupCount.map((e) => evaluateInt(e, env, 'a work-group count'));
    const items = [...local, ...groups].reduce((a, b) => a * b, 1);
    if (items >= workItems) {
      workItems = items;
      workGroups = groups.reduce((a, b) => a * b, 1);
      groupShape = local.length ? local : [1];
    }
  }
  const groupItems = groupShape.reduce((a, b) => a * b, 1);
  // the work every work-group repeats (a panel fetched by each group along an axis it does not use) is work done
  const stats = getStatistics(knl, { subgroupSize: WARP, countRedundantWork: true });
  const reuse = localReuse(knl, unrollsConstantLoops === true);
  const loads = globalReuse(knl, unrollsConstantLoops === true);
  const copies = loadCopies(knl);
  // global loads one work-item waits for one after another (the unrolled copies of a load issue together)
  let serialLoads = 0;
  let globalBytes = 0;
  let l1Bytes = 0;
  let storeBytes = 0;
  let partialStores = 0;
  let localBytes = 0;
  for (const [key, count] of stats.memAccesses) {
    const n = count.evalWithDict(sizes);
    const bytes = key.dtype ? byteSize(key.dtype) : 4;
    if (key.mtype === 'local') {
      const shared = key.direction === 'load' && key.variable ? (reuse.get(key.variable) ?? 1) : 1;
      // a warp whose words meet in the same banks is served as many times over
      const strides = groupShape.map((_, axis) => strideValue(key.lidStrides?.[axis], env));
      const conflicts = bankConflicts(warpShape(groupShape), strides, bytes);
      localBytes += n * bytes * (key.countGranularity === 'workitem' ? 1 : WARP) * shared * conflicts;
      continue;
    }
    if (key.countGranularity !== 'workitem') {
      // one access for the whole sub-group: its sectors, once
      globalBytes += n * Math.ceil(bytes / SECTOR) * SECTOR;
      l1Bytes += n * Math.ceil(bytes / SECTOR) * SECTOR;
      continue;
    }
    // a warp is WARP consecutive work-items: rows of l.0, as many as fit, then along l.1 and l.2;
    // a load the unrolled copies of an instruction repeat is made once (the compiler keeps it)
    const strides = groupShape.map((_, axis) => strideValue(key.lidStrides?.[axis], env));
    const warp = warpShape(groupShape);
    const once = key.direction === 'load' && key.variable ? (loads.get(key.variable) ?? 1) : 1;
    if (key.direction === 'load') serialLoads += n / workItems / (key.variable ? (copies.get(key.variable) ?? 1) : 1);
    const warps = n / warp.reduce((a, b) => a * b, 1);
    const warpBytes = warps * groupSectors(warp, strides, bytes) * SECTOR * once;
    // the L1 cache looks up a warp's load line by line: rows of a narrow warp each take a line
    l1Bytes +=
      key.direction === 'store' ? warpBytes : warps * groupSectors(warp, strides, bytes, L1_LINE) * L1_LINE * once;
    if (key.direction === 'store') {
      storeBytes += warpBytes;
      // sectors a warp's store fills only in part are written back to memory in part: the rest
      // of each is read first, or written again when another warp fills it later
      partialStores += Math.max(0, warpBytes - n * bytes);
    }
    globalBytes += (n / groupItems) * groupSectors(groupShape, strides, bytes) * SECTOR * once;
  }
  let barriers = 0;
  for (const [key, count] of stats.sync) if (key.kind === 'barrier_local') barriers += count.evalWithDict(sizes);
  const work = kernelWork(knl, sizes);
  // what is in flight is warps: a work-group narrower than a warp still takes one (4096 work-items
  // in groups of 8 are 512 warps, which hide memory latency as 128 full warps do not)
  const warpsInFlight = workGroups * Math.ceil(groupItems / WARP);
  const fill = Math.min(1, (warpsInFlight * WARP) / parallelism);
  // what each compute unit does itself runs on as many units as there are work-groups, at most
  const idle = computeUnits ? computeUnits / Math.min(computeUnits, workGroups) : 1;
  // a warp issues for all its lanes: a group narrower than a warp computes at its share of the rate
  const lanes = (Math.ceil(groupItems / WARP) * WARP) / groupItems;
  const parts = [
    (idle * lanes * work.flops) / profile.flopRate,
    // memory: what the kernel needs; the L2 cache: the sectors its work-groups ask for (neighbours'
    // overlapping reads meet there); the L1 cache: the sectors of its warps' loads, while their
    // stores go through to L2 sector by sector
    (work.bytes + partialStores) / profile.bandwidth,
    globalBytes / (L2_SPEEDUP * profile.bandwidth),
    (idle * (l1Bytes - storeBytes)) / (L1_SPEEDUP * profile.bandwidth),
    storeBytes / (L2_SPEEDUP * profile.bandwidth),
    (idle * localBytes) / (LOCAL_SPEEDUP * profile.bandwidth),
  ];
  // the largest part bounds the time; the others overlap with it, but not wholly (OVERLAP_LEAK of
  // each shows): among schedules bound alike, the one doing less of the rest ranks first
  const bound = Math.max(...parts);
  const busy = bound + OVERLAP_LEAK * (parts.reduce((a, b) => a + b, 0) - bound);
  const barrierSeconds = (idle * barriers * workItems * BARRIER_FLOPS) / profile.flopRate;
  const registers = registersPerWorkItem(knl);
  // past the values its target's compilers keep live, a work-item runs slower in proportion (through
  // Dawn on the H200 a staged convolution's 64 outputs a work-item, about 90 live values, ran 1.2-1.5x
  // slower than 32, about 54, where the rest of the model ties them)
  const live = liveValues(knl);
  const crowded = livePrivateValues !== undefined && live > livePrivateValues ? live / livePrivateValues : 1;
  const residency = residencySlowdown(registers, groupItems, barriers > 0) * crowded;
  // a work-item's loads in sequence, each a memory latency, for as many rounds of resident warps
  // as the launch takes: a row reduced by 32 work-items, 32 loads each, waits where 64, 16 each, stream
  const rounds = computeUnits ? Math.max(1, warpsInFlight / (computeUnits * residentWarps(registers, groupItems))) : 1;
  const chain = serialLoads * LOAD_LATENCY * rounds;
  return {
    seconds: work.launches * profile.launchOverhead + Math.max(((busy + barrierSeconds) * residency) / fill, chain),
    globalBytes,
    l1Bytes,
    storeBytes,
    localBytes,
    barriers,
    flops: work.flops,
    workItems,
  };
}

/** A stride along l.0 in elements at the sizes (absolute), or undefined where the index is not affine. */
function strideValue(stride: number | string | null | undefined, env: (name: string) => number): number | undefined {
  if (stride === undefined) return 0;
  if (stride === null) return undefined;
  if (typeof stride === 'number') return Math.abs(stride);
  try {
    // (a stride's text is isl's: powers are `n^2`)
    return Math.abs(evaluateInt(parseExpression(stride.replace(/\^/g, '**')), env, 'a stride'));
  } catch {
    return undefined;
  }
}

/**
 * The time `autoSchedule`'s cost model predicts for a kernel as scheduled, at `sizes`, on
 * `device` with its profile (`measureDeviceProfile`): to compare schedules without running them.
 * ```ts
 * const { seconds, globalBytes } = predictScheduleTime(knl, device, profile, { n: 4096 });
 * ```
 */
export function predictScheduleTime(
  knl: LoopKernel,
  device: Device,
  profile: DeviceProfile,
  sizes: Readonly<Record<string, number>>,
  options: { readonly parallelism?: number; readonly computeUnits?: number; readonly livePrivateValues?: number } = {},
): CostBreakdown {
  const program = programShape(knl, device.target);
  checkProgramLimits(program, device.limits, device.name, targetFacts(device.target).heldInFloat);
  return predictCost(knl, program, profile, sizes, deviceShape(device, options));
}

/** Work-items a device is assumed to run at once when neither the caller nor its compute units say (a mid-size GPU's). */
export const DEFAULT_PARALLELISM = 16384;

/**
 * Work-items in flight that keep a compute unit busy: 16 warps of 32 (fitted on the H200's
 * recorded candidates, bench/fit-cost-model.ts: n-body forces a work-item a body, 512 warps on
 * 132 multiprocessors, ran 3.8x slower than the model said with 32 work-items a unit).
 */
const WORK_ITEMS_PER_UNIT = 512;

/**
 * What the model assumes of `device` where the caller does not say: the compute units its limits
 * report, and the work-items that keep them busy (DEFAULT_PARALLELISM where the count is unknown).
 */
export function deviceShape(device: Device, given: Partial<DeviceShape> = {}): DeviceShape {
  const computeUnits = given.computeUnits ?? device.limits.computeUnits;
  const parallelism = given.parallelism ?? (computeUnits ? computeUnits * WORK_ITEMS_PER_UNIT : DEFAULT_PARALLELISM);
  const livePrivateValues = given.livePrivateValues ?? targetFacts(device.target).livePrivateValues;
  const unrollsConstantLoops = given.unrollsConstantLoops ?? targetFacts(device.target).unrollsConstantLoops;
  return {
    parallelism,
    unrollsConstantLoops,
    ...(computeUnits ? { computeUnits } : {}),
    ...(livePrivateValues !== undefined ? { livePrivateValues } : {}),
  };
}
