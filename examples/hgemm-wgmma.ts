/**
 * HGEMM on Hopper's warpgroup matrix instructions (`wgmma`): c = a·b with a and b in float16 (or
 * bfloat16) and c in float32, the plain kernel of examples/hgemm.ts transformed so that each
 * warpgroup (128 work-items on l.0) computes a 64 x `columns` tile of c with one matrix
 * instruction per 16 values of k, both factors read from local memory as core matrices:
 *
 *  - a work-group computes `64·warpgroups` rows (its warpgroups on l.1) by `columns` columns of c;
 *  - k advances `tileK` at a time: both panels are copied into local memory 16 bytes (8 halves) a
 *    work-item at a time, every work-item of the group taking its turn, and laid out as 8 x 8 core
 *    matrices (`splitArrayAxis` twice and `tagArrayAxes`), which the instruction's descriptors read;
 *  - the tile is `tensorize`d with `lanes: 128`: its 64-row shapes are Hopper's (sm_90a).
 *
 * The fastest configurations (`swizzled`, `bulkCopies`) lay both panels out in swizzled lines of 64
 * halves instead (`swizzleArray`), filled by one request of the tensor memory accelerator a panel a
 * step: 506 TFLOP/s at 4096 on the H200 (BENCHMARKS.md, twenty-fifth session), 670 on an H100 with
 * c stored a pair of columns at a time (twenty-sixth). Their barriers may be arrivals (`release`),
 * and with `warpSpecialized` a third warpgroup makes the requests, as CUTLASS's kernels do.
 *
 * CUDA runs it on GPUs of compute capability 9.0 (refused elsewhere, before anything runs); the CPU
 * device computes the same tiles as loops, from the same layouts. Other targets refuse it.
 * ```ts
 * const knl = wgmmaHgemmKernel(4096, WGMMA_DEFAULT);
 * const fast = wgmmaHgemmKernel(4096, { warpgroups: 2, columns: 256, tileK: 64, stages: 4, ahead: 2, bulkCopies: true, swizzled: true });
 * ```
 */
import {
  addPrefetch,
  asyncCopies,
  bulkCopies,
  doubleBuffer,
  fixParameters,
  joinInames,
  prioritizeLoops,
  setOptions,
  splitArrayAxis,
  splitIname,
  swizzleArray,
  tagArrayAxes,
  tensorize,
  type BulkRelease,
  type LoopKernel,
} from '@loom/core';
import { plainHgemm } from './hgemm.ts';

/** How a warpgroup HGEMM kernel is tiled. */
export interface WgmmaConfig {
  /** Warpgroups of a work-group, each 64 rows of its block of c (l.1). */
  readonly warpgroups: number;
  /** Columns of c a warpgroup computes: wgmma's N, a multiple of 8 up to 256. */
  readonly columns: number;
  /** Elements of k staged in local memory at a time (a multiple of 16). */
  readonly tileK: number;
  /** Both panels filled one step of k ahead, into second buffers (`doubleBuffer`). */
  readonly doubleBuffered?: boolean;
  /**
   * Buffers of each panel, filled `stages - 1` steps of k ahead (`doubleBuffer` with `stages`;
   * implies `doubleBuffered`): with `asyncCopies`, a step's barrier waits only for the copies of
   * the step it is about to read, and the later steps' stay in flight.
   */
  readonly stages?: number;
  /**
   * Steps of k between a buffer's fill and its products (default `stages - 1`): fewer leaves the
   * latest steps' products running across the barrier (`wgmma.wait_group` of them), since no fill
   * before the next barrier touches their buffers.
   */
  readonly ahead?: number;
  /**
   * Each 8 consecutive work-items copy the 8 lines of one core matrix (128 consecutive bytes of
   * local memory: no two of them in one bank), reading 16 bytes of each of 8 rows of the factor;
   * without, consecutive work-items copy consecutive 16 bytes of a row, which land 128 bytes apart
   * (the lines of 8 core matrices: all in the same 4 banks).
   */
  readonly coreOrder?: boolean;
  /** The panels copied with `cp.async` (`asyncCopies`). */
  readonly asyncCopies?: boolean;
  /**
   * The panels copied by the tensor memory accelerator (`bulkCopies`): one request a panel a step,
   * made by the group's first work-item, in place of every work-item's `cp.async` copies.
   */
  readonly bulkCopies?: boolean;
  /**
   * Both panels stored swizzled (`swizzleArray`) in lines of up to 64 halves instead of core matrices:
   * a's rows (`tileK` halves: 128 bytes for 64, 64 for 32), b's rows in blocks of 64 columns; the
   * descriptors read them swizzled, which spreads a column of 8 lines over all banks. Needs
   * `bulkCopies` (the requests land swizzled).
   */
  readonly swizzled?: boolean;
  /**
   * How a step's barriers let the bulk copies refill a buffer (the kernel option `bulkRelease`):
   * `'arrivals'` lets each warpgroup go on past a barrier, only the requesting work-item waiting
   * for the others; `'barriers'` (what `'auto'`, the default, takes without a producer) has the
   * whole group wait.
   */
  readonly release?: BulkRelease;
  /**
   * The requests made by a warpgroup of their own (the kernel option `warpSpecialized`: one more row
   * of the work-group, whose first work-item makes them), so that neither computing warpgroup waits
   * for a request to be made; the barriers must be arrivals.
   */
  readonly warpSpecialized?: boolean;
}

/** One warpgroup a 64 x 128 tile, k by 64: the probe's kernel (bench/wgmma/probe.cu) in Loom. */
export const WGMMA_DEFAULT: WgmmaConfig = { warpgroups: 1, columns: 128, tileK: 64 };

/** The fastest configuration measured: both panels swizzled, 4 buffers filled 2 steps ahead, bulk copies. */
export const SWIZZLED_AHEAD: WgmmaConfig = {
  warpgroups: 2,
  columns: 256,
  tileK: 64,
  stages: 4,
  ahead: 2,
  bulkCopies: true,
  swizzled: true,
};

/** The configurations the benchmark tries. */
export const WGMMA_CONFIGS: readonly WgmmaConfig[] = [
  WGMMA_DEFAULT,
  { warpgroups: 2, columns: 128, tileK: 64 },
  { warpgroups: 2, columns: 256, tileK: 64 },
  { warpgroups: 1, columns: 256, tileK: 64 },
  { warpgroups: 2, columns: 128, tileK: 64, asyncCopies: true },
  { warpgroups: 2, columns: 128, tileK: 32, doubleBuffered: true, asyncCopies: true },
  { warpgroups: 2, columns: 256, tileK: 32, doubleBuffered: true, asyncCopies: true },
  { warpgroups: 2, columns: 256, tileK: 32, stages: 4, asyncCopies: true },
  { warpgroups: 2, columns: 128, tileK: 64, stages: 4, asyncCopies: true },
  // a step's products left running across its barrier: fills two steps ahead of four buffers
  { warpgroups: 2, columns: 256, tileK: 32, stages: 4, ahead: 2, asyncCopies: true },
  { warpgroups: 2, columns: 128, tileK: 64, stages: 4, ahead: 2, asyncCopies: true },
  // the same, each core matrix copied by 8 consecutive work-items (no bank conflicts in the copies)
  { warpgroups: 2, columns: 256, tileK: 32, stages: 4, ahead: 2, asyncCopies: true, coreOrder: true },
  { warpgroups: 2, columns: 128, tileK: 64, stages: 4, ahead: 2, asyncCopies: true, coreOrder: true },
  { warpgroups: 2, columns: 256, tileK: 32, stages: 4, asyncCopies: true, coreOrder: true },
  // the panels copied by the tensor memory accelerator, one request a panel a step
  { warpgroups: 2, columns: 256, tileK: 32, stages: 4, bulkCopies: true },
  { warpgroups: 2, columns: 256, tileK: 64, stages: 4, bulkCopies: true },
  { warpgroups: 2, columns: 128, tileK: 64, stages: 4, bulkCopies: true },
  { warpgroups: 2, columns: 256, tileK: 32, stages: 4, ahead: 2, bulkCopies: true },
  { warpgroups: 2, columns: 256, tileK: 64, doubleBuffered: true, bulkCopies: true },
  // both panels swizzled over 128 bytes, as the fastest Hopper kernels lay them out
  { warpgroups: 2, columns: 256, tileK: 64, stages: 4, bulkCopies: true, swizzled: true },
  { warpgroups: 2, columns: 256, tileK: 64, stages: 3, bulkCopies: true, swizzled: true },
  { warpgroups: 2, columns: 128, tileK: 64, stages: 4, bulkCopies: true, swizzled: true },
  SWIZZLED_AHEAD,
  // the same with its barriers as arrivals (the kernel option `bulkRelease`), then with a producer warpgroup
  // making the requests (`warpSpecialized`)
  { ...SWIZZLED_AHEAD, release: 'arrivals' },
  { ...SWIZZLED_AHEAD, warpSpecialized: true },
];

/** The work-items of a warpgroup. */
const WARPGROUP = 128;

/** Options of `wgmmaHgemmKernel`. */
export interface WgmmaKernelOptions {
  /** The factors' dtype (default float16). */
  readonly factors?: 'float16' | 'bfloat16';
  /**
   * c's dtype (default float32): the sums are float32 either way, rounded to the factors' dtype as
   * they are stored where it is `'float16'` or `'bfloat16'` (what `torch.matmul` of halves returns).
   */
  readonly output?: 'float32' | 'float16' | 'bfloat16';
  /**
   * The work-items on l.0 that run each tile together: a warpgroup's 128 (the default), which CUDA
   * needs. The CPU device, where every lane computes the whole tile, also takes fewer (a quicker check
   * of the same layouts and instructions; CUDA refuses such a kernel).
   */
  readonly lanes?: number;
}

/** HGEMM (or, with bfloat16 factors, its bfloat16 kernel) tiled for warpgroup instructions at size n. */
export function wgmmaHgemmKernel(n: number, config: WgmmaConfig, options: WgmmaKernelOptions = {}): LoopKernel {
  const { factors = 'float16', lanes = WARPGROUP, output = 'float32' } = options;
  const { warpgroups, columns, tileK } = config;
  const rows = 64 * warpgroups;
  if (n % rows || n % columns || n % tileK || tileK % 16 || columns % 8 || columns > 256)
    throw new Error(
      `wgmmaHgemmKernel: n = ${n} must be a multiple of the ${rows}x${columns} block and of tileK ${tileK} (a multiple of 16); columns a multiple of 8 up to 256`,
    );
  let knl = warpgroupBlocks(fixParameters(plainHgemm(factors, output), { n }), warpgroups, columns, tileK, 16);
  const order = config.coreOrder ? 'cores' : 'rows';
  knl = stagedIn16Bytes(knl, 'a', rows * tileK, warpgroups, lanes, order);
  knl = stagedIn16Bytes(knl, 'b', tileK * columns, warpgroups, lanes, order);
  if (config.swizzled) {
    const span = (halves: number) => (2 * halves) as 32 | 64 | 128;
    if (![16, 32, 64].includes(tileK) || (columns > 64 && columns % 64) || !config.bulkCopies)
      throw new Error(
        'wgmmaHgemmKernel: swizzled panels are lines of 16, 32 or 64 halves (tileK, and columns in blocks of 64), filled by bulkCopies',
      );
    if (columns > 64) {
      knl = splitArrayAxis(knl, 'b_fetch', 1, 64);
      knl = tagArrayAxes(knl, 'b_fetch', 'N1,N2,N0');
    }
    knl = swizzleArray(knl, 'a_fetch', span(tileK));
    knl = swizzleArray(knl, 'b_fetch', span(Math.min(columns, 64)));
  } else for (const fetch of ['a_fetch', 'b_fetch']) knl = inCoreMatrices(knl, fetch);
  if (config.doubleBuffered || config.stages) {
    knl = doubleBuffer(knl, ['a_fetch', 'b_fetch'], 'k_outer', {
      stages: config.stages ?? 2,
      ...(config.ahead ? { ahead: config.ahead } : {}),
    });
    knl = prioritizeLoops(knl, 'k_outer_pair,k_outer_parity,k_step');
  } else knl = prioritizeLoops(knl, 'k_outer,k_step');
  if (config.bulkCopies) knl = bulkCopies(knl, ['a_fetch', 'b_fetch']);
  if (config.release) knl = setOptions(knl, { bulkRelease: config.release });
  if (config.warpSpecialized) knl = setOptions(knl, { warpSpecialized: true });
  else if (config.asyncCopies) knl = asyncCopies(knl, ['a_fetch', 'b_fetch']);
  return tensorize(knl, { m: 'i_tile', n: 'j_tile', k: 'k_tile' }, { lanes });
}

/**
 * `c[i, j] = sum(k, a[i, k]*b[k, j])` in blocks of `64·warpgroups` rows (the warpgroups on l.1, each a
 * tile of 64 rows, `i_tile`) by `columns` (`j_tile`), k staged `tileK` at a time in local panels
 * (`a_fetch`, `b_fetch`) and each step cut into the instruction's `k` (`k_step`, `k_tile`): the
 * tiling every warpgroup kernel starts from. `bArray` names the array b's factors are read from, where
 * not `b` (a transposed copy of it).
 */
export function warpgroupBlocks(
  knl: LoopKernel,
  warpgroups: number,
  columns: number,
  tileK: number,
  k: number,
  bArray = 'b',
): LoopKernel {
  const rows = 64 * warpgroups;
  // the warpgroups of a work-group on l.1 (one needs no axis of its own)
  const groupRows = warpgroups > 1 ? ['i_group'] : [];
  if (warpgroups > 1) {
    knl = splitIname(knl, 'i', rows, { outerTag: 'g.1' });
    knl = splitIname(knl, 'i_inner', 64, { outerTag: 'l.1', outerIname: 'i_group', innerIname: 'i_tile' });
  } else knl = splitIname(knl, 'i', 64, { outerTag: 'g.1', innerIname: 'i_tile' });
  knl = splitIname(knl, 'j', columns, { outerTag: 'g.0', innerIname: 'j_tile' });
  knl = splitIname(knl, 'k', tileK);
  knl = splitIname(knl, 'k_inner', k, { outerIname: 'k_step', innerIname: 'k_tile' });
  knl = addPrefetch(knl, 'a', [...groupRows, 'i_tile', 'k_step', 'k_tile'], {
    temporaryAddressSpace: 'local',
    fetchOuterInames: ['i_outer', 'k_outer'],
  });
  // b's panel is b_fetch, its axes b_dim_0 and b_dim_1, whichever array b's factors are read from
  return addPrefetch(knl, bArray, ['k_step', 'k_tile', 'j_tile'], {
    temporaryAddressSpace: 'local',
    fetchOuterInames: ['j_outer', 'k_outer'],
    temporaryName: 'b_fetch',
    dimArgNames: ['b_dim_0', 'b_dim_1'],
  });
}

/**
 * A panel of `elements` halves copied 8 at a time (16 bytes, unrolled: the CUDA printer merges the 8
 * into one move; floats 4 at a time with `perPiece` 4): its pieces over the work-group's `lanes` x
 * `warpgroups` work-items, the rest in sequence; consecutive pieces along a row (`'rows'`), or down the
 * 8 rows of a core matrix (`'cores'`).
 */
export function stagedIn16Bytes(
  knl: LoopKernel,
  fetch: 'a' | 'b',
  elements: number,
  warpgroups: number,
  lanes: number,
  order: 'rows' | 'cores',
  perPiece = 8,
): LoopKernel {
  const pieces = elements / perPiece;
  const perRound = lanes * warpgroups;
  if (pieces % perRound)
    throw new Error(
      `the panel of ${fetch} (${pieces} pieces of ${perPiece}) does not spread over ${perRound} work-items`,
    );
  knl = splitIname(knl, `${fetch}_dim_1`, perPiece, {
    innerTag: 'unr',
    outerIname: `${fetch}_chunk`,
    innerIname: `${fetch}_half`,
  });
  if (order === 'rows') knl = joinInames(knl, [`${fetch}_dim_0`, `${fetch}_chunk`], `${fetch}_piece`);
  else {
    knl = splitIname(knl, `${fetch}_dim_0`, 8, { outerIname: `${fetch}_core_row`, innerIname: `${fetch}_line` });
    knl = joinInames(knl, [`${fetch}_core_row`, `${fetch}_chunk`, `${fetch}_line`], `${fetch}_piece`);
  }
  knl = splitIname(knl, `${fetch}_piece`, lanes, {
    innerTag: 'l.0',
    outerIname: `${fetch}_round`,
    innerIname: `${fetch}_lane`,
  });
  if (warpgroups > 1)
    knl = splitIname(knl, `${fetch}_round`, warpgroups, { innerTag: 'l.1', outerIname: `${fetch}_seq` });
  return prioritizeLoops(knl, `${warpgroups > 1 ? `${fetch}_seq` : `${fetch}_round`},${fetch}_half`);
}

/** A local panel laid out as 8 x 8 core matrices, row after row of them: what wgmma's descriptors read. */
export function inCoreMatrices(knl: LoopKernel, name: string): LoopKernel {
  knl = splitArrayAxis(knl, name, 0, 8);
  knl = splitArrayAxis(knl, name, 2, 8);
  return tagArrayAxes(knl, name, 'N3,N1,N2,N0');
}
