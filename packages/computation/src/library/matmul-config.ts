/**
 * The configurations of `tileMatmul` (matmul-tiling.ts): what a tiling of `c = a*b` can choose (tile
 * sizes, register tiles and their layout, staging, vector widths, pipelining, subgroups), the
 * configurations measured fastest, the work-group a configuration launches, and why one cannot be
 * built (`configProblem`, `layoutProblem`: checked before any transformation runs).
 */
/** A configuration of `tileMatmul`: tile sizes, layout, staging and vector widths. */
export interface MatmulConfig {
  /** Rows and columns of c computed by one work-group. */
  readonly tileM: number;
  readonly tileN: number;
  /** Steps of k staged in local memory at a time. */
  readonly tileK: number;
  /** Rows and columns of c held in registers by one work-item. */
  readonly regM: number;
  readonly regN: number;
  /**
   * How a work-item's register tile sits in the work-group's tile: `strided` (rows t, t+T, t+2T...,
   * where T is the number of work-items along the axis: neighbouring work-items read neighbouring
   * words of local memory, with no bank conflicts) or `blocked` (rows regM*t ... regM*t + regM-1).
   */
  readonly layout: 'strided' | 'blocked';
  /** Stage a and b in local memory (otherwise every work-item reads global memory, through the caches). */
  readonly prefetch: boolean;
  /** Unroll the loop over the tileK staged steps. */
  readonly unrollK: boolean;
  /**
   * Each work-item's columns in runs of 4 consecutive ones (strided or blocked as runs), read
   * from b's local panel as float4s, accumulated in float4s and written to c as float4s (c's
   * rows viewed as vectors). Needs vectorWidth 4 (b's local panel holds float4s) and regN a
   * multiple of 4.
   */
  readonly vectorReads?: boolean;
  /**
   * With vectorReads, a's local panel too holds float4s (4 steps of k of a row): the fetch
   * stores whole vectors, and the product, its staged k loop split by 4 and unrolled within,
   * reads 4 consecutive values of a row from one 16-byte-aligned vector (which GPU compilers
   * can load at once). Its rows are not padded (that would break the alignment).
   */
  readonly aVectorReads?: boolean;
  /**
   * Lanes of the loads that stage the panels (with prefetch): 4 reads a and b as float4
   * vectors (their rows viewed as vectors, the fetch's innermost loop a `vec` loop), one
   * 16-byte load per work-item and round instead of four 4-byte ones. 1 (the default) or 4.
   * Targets without vector types (WGSL, JavaScript) run the same loads lane by lane.
   */
  readonly vectorWidth?: 1 | 4;
  /**
   * Software pipelining of the staging loads (pipelinePrefetch): each work-item loads its
   * share of the panels of step k_outer + 1 into registers while step k_outer computes, and
   * stores them to the local panels at the start of the next step. Needs prefetch.
   */
  readonly pipelined?: boolean;
  /**
   * a's local panel stored k-major (a column of the panel contiguous, padded to keep 16-byte
   * rows): a blocked register tile then reads its regM values of a from consecutive words,
   * which GPU compilers load as float4s, as b's are (cuBLAS-style kernels transpose a's panel
   * for the same reason). Needs prefetch, and a's panel of scalars (not aVectorReads).
   */
  readonly aTransposed?: boolean;
  /**
   * With vectorReads, a's local panel k-major and of float4s too, each holding 4 consecutive rows of
   * a step of k, and each work-item's rows in runs of 4 (strided or blocked as runs, as vectorReads
   * lays out its columns): the product then reads both operands as float4s, regM/4 + regN/4 loads a
   * step of k instead of regM + regN/4, the layout of cuBLAS-style kernels. The panel is filled
   * through registers (a work-item loads 4 rows' float4s along k and stores them transposed), also
   * where asyncCopies fills b's. Needs vectorReads and regM a multiple of 4; not aVectorReads nor
   * aTransposed (it is its own k-major layout).
   */
  readonly aTransposedVectors?: boolean;
  /**
   * Two buffers for each local panel (doubleBuffer): step k_outer + 1's panels are filled while
   * step k_outer computes from the others, one barrier a step instead of two; twice the local
   * memory. With pipelined too, the registers are loaded two steps ahead and stored to the
   * other buffer a step ahead (the loads' latency hidden behind a whole step's product). Needs
   * prefetch; not with a partial last step of k (partialK's slab).
   */
  readonly doubleBuffered?: boolean;
  /**
   * Buffers of each local panel (doubleBuffer's `stages`, 2 with doubleBuffered alone), filled
   * `stages - 1` steps of k ahead: with asyncCopies a step's barrier waits only for the copies of the
   * step it reads next (CUDA's `cp.async.wait_group`), the later steps' in flight. Needs
   * doubleBuffered, and not pipelined (registers loaded ahead hold one step).
   */
  readonly stages?: number;
  /**
   * The panels copied from global into local memory asynchronously (asyncCopies: CUDA's
   * `cp.async`), without passing through the work-items' registers; with doubleBuffered the next
   * step's copies land while this step computes. With vectorWidth 4 each work-item copies runs
   * of 4 consecutive floats (one 16-byte copy), a and b read as floats (no float4 views of them).
   * Needs prefetch; not pipelined (its loads go through registers) nor aVectorReads. Targets without
   * asynchronous copies refuse the kernel.
   */
  readonly asyncCopies?: boolean;
  /**
   * Work-groups a compute unit should hold at once, asked of the target's compiler (the kernel
   * option `minGroupsPerComputeUnit`: CUDA's `__launch_bounds__`, NVIDIA's OpenCL a cap on registers),
   * which then keeps each work-item's registers within that share of the register file. Targets that
   * cannot ask refuse the kernel.
   */
  readonly groupsPerComputeUnit?: number;
  /**
   * The work-items of each run of `rows * columns` consecutive local ids (a subgroup where it is
   * that wide: NVIDIA's warps of 32) take a `rows x columns` block of the work-group's grid of
   * register tiles, instead of a run of whole rows of it (16 x 2 for 128x128 tiles of 8x8). A warp
   * over 4 x 8 work-items reads 4 distinct float4s of a's panel and 8 of b's a step of k, 192 bytes
   * of local memory where 16 x 2 reads 288, the arrangement of cuBLAS-style kernels. The work-item's
   * index along each axis splits in two and the low parts join onto l.0, the high parts onto l.1
   * (`joinInames`), so the panels' fetches spread over a work-group of `rows * columns` along l.0.
   * rows must divide the work-items along i (tileM / regM) and columns those along j; c must be
   * whole tiles (the joined parts of a guarded edge tile would not span a box).
   */
  readonly subgroupShape?: { readonly rows: number; readonly columns: number };
}

/** A good start on GPUs: 64x64 per work-group, 4x4 per work-item (256 work-items). */
export const DEFAULT_MATMUL: MatmulConfig = {
  tileM: 64,
  tileN: 64,
  tileK: 16,
  regM: 4,
  regN: 4,
  layout: 'strided',
  prefetch: true,
  unrollK: false,
};

/**
 * The fastest SGEMM configuration measured on NVIDIA's OpenCL and CUDA (H200, 4096³: 39.3 and 43.6
 * TFLOP/s, 0.78x and 0.86x cuBLAS; BENCHMARKS.md, nineteenth session), `matrixMul`'s float4 default:
 * 128x128 tiles of 8x8 a work-item (strided), 32 steps of k staged and unrolled, both panels read as
 * float4s (a's stored k-major), the next step's panels loaded during this step's product.
 */
export const FLOAT4_SGEMM: MatmulConfig = Object.freeze({
  tileM: 128,
  tileN: 128,
  tileK: 32,
  regM: 8,
  regN: 8,
  layout: 'strided',
  prefetch: true,
  unrollK: true,
  vectorWidth: 4,
  vectorReads: true,
  aTransposedVectors: true,
  pipelined: true,
});

/**
 * The work-group's shape on the hardware axes: work-items along l.0 and l.1. Without subgroupShape
 * these are the register tiles along j and along i; with it, a subgroup's block along l.0 and the
 * blocks along l.1.
 */
export function workGroupOf(config: MatmulConfig): { along0: number; along1: number } {
  const { columns, rows } = registerTilesOf(config);
  const block = config.subgroupShape;
  if (!block) return { along0: columns, along1: rows };
  const items = block.rows * block.columns;
  return { along0: items, along1: (columns * rows) / items };
}

/** The work-group's grid of register tiles: work-items along j (columns) and along i (rows). */
export function registerTilesOf(config: MatmulConfig): { columns: number; rows: number } {
  return { columns: config.tileN / config.regN, rows: config.tileM / config.regM };
}

/** Why a configuration cannot be built (sizes that do not divide), or undefined when it can. */
export function configProblem(config: MatmulConfig): string | undefined {
  const { tileM, tileN, tileK, regM, regN } = config;
  if (tileM % regM || tileN % regN) return 'the register tile must divide the work-group tile';
  const block = config.subgroupShape;
  if (block) {
    const tiles = registerTilesOf(config);
    const whole = (n: number) => Number.isInteger(n) && n > 0;
    if (!whole(block.rows) || !whole(block.columns) || tiles.rows % block.rows || tiles.columns % block.columns)
      return `subgroupShape ${block.rows} x ${block.columns} must divide the work-group's ${tiles.rows} x ${tiles.columns} register tiles`;
  }
  const { along0, along1 } = workGroupOf(config);
  // a's panel is tileM x tileK, b's tileK x tileN: k runs along l.0 for a and along l.1 for b
  const vectorWidth = config.vectorWidth ?? 1;
  if (vectorWidth !== 1 && vectorWidth !== 4) return `vectorWidth must be 1 or 4, not ${String(vectorWidth)}`;
  if (vectorWidth !== 1 && !config.prefetch) return 'vectorWidth applies to the staging loads: it needs prefetch';
  if (vectorWidth === 1 && config.prefetch && (tileK % along0 || tileK % along1))
    return `tileK must be a multiple of the work-group's sides (${along0} x ${along1})`;
  if (config.vectorReads && (vectorWidth !== 4 || regN % 4))
    return 'vectorReads needs vectorWidth 4 and regN a multiple of 4';
  if (config.aVectorReads && !config.vectorReads) return 'aVectorReads needs vectorReads';
  if (config.pipelined && !config.prefetch) return 'pipelined applies to the staging loads: it needs prefetch';
  if (config.doubleBuffered && !config.prefetch) return 'doubleBuffered doubles the local panels: it needs prefetch';
  if (config.stages !== undefined && (!config.doubleBuffered || config.pipelined || !(config.stages >= 2)))
    return 'stages (2 or more) counts the buffers of doubleBuffered: it needs doubleBuffered, and not pipelined';
  if (config.asyncCopies && (!config.prefetch || config.pipelined || config.aVectorReads))
    return 'asyncCopies copies the panels straight into local memory: it needs prefetch, and neither pipelined nor aVectorReads';
  if (config.aTransposed && (!config.prefetch || config.aVectorReads))
    return "aTransposed lays out a's local panel: it needs prefetch, and not aVectorReads";
  if (config.aTransposedVectors && (!config.vectorReads || regM % 4 || config.aVectorReads || config.aTransposed))
    return 'aTransposedVectors needs vectorReads and regM a multiple of 4, and neither aVectorReads nor aTransposed';
  if (vectorWidth !== 1) {
    // a's panel: tileM rows over the whole work-group, its tileK/4 vectors a row in turn; b's: tileN/4 vectors along l.0, tileK rows along l.1
    const fits = (extent: number, along: number) => extent <= along || extent % along === 0;
    if (tileK % vectorWidth || tileN % vectorWidth)
      return `tileK and tileN must be multiples of the vector width ${vectorWidth}`;
    // a's panel: blocks of 4 rows over l.0, float4s along k over l.1 (aTransposedVectors), or rows over both
    if (config.aTransposedVectors) {
      if (!fits(tileM / 4, along0) || !fits(tileK / 4, along1))
        return `a's panel (${tileM / 4} blocks of 4 rows x ${tileK / 4} vectors) does not spread over the work-group (${along0} x ${along1})`;
    } else if (tileM % along0 || !fits(tileM / along0, along1))
      return `a's panel rows (${tileM}) do not spread over the work-group (${along0} x ${along1})`;
    if (!fits(tileN / vectorWidth, along0) || !fits(tileK, along1))
      return `b's panel (${tileK} x ${tileN / vectorWidth} vectors) does not spread over the work-group (${along0} x ${along1})`;
  }
  return undefined;
}

/** How the operands lie in memory, for `tileMatmul`: transposed operands, leading batch axes. */
export interface MatmulLayout {
  /** a is stored as its transpose: `a[..., k, i]`. */
  readonly transposedA?: boolean;
  /** b is stored as its transpose: `b[..., j, k]`. */
  readonly transposedB?: boolean;
  /** How many axes a, b and c have before their two matrix axes (default none). */
  readonly batchAxes?: { readonly a: number; readonly b: number; readonly c: number };
  /**
   * k is not a multiple of tileK: the last step of k is generated apart (a slab), so that the
   * others run tileK steps unguarded.
   */
  readonly partialK?: boolean;
}

/**
 * Why `config` cannot take operands laid out as `layout`, or undefined when it can: the float4
 * loads read rows of a along k and of b along j, which transposed operands do not have.
 */
export function layoutProblem(config: MatmulConfig, layout: MatmulLayout): string | undefined {
  if (config.doubleBuffered && layout.partialK)
    return "doubleBuffered splits k's steps in pairs, which a partial last step of k (its slab) cannot take";
  const rowsRead = (config.vectorWidth ?? 1) !== 1 || config.aTransposed;
  if (rowsRead && (layout.transposedA || layout.transposedB))
    return 'the float4 loads and the k-major panel of a need operands stored row by row, not transposed';
  return undefined;
}
