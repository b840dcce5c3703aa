/**
 * The space `autoSchedule` searches, for this first increment: each parallel (never reduced)
 * iname split onto a group axis and a local axis (`g.N`/`l.N`) with a register block between
 * them (`ilp` where a reduction's accumulators get one copy per block entry, `unr` elsewhere),
 * a third parallel iname whole on `g.2`, the rest sequential loops in a fixed priority; and for
 * a kernel with one reduction, its iname split with the inputs the work-group shares staged in
 * local memory per step (`addPrefetch`, fetch loops spread over the group), or split across the
 * work-group's l.0 (a tree in local memory) with the parallel inames whole on group axes; for a
 * kernel whose reductions run over a small window (a convolution's taps), the window's inputs the
 * tile reads, halo included, staged whole in local memory (a small window's taps unrolled where
 * the target's compilers would keep them loops) or read where they are. The candidates are lists
 * of steps (steps.ts): whether Loom builds them is decided by building them (search.ts).
 */
import { LoomError } from '../../errors.ts';
import { allAccesses, reductionInames } from '../../kernel/accesses.ts';
import type { LoopKernel } from '../../kernel/model.ts';
import { freeVariables } from '../../expr/analysis.ts';
import { findGrid } from '../../codegen/hardware.ts';
import type { Target } from '../../codegen/target.ts';
import { targetFacts } from '../../codegen/target-facts.ts';
import { evaluateInt, valuesEnv } from '../../runtime/evaluate.ts';
import { tagInames } from '../../transform/tag-inames.ts';
import type { ScheduleStep } from './steps.ts';
import { crossTreeCandidates, treeCandidates } from './trees.ts';
import { heldRowCandidates, heldRowsOf, type HeldRows } from './held-rows.ts';
import { windowStaging } from './windows.ts';

/** Restrictions of the space (`AutoScheduleOptions.space`). */
export interface SpaceRestrictions {
  /** Whether candidates may stage inputs in local memory (default true). */
  readonly localMemory?: boolean;
  /** The most work-items in a work-group (default: the device's limit, at most 1024). */
  readonly maxGroup?: number;
  /** Whether candidates may block parallel inames in registers (`ilp`/`unr`; default true). */
  readonly registerBlocking?: boolean;
  /** How many candidates the cost model ranks, sampled by the seed (default 48). */
  readonly candidates?: number;
  /**
   * Whether staged tiles may be filled by asynchronous copies (`asyncCopies`; default: where the
   * device issues them, CUDA's `cp.async`, and not where work-items run one after another).
   */
  readonly asyncCopies?: boolean;
}

/** The restrictions with the work-group's most work-items settled (the device's limit, or less). */
export type GroupRestrictions = SpaceRestrictions & { readonly maxGroup: number };

/** What the space is made from: the kernel's parallel inames, its reduction, the arrays the reduction reads. */
export interface KernelAnalysis {
  /** Inames no instruction reduces over and every instruction runs in, with their extents at the tuning sizes. */
  readonly parallel: readonly { readonly iname: string; readonly extent: number }[];
  /** The kernel's one reduction iname used only in reductions, if there is exactly one. */
  readonly reduction?: { readonly iname: string; readonly extent: number };
  /** Global arrays read inside that reduction, with the inames their indices use. */
  readonly reads: readonly { readonly array: string; readonly inames: ReadonlySet<string> }[];
  /**
   * Where the kernel reduces, but not over one iname alone: the untagged inames besides the
   * parallel ones, each a row some instructions reduce or loop over (softmax's maximum over k, its
   * sum over l, its quotients over j), with their extents. A work-group can take a row together.
   */
  readonly rows?: readonly { readonly iname: string; readonly extent: number }[];
  /** Where several of the `rows` read an array alike, which a work-item may read once into registers (held-rows.ts). */
  readonly heldRows?: HeldRows;
  /**
   * Where every reduction runs over a small window (a convolution's filter taps, at most
   * WINDOW_EXTENT values an iname): the window's inames and the global arrays read inside its
   * reductions. A work-group can stage each such array's part its tile reads, halo included,
   * once in local memory, where neighbouring work-items read it again and again from there.
   */
  readonly window?: {
    readonly inames: readonly { readonly iname: string; readonly extent: number }[];
    readonly reads: readonly { readonly array: string; readonly inames: ReadonlySet<string> }[];
    /** Whether staged candidates unroll the taps: a small window, where the target's compilers would keep them loops. */
    readonly unrollTaps: boolean;
  };
}

/** The most values a reduction iname takes for its reduction to count as a window (a filter's taps). */
const WINDOW_EXTENT = 16;

/** One point of the space: its steps and a short name for progress reports. */
export interface Candidate {
  readonly steps: readonly ScheduleStep[];
  readonly label: string;
  /** The knobs it was made from, when it is a point of the tiled space (its neighbours are found from them). */
  readonly knobs?: Knobs;
}

/**
 * The knobs of a tiled candidate: where each parallel iname goes, the reduction steps staged
 * per round (0: none), and whether the staged tiles are double-buffered (the climb tries it
 * beside the sampled candidates; the sample keeps one buffer).
 */
export interface Knobs {
  readonly placements: readonly Placement[];
  readonly staged: number;
  /** The window's arrays staged in local memory whole for the work-group's tile (kernels with a `window`). */
  readonly window?: boolean;
  readonly doubleBuffered?: boolean;
  /**
   * With `doubleBuffered` and `asyncCopies`: buffers of each staged tile past two (3 or 4), the
   * copies of the later steps left in flight at each barrier (`doubleBuffer`'s `stages`).
   */
  readonly stages?: number;
  /** The staged tiles filled by asynchronous copies. */
  readonly asyncCopies?: boolean;
}

/**
 * The parallel inames, the reduction and its reads of `knl`, extents evaluated at `sizes`, for
 * candidates to run on `target` (what its compilers do themselves; default: the defaults of its facts).
 */
export function analyzeKernel(
  knl: LoopKernel,
  sizes: Readonly<Record<string, number>>,
  target?: Target,
): KernelAnalysis {
  const reduced = new Set<string>();
  for (const insn of knl.instructions) for (const r of reductionInames(insn, knl.substitutions)) reduced.add(r);
  const looped = new Set(knl.instructions.flatMap((insn) => insn.withinInames));
  const tagged = new Set(knl.inameTags.keys());
  // an iname some instruction runs outside of would need a global barrier between them (softmax's
  // row maximum before its quotients): only the loops around every instruction go on the grid
  const everywhere = (i: string) => knl.instructions.every((insn) => insn.withinInames.includes(i));
  const parallel = knl.inames
    .filter((i) => everywhere(i) && !reduced.has(i) && !tagged.has(i))
    .flatMap((iname) => {
      const extent = extentOf(knl, iname, sizes);
      return extent === undefined ? [] : [{ iname, extent }];
    });
  const pure = [...reduced].filter((r) => !looped.has(r) && !tagged.has(r));
  const extent = pure.length === 1 && reduced.size === 1 ? extentOf(knl, pure[0]!, sizes) : undefined;
  if (extent === undefined) {
    const across = new Set(parallel.map((p) => p.iname));
    const rows = knl.inames
      .filter((i) => !across.has(i) && !tagged.has(i))
      .flatMap((iname) => {
        const e = extentOf(knl, iname, sizes);
        return e === undefined ? [] : [{ iname, extent: e }];
      });
    const unrollsLoops = target ? targetFacts(target).unrollsConstantLoops : true;
    const window = windowOf(knl, reduced, pure, sizes, unrollsLoops);
    const heldRows =
      reduced.size > 0 && rows.length > 1
        ? heldRowsOf(
            knl,
            rows.map((r) => r.iname),
            parallel.map((p) => p.iname),
          )
        : undefined;
    return {
      parallel,
      reads: [],
      ...(reduced.size > 0 && rows.length > 0 ? { rows } : {}),
      ...(heldRows ? { heldRows } : {}),
      ...(window ? { window } : {}),
    };
  }
  const iname = pure[0]!;
  return { parallel, reduction: { iname, extent }, reads: readsWithin(knl, [iname]) };
}

/** The global arrays read inside reductions over any of `inames`, with the inames their indices use. */
function readsWithin(knl: LoopKernel, inames: readonly string[]): KernelAnalysis['reads'] {
  const reads = new Map<string, Set<string>>();
  for (const access of allAccesses(knl)) {
    if (access.isWrite || !access.reductionInames.some((r) => inames.includes(r)) || !knl.arg(access.array)) continue;
    const used = reads.get(access.array) ?? new Set<string>();
    for (const index of access.indices) for (const v of freeVariables(index)) if (knl.inames.includes(v)) used.add(v);
    reads.set(access.array, used);
  }
  return [...reads].map(([array, used]) => ({ array, inames: used }));
}

/** The most taps a staged window has unrolled, where the target's compilers would not (a 5 x 5 filter's 25). */
const UNROLLED_TAPS = 32;

/**
 * The kernel's window, where every reduction iname is pure and takes at most WINDOW_EXTENT values;
 * its taps unrolled where they are few and the target's compilers keep such loops (`unrollsLoops` false).
 */
function windowOf(
  knl: LoopKernel,
  reduced: ReadonlySet<string>,
  pure: readonly string[],
  sizes: Readonly<Record<string, number>>,
  unrollsLoops: boolean,
): KernelAnalysis['window'] {
  if (reduced.size === 0 || pure.length !== reduced.size) return undefined;
  const extents = pure.map((iname) => ({ iname, extent: extentOf(knl, iname, sizes) }));
  if (!extents.every((w) => w.extent !== undefined && w.extent <= WINDOW_EXTENT)) return undefined;
  const reads = readsWithin(knl, pure);
  if (reads.length === 0) return undefined;
  const inames = extents.map((w) => ({ iname: w.iname, extent: w.extent! }));
  const taps = inames.reduce((n, w) => n * w.extent, 1);
  return { inames, reads, unrollTaps: !unrollsLoops && taps <= UNROLLED_TAPS };
}

/** The number of values `iname` takes at `sizes`, or undefined where it cannot go on a hardware axis. */
function extentOf(knl: LoopKernel, iname: string, sizes: Readonly<Record<string, number>>): number | undefined {
  try {
    // the grid of the kernel as written, not preprocessed: a reduction iname on g.0 would be refused there
    const grid = findGrid(tagInames(knl, { [iname]: 'g.0' }));
    const env = valuesEnv(new Map(Object.entries(sizes)), `the extent of '${iname}'`);
    return evaluateInt(grid.groupCount[0]!, env, `the extent of '${iname}'`);
  } catch (e) {
    // a lower bound that is not constant, a parameter without a size: not a candidate for an axis
    if (e instanceof LoomError) return undefined;
    throw e;
  }
}

/** How one parallel iname is placed: on axis `axis` with `local` work-items and `block` registers each, whole on a group axis, or a loop. */
export interface Placement {
  readonly iname: string;
  readonly extent: number;
  readonly axis?: number;
  readonly local: number;
  readonly block: number;
}

/**
 * Every candidate of the space, the unscheduled kernel first, then the reductions across the
 * work-group, then (for a seed) a sample of `restrictions.candidates` of the rest, in an order
 * the seed fixes.
 */
export function enumerateCandidates(
  analysis: KernelAnalysis,
  restrictions: GroupRestrictions,
  seed: number,
): Candidate[] {
  const all: Candidate[] = [];
  const seen = new Set<string>();
  const add = (c: Candidate) => {
    const key = JSON.stringify(c.steps);
    if (!seen.has(key)) {
      seen.add(key);
      all.push(c);
    }
  };
  for (const placements of placementsOf(analysis, restrictions))
    for (const staging of stagingsOf(analysis, restrictions)) {
      const c = candidateOf(analysis, { placements, ...staging });
      if (c) add(c);
    }
  const random = xorshift(seed);
  for (let k = all.length - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    [all[k], all[j]] = [all[j]!, all[k]!];
  }
  // the few reductions across the work-group are always ranked: no sample may miss the one way to read rows coalesced
  const trees = [
    ...treeCandidates(analysis, restrictions),
    ...heldRowCandidates(analysis, restrictions),
    ...crossTreeCandidates(analysis, restrictions),
  ];
  return [{ steps: [], label: 'unscheduled' }, ...trees, ...all.slice(0, restrictions.candidates ?? 48)];
}

function* placementsOf(analysis: KernelAnalysis, restrictions: GroupRestrictions): Generator<Placement[]> {
  const { parallel } = analysis;
  const blocks = restrictions.registerBlocking === false ? [1] : SAMPLED_BLOCKS;
  for (const first of parallel) {
    const others = parallel.filter((p) => p !== first);
    for (const second of [undefined, ...others]) {
      const rest = others.filter((p) => p !== second);
      const third = rest[0];
      const loops = rest.slice(third ? 1 : 0);
      for (const l0 of localSizes(first.extent, [8, 16, 32, 64, 128, 256], restrictions.maxGroup))
        for (const b0 of blocks.filter((b) => b === 1 || l0 * b <= first.extent))
          for (const l1 of second
            ? localSizes(second.extent, [1, 2, 4, 8, 16], Math.floor(restrictions.maxGroup / l0))
            : [1])
            for (const b1 of second ? blocks.filter((b) => b === 1 || (l1 > 1 && l1 * b <= second.extent)) : [1]) {
              const placed: Placement[] = [{ ...first, axis: 0, local: l0, block: b0 }];
              if (second) placed.push({ ...second, axis: 1, local: l1, block: b1 });
              // a parallel iname without a local axis still takes a group axis of its own
              if (third) placed.push({ ...third, axis: second ? 2 : 1, local: 1, block: 1 });
              for (const loop of loops) placed.push({ ...loop, local: 1, block: 1 });
              yield placed;
            }
    }
  }
}

/** Register blocks the sample draws from. */
const SAMPLED_BLOCKS = [1, 2, 4];
/**
 * The largest register block along one iname, and of a work-item's blocks together (its
 * accumulators), which the climb reaches from the sample's: 8 x 8 a work-item is what tiled
 * matrix products run on GPUs (64 accumulators, 16 operands a step, within the registers of 512
 * work-items a compute unit). The model sees the local traffic such a tile saves and the
 * parallelism it costs (fewer, larger work-groups); the measurements decide between the best
 * few. (An earlier model's climb to 8 x 8 tiles of matmul at 1024 ran 12x slower than 4 x 4 on
 * the H200; this one ranks 4 x 4 first there, and 8 x 8 first for the 32 x 512 x 512 contraction.)
 */
const MAX_BLOCK = 8;
const MAX_BLOCK_PRODUCT = 64;

/**
 * The tiled candidates one knob away from `knobs`: one iname's work-items or register block
 * doubled or halved, work-items moved from one axis to another, two inames' places exchanged,
 * or the next smaller or larger reduction staging. The search ranks these around its
 * best-ranked candidates (a hill climb on the model), which reaches the points a
 * sample of the whole space rarely holds (matmul's 16 x 16 work-items of 4 x 4 among a few
 * thousand).
 */
export function neighbourCandidates(
  analysis: KernelAnalysis,
  restrictions: GroupRestrictions,
  knobs: Knobs,
): Candidate[] {
  const out: Candidate[] = [];
  const { placements, staged } = knobs;
  const valid = (placed: readonly Placement[]) => {
    const onAxes = placed.filter((p) => p.axis !== undefined);
    const group = onAxes.reduce((a, p) => a * p.local, 1);
    const blocks = onAxes.reduce((a, p) => a * p.block, 1);
    return (
      group <= restrictions.maxGroup &&
      blocks <= MAX_BLOCK_PRODUCT &&
      onAxes.every(
        (p) =>
          Number.isInteger(p.local) &&
          p.local >= 1 &&
          p.local < 2 * p.extent &&
          Number.isInteger(p.block) &&
          p.block >= 1 &&
          p.block <= MAX_BLOCK &&
          (p.block === 1 || (p.local * p.block <= p.extent && (p.axis === 0 || p.local > 1))) &&
          (restrictions.registerBlocking !== false || p.block === 1),
      )
    );
  };
  // the knobs with some changed: the others, double buffers and asynchronous copies included, kept
  const push = (placed: readonly Placement[], changes: Partial<Omit<Knobs, 'placements'>> = {}) => {
    if (!valid(placed)) return;
    const c = candidateOf(analysis, { ...knobs, placements: placed, ...changes });
    if (c) out.push(c);
  };
  placements.forEach((p, k) => {
    if (p.axis === undefined) return;
    const changed = (q: Partial<Placement>) => placements.map((x, m) => (m === k ? { ...x, ...q } : x));
    for (const local of [p.local * 2, p.local / 2]) push(changed({ local }));
    for (const block of [p.block * 2, p.block / 2]) push(changed({ block }));
    // work-items traded for registers: the same tile of the iname, computed by fewer, fuller work-items
    push(changed({ local: p.local / 2, block: p.block * 2 }));
    push(changed({ local: p.local * 2, block: p.block / 2 }));
  });
  // work-items moved from one axis to another, the work-group's size kept (64 x 4 to 32 x 8 to 16 x 16)
  placements.forEach((p, k) =>
    placements.forEach((q, m) => {
      if (k === m || p.axis === undefined || q.axis === undefined) return;
      push(
        placements.map((x, n) => (n === k ? { ...x, local: p.local / 2 } : n === m ? { ...x, local: q.local * 2 } : x)),
      );
    }),
  );
  // two inames trading places (the tile on i and j, the batch on g.2, rather than on b and j):
  // a sample rarely holds the pairing the model ranks best with the blocks the climb found
  placements.forEach((p, k) =>
    placements.forEach((q, m) => {
      if (m <= k || (p.axis === undefined && q.axis === undefined)) return;
      const swapped = placements.map((x, n) =>
        n === k ? { ...x, iname: q.iname, extent: q.extent } : n === m ? { ...x, iname: p.iname, extent: p.extent } : x,
      );
      push(swapped);
    }),
  );
  const stagings = reductionSteps(analysis, restrictions);
  const at = stagings.indexOf(staged);
  for (const s of [stagings[at - 1], stagings[at + 1]]) if (s !== undefined) push(placements, { staged: s });
  // the staged tiles in one buffer or two, copied through registers or asynchronously where the device can
  if (staged > 0) push(placements, { doubleBuffered: !knobs.doubleBuffered });
  if (staged > 0 && restrictions.asyncCopies) push(placements, { asyncCopies: !knobs.asyncCopies });
  // asynchronous copies in flight over more steps: a pipeline of 3 or 4 buffers
  if (staged > 0 && knobs.doubleBuffered && knobs.asyncCopies)
    for (const stages of PIPELINE_STAGES) if (stages !== (knobs.stages ?? 2)) push(placements, { stages });
  // the window's inputs staged for the tile, or read where they are
  if (analysis.window && restrictions.localMemory !== false) push(placements, { window: !knobs.window });
  return out;
}

/** The pipelines past a double buffer the climb tries where staged tiles are copied asynchronously: 2 buffers are `doubleBuffered` alone. */
const PIPELINE_STAGES = [2, 3, 4];

/** Local sizes for an iname of `extent` values: those of `sizes` up to the extent's next power of two, and the extent itself when small. */
function localSizes(extent: number, sizes: readonly number[], most: number): number[] {
  const fit = sizes.filter((s) => s <= most && (s === 1 || s < 2 * extent));
  if (extent <= 64 && extent <= most && !fit.includes(extent)) fit.push(extent);
  return fit;
}

/**
 * What a candidate may stage in local memory besides its placements: the reduction's steps per
 * round (0: none), or the window's inputs whole for the tile.
 */
function stagingsOf(analysis: KernelAnalysis, restrictions: SpaceRestrictions): Pick<Knobs, 'staged' | 'window'>[] {
  const steps = reductionSteps(analysis, restrictions).map((staged) => ({ staged }));
  return analysis.window && restrictions.localMemory !== false ? [...steps, { staged: 0, window: true }] : steps;
}

/** The reduction's step counts staged per round (0: not split). */
function reductionSteps(analysis: KernelAnalysis, restrictions: SpaceRestrictions): number[] {
  const r = analysis.reduction;
  if (!r || restrictions.localMemory === false) return [0];
  return [0, ...[8, 16, 32].filter((s) => s <= r.extent)];
}

function candidateOf(analysis: KernelAnalysis, chosen: Knobs): Candidate | undefined {
  const { placements: placed, staged } = chosen;
  const steps: ScheduleStep[] = [];
  const localParts = new Map<string, string[]>();
  const blockTag = analysis.reduction ? 'ilp' : 'unr';
  const labels: string[] = [];
  // only the knobs that apply: two candidates with the same steps have the same knobs
  const knobs: Knobs = {
    placements: placed,
    staged,
    ...(chosen.doubleBuffered && staged > 0 ? { doubleBuffered: true } : {}),
    ...(chosen.asyncCopies && staged > 0 ? { asyncCopies: true } : {}),
    ...(chosen.stages && chosen.stages > 2 && chosen.doubleBuffered && chosen.asyncCopies && staged > 0
      ? { stages: chosen.stages }
      : {}),
    ...(chosen.window && analysis.window ? { window: true } : {}),
  };
  for (const p of placed) {
    if (p.axis === undefined) continue;
    if (p.local === 1 && p.block === 1) {
      steps.push({ kind: 'tag', tags: { [p.iname]: `g.${p.axis}` } });
      localParts.set(p.iname, []);
      labels.push(`${p.iname}:g.${p.axis}`);
    } else if (p.block === 1) {
      steps.push({ kind: 'split', iname: p.iname, factor: p.local, outer: `g.${p.axis}`, inner: `l.${p.axis}` });
      localParts.set(p.iname, [`${p.iname}_inner`]);
      labels.push(`${p.iname}:${p.local}`);
    } else {
      // strided blocks: neighbouring work-items keep neighbouring elements in each copy
      steps.push({ kind: 'split', iname: p.iname, factor: p.local * p.block, outer: `g.${p.axis}` });
      steps.push({ kind: 'split', iname: `${p.iname}_inner`, factor: p.local, outer: blockTag, inner: `l.${p.axis}` });
      localParts.set(p.iname, [`${p.iname}_inner_outer`, `${p.iname}_inner_inner`]);
      labels.push(`${p.iname}:${p.local}x${p.block}`);
    }
  }
  const loops = placed.filter((p) => p.axis === undefined).map((p) => p.iname);
  const r = analysis.reduction;
  if (r && staged > 0) {
    const grouped = placed.filter((p) => p.axis !== undefined && p.local > 1).map((p) => p.iname);
    const fetches = analysis.reads.filter(
      ({ inames }) =>
        grouped.some((g) => !inames.has(g)) && [...inames].every((i) => i === r.iname || localParts.has(i)),
    );
    // a split reduction with nothing to stage is the unsplit one, rolled differently
    if (fetches.length === 0) return undefined;
    steps.push({ kind: 'split', iname: r.iname, factor: staged });
    for (const { array, inames } of fetches) {
      const sweep = [...inames].flatMap((i) => (i === r.iname ? [`${r.iname}_inner`] : localParts.get(i)!));
      steps.push({ kind: 'prefetch', array, sweep });
    }
    const stepLoops = [`${r.iname}_outer`];
    const temporaries = fetches.map((f) => `${f.array}_fetch`);
    if (knobs.doubleBuffered) {
      steps.push({
        kind: 'doubleBuffer',
        temporaries,
        iname: `${r.iname}_outer`,
        ...(knobs.stages ? { stages: knobs.stages } : {}),
      });
      stepLoops.splice(0, 1, `${r.iname}_outer_pair`, `${r.iname}_outer_parity`);
    }
    if (knobs.asyncCopies) steps.push({ kind: 'asyncCopies', temporaries });
    steps.push({ kind: 'prioritize', order: [...loops, ...stepLoops, `${r.iname}_inner`] });
    labels.push(
      `${r.iname}:${staged} staged ${fetches.map((f) => f.array).join(',')}${knobs.doubleBuffered ? (knobs.stages ? ` ${knobs.stages} buffers` : ' double-buffered') : ''}${knobs.asyncCopies ? ' async' : ''}`,
    );
  } else if (knobs.window && analysis.window) {
    const staged = windowStaging(analysis.window, placed, localParts, loops);
    if (!staged) return undefined;
    steps.push(...staged.steps);
    labels.push(staged.label);
  } else if (loops.length > 1) steps.push({ kind: 'prioritize', order: loops });
  return { steps, label: labels.join(' '), knobs };
}

/** A small deterministic generator of numbers in [0, 1): the same seed, the same sample. */
function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}
