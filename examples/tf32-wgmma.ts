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
 *    memory accelerator a step (`bulkCopies`);
 *  - the tile is `tensorize`d with `lanes: 128` and `precision: 'tf32'`: 64 x N x 8 tiles (sm_90a).
 *
 * CUDA runs it on GPUs of compute capability 9.0 (refused elsewhere, before anything runs); the CPU
 * device computes the same tiles as loops, from the same layouts.
 * ```ts
 * const knl = tf32WgmmaKernel(4096, TF32_WGMMA_DEFAULT);
 * ```
 */
import {
  asyncCopies,
  bulkCopies,
  doubleBuffer,
  fixParameters,
  joinInames,
  prioritizeLoops,
  splitIname,
  swizzleArray,
  tagArrayAxes,
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
}

/** Two warpgroups a 128 x 128 block, four buffers: the first configuration measured. */
export const TF32_WGMMA_DEFAULT: Tf32WgmmaConfig = { warpgroups: 2, columns: 128, stages: 4, bulkCopies: true };

/** The configurations the benchmark tries. */
export const TF32_WGMMA_CONFIGS: readonly Tf32WgmmaConfig[] = [
  TF32_WGMMA_DEFAULT,
  { warpgroups: 2, columns: 256, stages: 3, bulkCopies: true },
  { warpgroups: 2, columns: 128, stages: 4, ahead: 2, bulkCopies: true },
  { warpgroups: 2, columns: 128, stages: 4 },
  { warpgroups: 1, columns: 128, stages: 4, bulkCopies: true },
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
}

/** TF32 SGEMM tiled for warpgroup instructions at size n (see the file's comment). */
export function tf32WgmmaKernel(n: number, config: Tf32WgmmaConfig, options: Tf32WgmmaOptions = {}): LoopKernel {
  const { lanes = 128, transposeB = true, swizzled = true } = options;
  const { warpgroups, columns, stages } = config;
  const rows = 64 * warpgroups;
  if (n % rows || n % columns || n % TILE_K || columns % 8 || columns > 256)
    throw new Error(
      `tf32WgmmaKernel: n = ${n} must be a multiple of the ${rows}x${columns} block and of ${TILE_K}; columns a multiple of 8 up to 256`,
    );
  let knl = warpgroupBlocks(fixParameters(plainSgemm(), { n }), warpgroups, columns, TILE_K, 8);
  // a's rows 4 floats (16 bytes) a copy; b's elements one at a time (transposed, no copy spans 16 bytes)
  knl = stagedIn16Bytes(knl, 'a', rows * TILE_K, warpgroups, lanes, 'rows', 4);
  knl = transposingCopies(knl, warpgroups, lanes);
  // b's panel transposed: its lines (k) run along the instruction's k, as TF32's reads need
  if (transposeB) knl = tagArrayAxes(knl, 'b_fetch', 'N0,N1');
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
  if (config.bulkCopies) knl = bulkCopies(knl, 'a_fetch');
  knl = asyncCopies(knl, config.bulkCopies ? 'b_fetch' : ['a_fetch', 'b_fetch']);
  return tensorize(knl, { m: 'i_tile', n: 'j_tile', k: 'k_tile' }, { lanes, precision: 'tf32' });
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
