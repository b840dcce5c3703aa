/**
 * The cost model of `autoSchedule`: a time for a candidate kernel from its exact counts at the
 * tuning sizes and the device's measured profile. Where `estimateTime` weighs a kernel's
 * footprint (blind to how the work is laid out), this weighs what the schedule changes:
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
 *    step, not 32); and local barriers, each
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
import { LoomError } from '../../errors.ts';
import { freeVariables } from '../../expr/analysis.ts';
import { allAccesses, reductionInames } from '../../kernel/accesses.ts';
import { ilpRange } from '../../preprocess/privatize-ilp.ts';
import { toLinear } from '../../expr/affine.ts';
import { Linear } from '../../linear.ts';
import { targetFacts } from '../../codegen/target-facts.ts';

const WARP = 32;
const SECTOR = 32;
const L1_LINE = 128;
const LOCAL_SPEEDUP = 8;
const L1_SPEEDUP = 3;
const L2_SPEEDUP = 2;
const OVERLAP_LEAK = 0.25;
const BARRIER_FLOPS = 64;

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
  /** Compute units running work-groups side by side; undefined: not known, not modelled. */
  readonly computeUnits?: number;
}

/** The model's time for `knl` (shaped as `program`: its grid is what is read) at `sizes` on a device with this profile. */
export function predictCost(
  knl: LoopKernel,
  program: ProgramAst,
  profile: DeviceProfile,
  sizes: Readonly<Record<string, number>>,
  { parallelism, computeUnits }: DeviceShape,
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
  const reuse = localReuse(knl);
  const loads = globalReuse(knl);
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
      localBytes += n * bytes * (key.countGranularity === 'workitem' ? 1 : WARP) * shared;
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
  const residency = residencySlowdown(registers, groupItems, barriers > 0);
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

/**
 * Seconds a work-item waits, on average, for each global load of a loop: a memory latency of
 * most of a microsecond over the few iterations a compiler's unrolling issues together (fitted,
 * bench/fit-cost-model.ts on the H200's recorded candidates of all ten kernels: mean tau-b 0.57 to
 * 0.61 on CUDA, 0.55 to 0.60 on OpenCL, 0.32 to 0.49 on WebGPU; from 0.2 to 0.3 µs alike).
 */
const LOAD_LATENCY = 2.5e-7;
/** Work-groups and warps a compute unit holds at once: NVIDIA's since Volta (devices do not report them). */
const GROUPS_PER_UNIT = 32;
const WARPS_PER_UNIT = 64;

/** The warps a compute unit holds at once: as many groups as it takes, their warps, and their registers allow. */
function residentWarps(registers: number, groupItems: number): number {
  const warps = Math.ceil(groupItems / WARP);
  const byRegisters = Math.floor(REGISTERS_PER_UNIT / (registers * warps * WARP));
  const groups = Math.max(1, Math.min(GROUPS_PER_UNIT, Math.floor(WARPS_PER_UNIT / warps), byRegisters));
  return groups * warps;
}

/**
 * Per global array, the fewest copies any instruction reading it makes of the read (its `ilp`
 * and `unr` inames' extents): copies issue their loads together, one latency for all.
 */
export function loadCopies(knl: LoopKernel): Map<string, number> {
  const global = (name: string) => knl.arg(name) !== undefined || knl.temporaries.get(name)?.addressSpace === 'global';
  const out = new Map<string, number>();
  for (const access of allAccesses(knl)) {
    if (access.isWrite || !global(access.array)) continue;
    let n = 1;
    for (const iname of new Set([...access.instruction.withinInames, ...access.reductionInames]))
      n *= unrolledCopies(knl, iname);
    out.set(access.array, Math.min(out.get(access.array) ?? n, n));
  }
  return out;
}

/** 32-bit registers of a compute unit: NVIDIA's multiprocessors since Kepler (devices do not report it). */
const REGISTERS_PER_UNIT = 65536;
/**
 * The most 32-bit registers one work-item may hold (NVIDIA's 255): beyond, its values spill to
 * memory however few work-items share the unit.
 */
const REGISTERS_PER_WORK_ITEM = 255;
/** Registers a work-item holds besides its values: indices, addresses, loop counters (a guess). */
const REGISTER_OVERHEAD = 24;
/** The slowdown of a unit that holds one work-group at a time, with barriers (see residencySlowdown). */
const ALONE_SLOWDOWN = 1.5;
/** The slowdown of a work-group whose registers do not fit a unit: they spill to memory (a guess). */
const SPILL_SLOWDOWN = 4;

/**
 * The registers a work-item of `knl` needs, roughly: each reduction's accumulators (one a copy of
 * its instruction over the `ilp`/`unr` inames it runs in: an 8 x 8 register tile holds 64), the
 * operands of one step (a copy per unrolled iname's value: 8 + 8 for that tile), and an overhead.
 */
export function registersPerWorkItem(knl: LoopKernel): number {
  let accumulators = 0;
  const unrolled = new Map<string, number>();
  for (const insn of knl.instructions) {
    let copies = 1;
    for (const iname of insn.withinInames) {
      const n = unrolledCopies(knl, iname);
      if (n > 1) unrolled.set(iname, n);
      copies *= n;
    }
    if (reductionInames(insn, knl.substitutions).size > 0) accumulators += copies;
  }
  const operands = [...unrolled.values()].reduce((a, b) => a + b, 0);
  return accumulators + operands + REGISTER_OVERHEAD;
}

/**
 * How much slower a launch runs for the work-groups a compute unit holds at once, as their
 * registers allow: where one group fills a unit's registers, its barriers stall the unit with
 * nothing else to run (8 x 8 tiles of the contraction over 512 work-items ran 1.6x slower than
 * over 256 on the H200; two groups a unit or more measured alike, so they are not told apart);
 * where a group does not fit at all, or a work-item needs more registers than it may hold, its
 * registers spill to memory.
 */
export function residencySlowdown(registers: number, groupItems: number, hasBarriers: boolean): number {
  const groups = Math.floor(REGISTERS_PER_UNIT / (registers * Math.ceil(groupItems / WARP) * WARP));
  if (groups < 1 || registers > REGISTERS_PER_WORK_ITEM) return SPILL_SLOWDOWN;
  return groups === 1 && hasBarriers ? ALONE_SLOWDOWN : 1;
}

/**
 * The shape of one warp in a work-group of shape `group`: WARP consecutive linear local ids, a
 * row of l.0 (or all of it when narrower), then as many rows along l.1, then l.2, as fill it. A
 * 8 x 8 work-group's warp is 8 x 4: a transpose reading 8 consecutive words a row touches 4
 * sectors a warp, not 4 rows counted as if each were a warp of its own.
 */
export function warpShape(group: readonly number[]): number[] {
  const shape: number[] = [];
  let left = WARP;
  for (const size of group) {
    const take = Math.max(1, Math.min(size, Math.floor(left)));
    shape.push(take);
    left /= take;
  }
  return shape;
}

/**
 * The 32-byte sectors one access of a whole work-group touches, its shape `group` (work-items per
 * local axis) and the access's stride along each (0: the same element; undefined: unknown, each
 * work-item its own sector). Along the axis of the smallest stride below a sector the work-items
 * share sectors, `ceil(L · stride · bytes / 32)` of them a line; every other axis that moves
 * multiplies the lines, up to one sector per distinct element. With `unit`, pieces of that many
 * bytes instead of sectors (128: the L1 cache's lines).
 */
export function groupSectors(
  group: readonly number[],
  strides: readonly (number | undefined)[],
  bytes: number,
  unit = SECTOR,
): number {
  const moving = group
    .map((size, axis) => ({ size, stride: strides[axis] }))
    .filter((a) => a.stride !== 0 && a.size > 1);
  const distinct = moving.reduce((n, a) => n * a.size, 1);
  const near = moving
    .filter((a): a is { size: number; stride: number } => a.stride !== undefined && a.stride * bytes < unit)
    .sort((a, b) => a.stride - b.stride)[0];
  if (!near) return distinct;
  const line = Math.ceil((near.size * near.stride * bytes) / unit);
  return Math.min(distinct, line * (distinct / near.size));
}

/** The copies an `ilp` or `unr` iname makes of what it holds (its constant extent); 1 for any other iname. */
function unrolledCopies(knl: LoopKernel, iname: string): number {
  const kind = knl.inameTags.get(iname)?.kind;
  if (kind !== 'ilp' && kind !== 'unroll') return 1;
  try {
    const { lo, hi } = ilpRange(knl, iname);
    return hi - lo + 1;
  } catch (e) {
    if (e instanceof LoomError) return 1;
    throw e;
  }
}

/**
 * Per local array, the fraction of its counted reads that touch distinct elements within one
 * set of unrolled copies: the copies of an instruction over `ilp` and `unr` inames its index does
 * not use read the same element (one read of a register, once the compiler has it). The smallest
 * fraction over the array's reads, each copy count from the inames' constant ranges.
 */
export function localReuse(knl: LoopKernel): Map<string, number> {
  const out = new Map<string, number>();
  for (const access of allAccesses(knl)) {
    if (access.isWrite || knl.temporaries.get(access.array)?.addressSpace !== 'local') continue;
    const used = new Set(access.indices.flatMap((e) => [...freeVariables(e)]));
    let all = 1;
    let distinct = 1;
    for (const iname of new Set([...access.instruction.withinInames, ...access.reductionInames])) {
      const n = unrolledCopies(knl, iname);
      all *= n;
      if (used.has(iname)) distinct *= n;
    }
    out.set(access.array, Math.min(out.get(access.array) ?? 1, distinct / all));
  }
  return out;
}

/**
 * Per global array, the fraction of its counted reads that load distinct elements: the unrolled
 * copies (`ilp`, `unr`) of an instruction, and its several reads of one array, load an element
 * once (a 5-point stencil unrolled over two rows reads 8 distinct elements of 10). The smallest
 * fraction over the instructions that read it; 1 where an index is not affine or the copies are
 * too many to list.
 */
export function globalReuse(knl: LoopKernel): Map<string, number> {
  const global = (name: string) => knl.arg(name) !== undefined || knl.temporaries.get(name)?.addressSpace === 'global';
  const reads = new Map<string, { all: number; distinct: Set<string>; array: string; affine: boolean }>();
  for (const access of allAccesses(knl)) {
    if (access.isWrite || !global(access.array)) continue;
    const key = `${access.instruction.id} ${access.array}`;
    const entry = reads.get(key) ?? { all: 0, distinct: new Set<string>(), array: access.array, affine: true };
    reads.set(key, entry);
    const forms = access.indices.map((e) => toLinear(e));
    const unrolled = [...new Set([...access.instruction.withinInames, ...access.reductionInames])]
      .map((iname) => ({ iname, count: unrolledCopies(knl, iname) }))
      .filter((u) => u.count > 1);
    const total = unrolled.reduce((a, u) => a * u.count, 1);
    if (forms.some((f) => f === undefined) || total > 4096) {
      entry.affine = false;
      continue;
    }
    const ranges = unrolled.map((u) => ({ ...u, lo: ilpRange(knl, u.iname).lo }));
    for (let copy = 0; copy < total; copy++) {
      let rest = copy;
      const values = ranges.map((r) => {
        const v = r.lo + (rest % r.count);
        rest = Math.floor(rest / r.count);
        return [r.iname, v] as const;
      });
      const at = forms.map((f) => values.reduce((l, [n, v]) => l!.substitute(n, Linear.constant(v)), f)!.toString());
      entry.all++;
      entry.distinct.add(at.join(','));
    }
  }
  const out = new Map<string, number>();
  for (const { all, distinct, array, affine } of reads.values()) {
    const fraction = affine && all > 0 ? distinct.size / all : 1;
    out.set(array, Math.min(out.get(array) ?? 1, fraction));
  }
  return out;
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
  options: { readonly parallelism?: number; readonly computeUnits?: number } = {},
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
  return computeUnits ? { parallelism, computeUnits } : { parallelism };
}
