/**
 * What one work-item of a candidate holds and repeats, for autoSchedule's cost model: its
 * registers (accumulators, operands), the copies its unrolled inames make of an access (reads
 * shared by the copies, loads issued together), and how many work-groups and warps a compute
 * unit holds at once, as their registers allow.
 */
import { LoomError } from '../../errors.ts';
import { freeVariables } from '../../expr/analysis.ts';
import { toLinear } from '../../expr/affine.ts';
import { allAccesses, namesWritten, reductionInames, type Access } from '../../kernel/accesses.ts';
import type { LoopKernel } from '../../kernel/model.ts';
import { Linear } from '../../linear.ts';
import { perObject } from '../../memo.ts';
import { ilpRange } from '../../preprocess/privatize-ilp.ts';
import { WARP } from './warps.ts';

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
/** Work-groups and warps a compute unit holds at once: NVIDIA's since Volta (devices do not report them). */
const GROUPS_PER_UNIT = 32;
const WARPS_PER_UNIT = 64;

/** The warps a compute unit holds at once: as many groups as it takes, their warps, and their registers allow. */
export function residentWarps(registers: number, groupItems: number): number {
  const warps = Math.ceil(groupItems / WARP);
  const byRegisters = Math.floor(REGISTERS_PER_UNIT / (registers * warps * WARP));
  const groups = Math.max(1, Math.min(GROUPS_PER_UNIT, Math.floor(WARPS_PER_UNIT / warps), byRegisters));
  return groups * warps;
}

/** Whether `name` is global memory: an argument, or a global temporary. */
function isGlobal(knl: LoopKernel, name: string): boolean {
  return knl.arg(name) !== undefined || knl.temporaries.get(name)?.addressSpace === 'global';
}

/** The inames an access runs in: its instruction's, and the reductions it is inside. */
function inamesOf(access: Access): Set<string> {
  return new Set([...access.instruction.withinInames, ...access.reductionInames]);
}

/**
 * Per global array, the fewest copies any instruction reading it makes of the read (its `ilp`
 * and `unr` inames' extents): copies issue their loads together, one latency for all.
 */
export function loadCopies(knl: LoopKernel): Map<string, number> {
  const out = new Map<string, number>();
  for (const access of allAccesses(knl)) {
    if (access.isWrite || !isGlobal(knl, access.array)) continue;
    let n = 1;
    for (const iname of inamesOf(access)) n *= unrolledCopies(knl, iname);
    out.set(access.array, Math.min(out.get(access.array) ?? n, n));
  }
  return out;
}

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

/** The values a work-item keeps live (registersPerWorkItem without the overhead): its accumulators and one step's operands. */
export function liveValues(knl: LoopKernel): number {
  return registersPerWorkItem(knl) - REGISTER_OVERHEAD;
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
 * The longest loop of constant trip count that compilers which unroll such loops themselves
 * (`Target.unrollsConstantLoops`: NVIDIA's, LLVM's) are taken to unroll whole: a 3 x 3 or 5 x 5
 * convolution's taps (an assumption; on the H200 a staged convolution's candidates whose unrolled
 * rows are 2 apart, so that the taps' rows meet, ran 1.6x faster than those with rows 8 apart,
 * which the model had tied).
 */
const SHORT_LOOP = 8;

/**
 * The copies of a read of `array` the compiler sees side by side: an `ilp` or `unr` iname's
 * extent, and, where `shortLoops` (the target's compilers unroll short loops themselves), a
 * sequential loop's constant trip count up to SHORT_LOOP, unless the loop also writes the array
 * (a buffer refilled each iteration holds other values at the same place: a double buffer's
 * pairs); 1 for any other iname.
 */
function copiesSeen(knl: LoopKernel, iname: string, shortLoops: boolean, array: string): number {
  const tag = knl.inameTags.get(iname);
  if (!shortLoops || (tag !== undefined && tag.kind !== 'for')) return unrolledCopies(knl, iname);
  if (knl.instructions.some((i) => i.withinInames.includes(iname) && namesWritten(i).includes(array))) return 1;
  return shortTrips(knl, iname);
}

/** Per kernel (immutable), each loop's trip count where constant and at most SHORT_LOOP, else 1: asked for every access. */
const tripCounts = perObject((_: LoopKernel) => new Map<string, number>());

function shortTrips(knl: LoopKernel, iname: string): number {
  const counts = tripCounts(knl);
  let trips = counts.get(iname);
  if (trips === undefined) {
    try {
      const { lo, hi } = ilpRange(knl, iname);
      trips = hi - lo + 1 <= SHORT_LOOP ? hi - lo + 1 : 1;
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
      trips = 1;
    }
    counts.set(iname, trips);
  }
  return trips;
}

/**
 * Per local array, the fraction of its counted reads that touch distinct elements within one
 * set of unrolled copies (`ilp`, `unr`, and short loops where `shortLoops`: `copiesSeen`), which
 * the compiler reads once into a register: copies over inames the index does not use read the
 * same element, and so do copies whose offsets cancel (a convolution unrolled over 8 rows and its
 * 5 taps down reads 12 rows, not 40: row i + di is row (i + 1) + (di - 1); rows unrolled 8 apart
 * share none). The smallest fraction over the instructions that read it; where an index is not
 * affine or the copies are too many to list, from the inames it does not use alone.
 */
export function localReuse(knl: LoopKernel, shortLoops = false): Map<string, number> {
  const isLocal = (array: string) => knl.temporaries.get(array)?.addressSpace === 'local';
  const out = unrolledReadReuse(knl, isLocal, shortLoops);
  for (const access of allAccesses(knl)) {
    if (access.isWrite || !isLocal(access.array) || out.has(`${access.instruction.id} ${access.array}`)) continue;
    const used = new Set(access.indices.flatMap((e) => [...freeVariables(e)]));
    let all = 1;
    let distinct = 1;
    for (const iname of inamesOf(access)) {
      const n = copiesSeen(knl, iname, shortLoops, access.array);
      all *= n;
      if (used.has(iname)) distinct *= n;
    }
    out.set(`${access.instruction.id} ${access.array}`, distinct / all);
  }
  return smallestPerArray(out);
}

/**
 * Per global array, the fraction of its counted reads that load distinct elements: the unrolled
 * copies (`ilp`, `unr`, and short loops where `shortLoops`: `copiesSeen`) of an instruction, and
 * its several reads of one array, load an element once (a 5-point stencil unrolled over two rows
 * reads 8 distinct elements of 10). The smallest fraction over the instructions that read it; 1
 * where an index is not affine or the copies are too many to list.
 */
export function globalReuse(knl: LoopKernel, shortLoops = false): Map<string, number> {
  const out = unrolledReadReuse(knl, (array) => isGlobal(knl, array), shortLoops);
  for (const access of allAccesses(knl))
    if (!access.isWrite && isGlobal(knl, access.array) && !out.has(`${access.instruction.id} ${access.array}`))
      out.set(`${access.instruction.id} ${access.array}`, 1);
  return smallestPerArray(out);
}

/** The most unrolled copies of an instruction listed to find the elements they share. */
const MOST_COPIES = 4096;

/**
 * Per instruction and array (`id array`) that `reads` selects, the distinct elements its reads
 * touch over all its unrolled copies, as a fraction of the reads; left out where an index is not
 * affine or the copies are more than MOST_COPIES.
 */
function unrolledReadReuse(
  knl: LoopKernel,
  reads: (array: string) => boolean,
  shortLoops: boolean,
): Map<string, number> {
  const entries = new Map<string, { all: number; distinct: Set<string>; affine: boolean }>();
  for (const access of allAccesses(knl)) {
    if (access.isWrite || !reads(access.array)) continue;
    const key = `${access.instruction.id} ${access.array}`;
    const entry = entries.get(key) ?? { all: 0, distinct: new Set<string>(), affine: true };
    entries.set(key, entry);
    const forms = access.indices.map((e) => toLinear(e));
    const unrolled = [...inamesOf(access)]
      .map((iname) => ({ iname, count: copiesSeen(knl, iname, shortLoops, access.array) }))
      .filter((u) => u.count > 1);
    const total = unrolled.reduce((a, u) => a * u.count, 1);
    if (forms.some((f) => f === undefined) || total > MOST_COPIES) {
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
  for (const [key, { all, distinct, affine }] of entries) if (affine && all > 0) out.set(key, distinct.size / all);
  return out;
}

/** From fractions per `id array` to the smallest per array. */
function smallestPerArray(fractions: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, fraction] of fractions) {
    const array = key.slice(key.indexOf(' ') + 1);
    out.set(array, Math.min(out.get(array) ?? 1, fraction));
  }
  return out;
}
