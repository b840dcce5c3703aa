/**
 * HGEMM on tensor cores: c = a·b with a and b in float16 and c in float32, the plain kernel
 * `c[i, j] = sum(k, float32(a[i, k]) * float32(b[k, j]))` transformed until each subgroup (a warp)
 * computes its tiles with matrix instructions (`tensorize`):
 *
 *  - a work-group computes a block of `warpsM·regM·16` rows by `warpsN·regN·16` columns of c;
 *    its warps lie on l.2 (rows) and l.1 (columns), their 32 lanes on l.0;
 *  - each warp holds `regM`×`regN` accumulator tiles of 16x16 (ILP copies of one tensor tile);
 *  - k advances `tileK` at a time; both panels are staged in local memory, their lines padded
 *    by 8 halves so that the warps' tile loads spread over the memory banks.
 *
 * Only targets with matrix instructions (CUDA) run it; others refuse it with a LoomError.
 * ```ts
 * const knl = hgemmKernel(4096, HGEMM_DEFAULT);
 * ```
 */
import {
  addDtypes,
  addPrefetch,
  asyncCopies,
  doubleBuffer,
  fixParameters,
  makeKernel,
  prioritizeLoops,
  setOptions,
  splitIname,
  tagArrayAxes,
  tensorize,
  type LoopKernel,
} from '@loom/core';

/** How an HGEMM kernel is tiled. */
export interface HgemmConfig {
  /** Warps of a work-group along the rows (l.2) and the columns (l.1) of its block of c. */
  readonly warpsM: number;
  readonly warpsN: number;
  /** 16x16 tiles each warp holds along the rows and the columns. */
  readonly regM: number;
  readonly regN: number;
  /** Elements of k staged in local memory at a time (a multiple of 32). */
  readonly tileK: number;
  /** Halves added to each line of the staged panels (0: none). */
  readonly padding: number;
  /** Both panels filled one step of k ahead, into second buffers (`doubleBuffer`). */
  readonly doubleBuffered?: boolean;
  /**
   * Buffers of each panel, filled `stages - 1` steps of k ahead (`doubleBuffer`'s `stages`; implies
   * `doubleBuffered`): with `asyncCopies` a step's barrier waits only for the step it reads next,
   * the later steps' copies in flight. The steps of k must be a multiple of it (a tile is whole).
   */
  readonly stages?: number;
  /** Each work-item copies 8 consecutive halves (16 bytes) of a panel at a time. */
  readonly wideCopies?: boolean;
  /** Work-groups the compiler is asked to fit on a multiprocessor (`minGroupsPerComputeUnit`), limiting registers. */
  readonly groupsPerUnit?: number;
  /**
   * The panels copied asynchronously (`asyncCopies`: cp.async, straight into local memory, waited
   * for at the step's barrier); halves need wideCopies (cp.async moves 4, 8 or 16 bytes).
   */
  readonly asyncCopies?: boolean;
}

/** 128x128 blocks of 8 warps, each 64x32, k by 32. */
export const HGEMM_DEFAULT: HgemmConfig = { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 8 };

/** Double-buffered panels filled 16 bytes at a time by asynchronous copies. */
const ASYNC_DOUBLE_BUFFERS = { wideCopies: true, doubleBuffered: true, asyncCopies: true } as const;

/**
 * A few configurations around the default, for the benchmark to choose among (measured on the
 * H200: bench/results/hgemm-h200-2026-12-03.jsonl). Double-buffered panels of k by 64 take more
 * than the 48 KiB of local memory a CUDA block declares statically, and are refused.
 */
export const HGEMM_CONFIGS: readonly HgemmConfig[] = [
  HGEMM_DEFAULT,
  { warpsM: 2, warpsN: 2, regM: 2, regN: 2, tileK: 32, padding: 8 },
  { warpsM: 4, warpsN: 2, regM: 2, regN: 4, tileK: 32, padding: 8 },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 64, padding: 8 },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 0 },
  { warpsM: 2, warpsN: 2, regM: 4, regN: 4, tileK: 32, padding: 8 },
  { warpsM: 2, warpsN: 2, regM: 4, regN: 4, tileK: 32, padding: 8, doubleBuffered: true },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 8, doubleBuffered: true },
  { warpsM: 4, warpsN: 2, regM: 2, regN: 4, tileK: 32, padding: 8, doubleBuffered: true },
  { warpsM: 2, warpsN: 2, regM: 4, regN: 4, tileK: 32, padding: 8, wideCopies: true },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 8, wideCopies: true },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 64, padding: 8, wideCopies: true },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 8, wideCopies: true, doubleBuffered: true },
  { warpsM: 2, warpsN: 2, regM: 4, regN: 4, tileK: 32, padding: 8, wideCopies: true, doubleBuffered: true },
  // three blocks a multiprocessor: at most 85 registers a work-item, where the best tiles take 128
  { warpsM: 4, warpsN: 2, regM: 2, regN: 4, tileK: 32, padding: 8, doubleBuffered: true, groupsPerUnit: 3 },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 8, doubleBuffered: true, groupsPerUnit: 3 },
  { warpsM: 2, warpsN: 2, regM: 2, regN: 2, tileK: 32, padding: 8, groupsPerUnit: 4 },
  // the panels copied asynchronously (cp.async of 16 bytes), the next step's landing during this one
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 8, wideCopies: true, asyncCopies: true },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 8, ...ASYNC_DOUBLE_BUFFERS },
  { warpsM: 2, warpsN: 2, regM: 4, regN: 4, tileK: 32, padding: 8, ...ASYNC_DOUBLE_BUFFERS },
  { warpsM: 4, warpsN: 2, regM: 2, regN: 4, tileK: 32, padding: 8, ...ASYNC_DOUBLE_BUFFERS },
  { warpsM: 2, warpsN: 2, regM: 2, regN: 4, tileK: 32, padding: 8, ...ASYNC_DOUBLE_BUFFERS },
  // four buffers a panel, three steps of copies in flight (cp.async.wait_group 2 at each barrier)
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 8, ...ASYNC_DOUBLE_BUFFERS, stages: 4 },
  { warpsM: 2, warpsN: 2, regM: 4, regN: 4, tileK: 32, padding: 8, ...ASYNC_DOUBLE_BUFFERS, stages: 4 },
];

/** Configurations for TF32 SGEMM: panels of floats take twice the local memory, lines padded by 4 floats. */
export const TF32_CONFIGS: readonly HgemmConfig[] = [
  { warpsM: 2, warpsN: 2, regM: 4, regN: 4, tileK: 32, padding: 4, wideCopies: true },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 4, wideCopies: true },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 4 },
  { warpsM: 2, warpsN: 2, regM: 2, regN: 2, tileK: 32, padding: 4, wideCopies: true, doubleBuffered: true },
  { warpsM: 2, warpsN: 2, regM: 2, regN: 2, tileK: 32, padding: 4, ...ASYNC_DOUBLE_BUFFERS },
  { warpsM: 2, warpsN: 4, regM: 4, regN: 2, tileK: 32, padding: 4, wideCopies: true, asyncCopies: true },
];

/**
 * `c[i, j] = sum(k, float32(a[i, k]) * float32(b[k, j]))`, a and b float16 (or, `factors`,
 * bfloat16), c float32, n x n.
 */
export function plainHgemm(
  factors: 'float16' | 'bfloat16' = 'float16',
  output: 'float32' | 'float16' | 'bfloat16' = 'float32',
): LoopKernel {
  const knl = makeKernel(
    '{ [i, j, k]: 0 <= i < n and 0 <= j < n and 0 <= k < n }',
    'c[i, j] = sum(k, float32(a[i, k]) * float32(b[k, j]))',
    undefined,
    { name: factors === 'float16' ? 'hgemm' : 'bf16gemm' },
  );
  return addDtypes(knl, { a: factors, b: factors, c: output });
}

/** The block of c a work-group computes: rows and columns. */
export function hgemmBlock(config: HgemmConfig): { rows: number; columns: number } {
  return { rows: config.warpsM * config.regM * 16, columns: config.warpsN * config.regN * 16 };
}

/**
 * `c[i, j] = sum(k, a[i, k] * b[k, j])`, all float32, n x n: SGEMM, whose tiles `tf32Kernel` rounds to TF32;
 * with `bTransposed`, b holds bᵀ (`b[j, k]`).
 */
export function plainSgemm(bTransposed = false): LoopKernel {
  const knl = makeKernel(
    '{ [i, j, k]: 0 <= i < n and 0 <= j < n and 0 <= k < n }',
    bTransposed ? 'c[i, j] = sum(k, a[i, k] * b[j, k])' : 'c[i, j] = sum(k, a[i, k] * b[k, j])',
    undefined,
    {
      name: 'sgemm_tf32',
    },
  );
  return addDtypes(knl, { a: 'float32', b: 'float32', c: 'float32' });
}

/** The HGEMM kernel for n x n matrices (n a multiple of the block and of tileK). */
export function hgemmKernel(n: number, config: HgemmConfig): LoopKernel {
  return tensorMatmul(plainHgemm(), n, config, { kTile: 16, halves: true });
}

/** HGEMM's kernel with bfloat16 factors (WMMA's 16x16x16 bfloat16 tiles, sm_80 and later), tiled as HGEMM's. */
export function bf16gemmKernel(n: number, config: HgemmConfig): LoopKernel {
  return tensorMatmul(plainHgemm('bfloat16'), n, config, { kTile: 16, halves: true });
}

/**
 * SGEMM on the tensor cores with its factors rounded to TF32 (`tensorize`'s precision: 16x16x8
 * tiles of floats), tiled as `hgemmKernel` tiles halves. `padding` counts floats.
 */
export function tf32Kernel(n: number, config: HgemmConfig): LoopKernel {
  return tensorMatmul(plainSgemm(), n, config, { kTile: 8, halves: false });
}

function tensorMatmul(
  plain: LoopKernel,
  n: number,
  config: HgemmConfig,
  { kTile, halves }: { kTile: number; halves: boolean },
): LoopKernel {
  const { warpsM, warpsN, regM, regN, tileK, padding } = config;
  const block = hgemmBlock(config);
  if (n % block.rows || n % block.columns || n % tileK || tileK % 32)
    throw new Error(
      `tensorMatmul: n = ${n} is not a multiple of the ${block.rows}x${block.columns} block and of tileK ${tileK}`,
    );
  let knl = fixParameters(plain, { n });
  knl = splitIname(knl, 'i', block.rows, { outerTag: 'g.1' });
  knl = splitIname(knl, 'i_inner', regM * 16, { outerTag: 'l.2', outerIname: 'i_warp', innerIname: 'i_in' });
  knl = splitIname(knl, 'i_in', 16, { outerTag: 'ilp', outerIname: 'i_reg', innerIname: 'i_tile' });
  knl = splitIname(knl, 'j', block.columns, { outerTag: 'g.0' });
  knl = splitIname(knl, 'j_inner', regN * 16, { outerTag: 'l.1', outerIname: 'j_warp', innerIname: 'j_in' });
  knl = splitIname(knl, 'j_in', 16, { outerTag: 'ilp', outerIname: 'j_reg', innerIname: 'j_tile' });
  knl = splitIname(knl, 'k', tileK);
  knl = splitIname(knl, 'k_inner', kTile, { outerIname: 'k_step', innerIname: 'k_tile' });
  knl = addPrefetch(knl, 'a', ['i_warp', 'i_reg', 'i_tile', 'k_step', 'k_tile'], {
    temporaryAddressSpace: 'local',
    fetchOuterInames: ['i_outer', 'k_outer'],
  });
  knl = addPrefetch(knl, 'b', ['k_step', 'k_tile', 'j_warp', 'j_reg', 'j_tile'], {
    temporaryAddressSpace: 'local',
    fetchOuterInames: ['j_outer', 'k_outer'],
  });
  const warps = warpsM * warpsN;
  for (const [fetch, rows, columns] of [
    ['a', block.rows, tileK],
    ['b', tileK, block.columns],
  ] as const) {
    knl = config.wideCopies
      ? wideFetch(knl, fetch, rows, columns, halves ? 8 : 4, config)
      : narrowFetch(knl, fetch, warps, warpsN);
    if (padding) knl = tagArrayAxes(knl, `${fetch}_fetch`, `stride:${columns + padding},stride:1`);
  }
  if (config.doubleBuffered || config.stages) {
    knl = doubleBuffer(knl, ['a_fetch', 'b_fetch'], 'k_outer', { stages: config.stages ?? 2 });
    // each buffer a whole number of padded lines, so that both start aligned for the tile loads
    for (const [fetch, rows, columns] of [
      ['a', block.rows, tileK],
      ['b', tileK, block.columns],
    ] as const) {
      const line = columns + padding;
      knl = tagArrayAxes(knl, `${fetch}_fetch`, `stride:${rows * line},stride:${line},stride:1`);
    }
    knl = prioritizeLoops(knl, 'k_outer_pair,k_outer_parity,k_step');
  } else knl = prioritizeLoops(knl, 'k_outer,k_step');
  if (config.asyncCopies) knl = asyncCopies(knl, ['a_fetch', 'b_fetch']);
  if (config.groupsPerUnit) knl = setOptions(knl, { minGroupsPerComputeUnit: config.groupsPerUnit });
  return tensorize(knl, { m: 'i_tile', n: 'j_tile', k: 'k_tile' }, halves ? {} : { precision: 'tf32' });
}

/** A panel's lines over the 32 lanes (l.0), one half each, its rows over the warps (l.2, l.1), the rest in sequence. */
function narrowFetch(knl: LoopKernel, fetch: 'a' | 'b', warps: number, warpsN: number): LoopKernel {
  knl = splitIname(knl, `${fetch}_dim_1`, 32, {
    innerTag: 'l.0',
    outerIname: `${fetch}_col_seq`,
    innerIname: `${fetch}_col`,
  });
  knl = splitIname(knl, `${fetch}_dim_0`, warps, { outerIname: `${fetch}_row_seq`, innerIname: `${fetch}_row` });
  knl = splitIname(knl, `${fetch}_row`, warpsN, { outerTag: 'l.2', innerTag: 'l.1' });
  return prioritizeLoops(knl, `${fetch}_row_seq,${fetch}_col_seq`);
}

/**
 * A panel copied 16 bytes (8 halves, 4 floats: `chunk`) a work-item at a time: each line in chunks
 * (unrolled, which the CUDA printer merges into one move), 32 lines over the lanes (l.0), and the chunks and
 * the groups of 32 lines over the warps (l.2, l.1), the rest in sequence.
 */
function wideFetch(
  knl: LoopKernel,
  fetch: 'a' | 'b',
  rows: number,
  columns: number,
  chunk: number,
  config: HgemmConfig,
): LoopKernel {
  const { warpsM, warpsN } = config;
  const chunks = columns / chunk;
  const groups = rows / 32;
  knl = splitIname(knl, `${fetch}_dim_1`, chunk, {
    innerTag: 'unr',
    outerIname: `${fetch}_chunk`,
    innerIname: `${fetch}_half`,
  });
  knl = splitIname(knl, `${fetch}_dim_0`, 32, {
    innerTag: 'l.0',
    outerIname: `${fetch}_group`,
    innerIname: `${fetch}_line`,
  });
  const overWarps = (iname: string, count: number, tag: string) =>
    splitIname(knl, iname, count, { innerTag: tag, outerIname: `${iname}_seq`, innerIname: `${iname}_warp` });
  if (chunks % (warpsM * warpsN) === 0) {
    knl = overWarps(`${fetch}_chunk`, warpsM * warpsN, 'for');
    knl = splitIname(knl, `${fetch}_chunk_warp`, warpsN, { outerTag: 'l.2', innerTag: 'l.1' });
    return prioritizeLoops(knl, `${fetch}_group,${fetch}_chunk_seq,${fetch}_half`);
  }
  if (chunks % warpsN === 0 && groups % warpsM === 0) {
    knl = overWarps(`${fetch}_chunk`, warpsN, 'l.1');
    knl = overWarps(`${fetch}_group`, warpsM, 'l.2');
    return prioritizeLoops(knl, `${fetch}_group_seq,${fetch}_chunk_seq,${fetch}_half`);
  }
  throw new Error(
    `tensorMatmul: the ${rows}x${columns} panel of ${fetch} does not spread over ${warpsM}x${warpsN} warps in chunks of ${chunk}`,
  );
}

/** a·b's entry (i, j) from float16 bits, in float64 (exact products), and the sum of the magnitudes. */
export function hgemmEntry(
  a: Float32Array,
  b: Float32Array,
  n: number,
  i: number,
  j: number,
): { value: number; magnitude: number } {
  let value = 0;
  let magnitude = 0;
  for (let p = 0; p < n; p++) {
    const term = a[i * n + p] * b[p * n + j];
    value += term;
    magnitude += Math.abs(term);
  }
  return { value, magnitude };
}
