/**
 * SGEMM on Hopper's warpgroup matrix instructions with TF32 factors (`wgmma ... .tf32`): c = a·b, all
 * float32, the plain kernel of examples/hgemm.ts (`plainSgemm`) transformed as the HGEMM of
 * examples/hgemm-wgmma.ts is, with what TF32 asks besides:
 *
 *  - k advances 32 at a time: both panels are lines of 32 floats (128 bytes), swizzled over 128 bytes
 *    (`swizzleArray`), which the instruction's descriptors read 8 floats of k at a time;
 *  - TF32 factors are read only with their lines along k (no transposed reads, as halves have): a's rows
 *    are, and b's panel is stored transposed (`tagArrayAxes 'N0,N1'`: b_fetch[j][k]), copied element by
 *    element (`asyncCopies`: a copy cannot transpose a box), where a's panel is one request of the tensor
 *    memory accelerator a step (`bulkCopies`); or, with `transposeFirst` (the fastest: 0.76x cuBLAS TF32 at
 *    4096³ on an H100, 0.91x at 8192³, where copying b a float at a time reached 0.36x), b is transposed
 *    first by a kernel of its own into a global temporary, and both panels are one request each a step;
 *  - the tile is `tensorize`d with `lanes: 128` and `precision: 'tf32'`: 64 x N x 8 tiles (sm_90a).
 *
 * CUDA runs it on GPUs of compute capability 9.0 (refused elsewhere, before anything runs); the CPU
 * device computes the same tiles as loops, from the same layouts.
 * ```ts
 * const knl = tf32WgmmaKernel(4096, TF32_WGMMA_DEFAULT);
 * const fastest = tf32WgmmaKernel(4096, TF32_TRANSPOSED_FIRST);   // two kernels, a global barrier between
 * ```
 */
import {
  addDtypes,
  addPrefetch,
  asyncCopies,
  bulkCopies,
  doubleBuffer,
  fixParameters,
  joinInames,
  makeKernel,
  prioritizeLoops,
  splitIname,
  swizzleArray,
  tagArrayAxes,
  tagInames,
  temporaryVariable,
  tensorize,
  type LoopKernel,
} from '@loom/core';
import { plainSgemm } from './hgemm.ts';
import { stagedIn16Bytes, warpgroupBlocks } from './hgemm-wgmma.ts';

/** How a TF32 warpgroup SGEMM kernel is tiled. */
export interface Tf32WgmmaConfig {
  /** Warpgroups of a work-group, each 64 rows of its block of c (l.1). */
  readonly warpgroups: number;
  /** Columns of c a warpgroup computes: wgmma's N, a multiple of 8 up to 256. */
  readonly columns: number;
  /** Buffers of each panel, filled `stages - 1` steps of k ahead (`doubleBuffer`); 1: one buffer. */
  readonly stages: number;
  /** Steps of k between a buffer's fill and its products (default `stages - 1`; fewer leaves products running across barriers). */
  readonly ahead?: number;
  /** a's panel filled by one request of the tensor memory accelerator a step (`bulkCopies`), else by `cp.async` copies. */
  readonly bulkCopies?: boolean;
  /**
   * b transposed first, by a kernel of its own (32 x 32 tiles through local memory, a global barrier
   * after it), into a global temporary `b_lines` whose rows are lines along k: b's panel then comes as
   * a's does, one request a step with `bulkCopies`, rather than a float at a time.
   */
  readonly transposeFirst?: boolean;
}

/** Two warpgroups a 128 x 128 block, four buffers: the first configuration measured. */
export const TF32_WGMMA_DEFAULT: Tf32WgmmaConfig = { warpgroups: 2, columns: 128, stages: 4, bulkCopies: true };

/** b transposed first, 2 warpgroups x 256 columns, 4 buffers filled 2 steps ahead: the fastest measured at 4096³. */
export const TF32_TRANSPOSED_FIRST: Tf32WgmmaConfig = {
  warpgroups: 2,
  columns: 256,
  stages: 4,
  ahead: 2,
  bulkCopies: true,
  transposeFirst: true,
};

/** The configurations the benchmark tries. */
export const TF32_WGMMA_CONFIGS: readonly Tf32WgmmaConfig[] = [
  TF32_WGMMA_DEFAULT,
  { warpgroups: 2, columns: 256, stages: 3, bulkCopies: true },
  { warpgroups: 2, columns: 128, stages: 4, ahead: 2, bulkCopies: true },
  { warpgroups: 2, columns: 128, stages: 4 },
  { warpgroups: 1, columns: 128, stages: 4, bulkCopies: true },
  // b transposed first by a kernel of its own: both panels one request a step
  { warpgroups: 2, columns: 256, stages: 3, bulkCopies: true, transposeFirst: true },
  TF32_TRANSPOSED_FIRST,
];

/** k staged a line of 32 floats (128 bytes) at a time. */
const TILE_K = 32;

/** Options of `tf32WgmmaKernel`. */
export interface Tf32WgmmaOptions {
  /** As `wgmmaHgemmKernel`'s: fewer than 128 only for the CPU device, which CUDA refuses. */
  readonly lanes?: number;
  /** b's panel stored transposed (default); false leaves its lines across k, which `tensorize` refuses, saying why. */
  readonly transposeB?: boolean;
  /** Both panels swizzled (default); false leaves them in plain lines, which `tensorize` refuses for floats, saying why. */
  readonly swizzled?: boolean;
  /**
   * b is given transposed (`b[j, k]`, c = a·bᵀ): its rows are lines along k already, so its panel comes
   * as a's does (16-byte copies, or one request a step with `bulkCopies`).
   */
  readonly bTransposed?: boolean;
}

/** TF32 SGEMM tiled for warpgroup instructions at size n (see the file's comment). */
export function tf32WgmmaKernel(n: number, config: Tf32WgmmaConfig, options: Tf32WgmmaOptions = {}): LoopKernel {
  const { lanes = 128, transposeB = true, swizzled = true, bTransposed = false } = options;
  const { warpgroups, columns, stages } = config;
  const rows = 64 * warpgroups;
  if (n % rows || n % columns || n % TILE_K || columns % 8 || columns > 256)
    throw new Error(
      `tf32WgmmaKernel: n = ${n} must be a multiple of the ${rows}x${columns} block and of ${TILE_K}; columns a multiple of 8 up to 256`,
    );
  if (bTransposed && config.transposeFirst)
    throw new Error('tf32WgmmaKernel: b given transposed needs no transposition first');
  const lines = bTransposed || config.transposeFirst;
  let knl = fixParameters(config.transposeFirst ? transposingSgemm() : plainSgemm(bTransposed), { n });
  if (config.transposeFirst) knl = tiledTransposition(knl);
  knl = warpgroupBlocks(knl, warpgroups, columns, TILE_K, 8, config.transposeFirst ? 'b_lines' : 'b');
  // a's rows 4 floats (16 bytes) a copy; b's too where its rows are lines along k, else its elements one at
  // a time (transposed, no copy spans 16 bytes)
  knl = stagedIn16Bytes(knl, 'a', rows * TILE_K, warpgroups, lanes, 'rows', 4);
  if (lines) knl = stagedIn16Bytes(knl, 'b', columns * TILE_K, warpgroups, lanes, 'rows', 4);
  else {
    knl = transposingCopies(knl, warpgroups, lanes);
    // b's panel transposed: its lines (k) run along the instruction's k, as TF32's reads need
    if (transposeB) knl = tagArrayAxes(knl, 'b_fetch', 'N0,N1');
  }
  if (swizzled) {
    knl = swizzleArray(knl, 'a_fetch', 128);
    knl = swizzleArray(knl, 'b_fetch', 128);
  }
  if (stages > 1) {
    knl = doubleBuffer(knl, ['a_fetch', 'b_fetch'], 'k_outer', {
      stages,
      ...(config.ahead ? { ahead: config.ahead } : {}),
    });
    knl = prioritizeLoops(knl, 'k_outer_pair,k_outer_parity,k_step');
  } else knl = prioritizeLoops(knl, 'k_outer,k_step');
  const bulk = config.bulkCopies ? (lines ? ['a_fetch', 'b_fetch'] : ['a_fetch']) : [];
  if (bulk.length) knl = bulkCopies(knl, bulk);
  const copied = ['a_fetch', 'b_fetch'].filter((f) => !bulk.includes(f));
  if (copied.length) knl = asyncCopies(knl, copied);
  return tensorize(knl, { m: 'i_tile', n: 'j_tile', k: 'k_tile' }, { lanes, precision: 'tf32' });
}

/**
 * SGEMM in two steps: b transposed into a global temporary `b_lines` (b_lines[j, k] = b[k, j]), a
 * global barrier, then `c[i, j] = sum(k, a[i, k] * b_lines[j, k])`: a kernel each.
 */
function transposingSgemm(): LoopKernel {
  const knl = makeKernel(
    ['{ [t0, t1]: 0 <= t0 < n and 0 <= t1 < n }', '{ [i, j, k]: 0 <= i < n and 0 <= j < n and 0 <= k < n }'],
    [
      'b_lines[t1, t0] = b[t0, t1]  {id=transpose_b}',
      '... gbarrier  {id=b_transposed, dep=transpose_b}',
      'c[i, j] = sum(k, a[i, k] * b_lines[j, k])  {dep=b_transposed}',
    ].join('\n'),
    [temporaryVariable('b_lines', { dtype: 'float32', shape: ['n', 'n'], addressSpace: 'global' }), '...'],
    { name: 'sgemm_tf32' },
  );
  return addDtypes(knl, { a: 'float32', b: 'float32', c: 'float32' });
}

/**
 * The transposition as @loom/computation's `transpose` cuts it: a work-group of 32 x 8 work-items a 32 x 32
 * tile, read along b's rows into local memory (rows padded to 33 floats, so that a column's reads fall in
 * 32 banks) and written along b_lines' rows, each work-item 4 elements of a column.
 */
function tiledTransposition(knl: LoopKernel): LoopKernel {
  knl = splitIname(knl, 't0', 32, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 't1', 32, { outerTag: 'g.1' });
  knl = splitIname(knl, 't1_inner', 8, { outerTag: 'unr', innerTag: 'l.1' });
  knl = addPrefetch(knl, 'b', ['t1_inner_outer', 't1_inner_inner', 't0_inner'], {
    temporaryAddressSpace: 'local',
    temporaryName: 'b_tile',
    dimArgNames: ['b_tile_0', 'b_tile_1'],
  });
  knl = tagInames(knl, { b_tile_1: 'l.0' });
  knl = splitIname(knl, 'b_tile_0', 8, { outerTag: 'unr', innerTag: 'l.1' });
  return tagArrayAxes(knl, 'b_tile', 'stride:33,stride:1');
}

/**
 * b's panel copied a float at a time into b_fetch[j][k], each 32 consecutive work-items (a warp, with
 * 128 lanes) copying 8 neighbouring columns of 4 rows: its reads are 4 runs of 32 bytes of b's rows, and
 * its writes land in 32 different banks (8 lines, their 16-byte units swizzled apart, 4 floats of k in
 * each), where 32 columns of one row would write 8 banks 4 times over. The rest of the panel goes over
 * the work-group's warps, then in sequence. With fewer lanes (the CPU device's), 8 columns of one row.
 */
function transposingCopies(knl: LoopKernel, warpgroups: number, lanes: number): LoopKernel {
  const rowsPerWarp = lanes >= 32 ? 4 : 1;
  const columns = Math.min(8, lanes);
  knl = splitIname(knl, 'b_dim_1', columns, { outerIname: 'b_column_block', innerIname: 'b_column' });
  knl = splitIname(knl, 'b_dim_0', rowsPerWarp, { outerIname: 'b_row_block', innerIname: 'b_row' });
  // a warp's lane: 8 columns (fastest) by 4 rows
  knl = joinInames(knl, ['b_row', 'b_column'], 'b_lane');
  // the blocks of 4 rows and 8 columns, over the warps of the work-group, then in sequence
  knl = joinInames(knl, ['b_row_block', 'b_column_block'], 'b_block');
  const warps = lanes / (rowsPerWarp * columns);
  knl = splitIname(knl, 'b_block', warps, { outerIname: 'b_block_outer', innerIname: 'b_warp' });
  knl = joinInames(knl, ['b_warp', 'b_lane'], 'b_item', { tag: 'l.0' });
  if (warpgroups > 1) knl = splitIname(knl, 'b_block_outer', warpgroups, { innerTag: 'l.1', outerIname: 'b_round' });
  return knl;
}
