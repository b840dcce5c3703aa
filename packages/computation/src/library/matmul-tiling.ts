/**
 * The transformations of a fast matrix product, shared by `matrixMul` and examples/matmul.ts's
 * tuned SGEMM: `tileMatmul(knl, config)` takes a kernel `c[..., i, j] = sum(k, a[..., i, k]*b[..., k, j])`
 * (inames i, j, k; arrays a, b, c, any leading batch axes) to one work-group per tile of c, a
 * register tile per work-item, the panels of a and b staged in local memory for each step of k,
 * and with `vectorWidth: 4` float4 staging loads, float4 accumulators and stores.
 *
 *   1. work-group tiles   each work-group computes a tileM x tileN block of c (split i and j, tag g.*)
 *   2. register tiles     each work-item holds regM x regN results in registers (split again, tag `ilp`):
 *                         one value of a is reused regN times, one of b regM times
 *   3. local memory       the a and b panels a work-group needs for tileK steps of k are staged in
 *                         local memory (addPrefetch), read from global memory once per work-group
 *   4. cooperative fetch  all work-items of the group share the staging, neighbours reading
 *                         neighbouring words (splitIname onto l.0/l.1)
 *
 * The float4 views of the global arrays' rows are a step of their own (`matmulVectorViews`): a
 * computation applies it once the transformations attached to its operands are fused in.
 */
import {
  addPrefetch,
  pipelinePrefetch,
  doubleBuffer,
  asyncCopies,
  joinInames,
  prioritizeLoops,
  setOptions,
  splitArrayAxis,
  splitIname,
  tagArrayAxes,
  tagInames,
  LoomError,
  type LoopKernel,
} from '@loom/core';

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
function registerTilesOf(config: MatmulConfig): { columns: number; rows: number } {
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

/**
 * A matrix product kernel `c[..., i, j] = sum(k, a[..., i, k]*b[..., k, j])` tiled as `config`
 * says: work-group tiles on g.1/g.0, register tiles (`ilp`), the panels of a and b in local
 * memory, fetched by the whole work-group (a batch axis is the caller's to place on the grid).
 * With `vectorWidth: 4`, apply `matmulVectorViews` too, once nothing else will change the
 * kernel's accesses of a, b and c.
 * ```ts
 * const knl = tileMatmul(makeKernel('{ [i,j,k]: 0<=i,j,k<256 }', 'c[i, j] = sum(k, a[i, k]*b[k, j])'), DEFAULT_MATMUL);
 * ```
 */
export function tileMatmul(knl: LoopKernel, config: MatmulConfig, layout: MatmulLayout = {}): LoopKernel {
  const problem = configProblem(config) ?? layoutProblem(config, layout);
  if (problem) throw new LoomError(`tileMatmul(${JSON.stringify(config)}): ${problem}`);
  const { tileM, tileN, tileK, regM, regN } = config;
  const { along0, along1 } = workGroupOf(config);
  const batch = layout.batchAxes ?? { a: 0, b: 0, c: 0 };

  // 1. Work-group tiles: i = tileM*i_outer + i_inner, i_outer on the group grid's axis 1 (j on axis 0).
  knl = splitIname(knl, 'i', tileM, { outerTag: 'g.1' });
  knl = splitIname(knl, 'j', tileN, { outerTag: 'g.0' });

  // 2. Register tiles: each tile row index splits into a work-item part (l.*) and a register
  //    part (ilp): the ilp inames become unrolled copies of every instruction inside them, and
  //    the sum's accumulator becomes a small private array, one entry per copy.
  //    With vectorReads, a work-item's columns come in runs of 4 (the lane loop `j_inner_inner`,
  //    tagged vec), laid out strided or blocked as runs: its accumulators, its reads of b's
  //    panel and its writes of c become float4s.
  //    With aTransposedVectors its rows come in runs of 4 too (the lane loop `i_inner_inner`, ilp):
  //    one float4 of a's k-major panel holds a run's 4 values of a step of k.
  //    The work-item parts go onto l.1 and l.0 once the panels are prefetched (placeWorkItems): with
  //    subgroupShape each is split here, and the parts are joined there (non-affine indices).
  const vectorReads = config.vectorReads ?? false;
  const rowRuns = config.aTransposedVectors ?? false;
  const column = vectorReads ? 'j_inner_outer' : 'j_inner';
  const row = rowRuns ? 'i_inner_outer' : 'i_inner';
  if (vectorReads) knl = splitIname(knl, 'j_inner', 4, { innerTag: 'vec' });
  if (rowRuns) knl = splitIname(knl, 'i_inner', 4, { innerTag: 'ilp' });
  const tiles = registerTilesOf(config);
  if (config.layout === 'strided') {
    knl = splitIname(knl, row, tiles.rows, { outerTag: 'ilp' });
    knl = splitIname(knl, column, tiles.columns, { outerTag: 'ilp' });
  } else {
    knl = splitIname(knl, row, rowRuns ? regM / 4 : regM, { innerTag: 'ilp' });
    knl = splitIname(knl, column, vectorReads ? regN / 4 : regN, { innerTag: 'ilp' });
  }
  const items = config.layout === 'strided' ? 'inner' : 'outer';
  knl = splitWorkItems(knl, `${row}_${items}`, `${column}_${items}`, config);

  // 3. The k loop in steps of tileK; each step's panels of a and b go to local memory.
  knl = splitIname(knl, 'k', tileK, layout.partialK ? { slabs: [0, 1] } : {});
  if (config.prefetch) {
    // the fetch inames are named after the matrix axes, whatever the batch axes before them
    const panelAxes = (name: string, axes: number) => ({
      temporaryAddressSpace: 'local' as const,
      dimArgNames: [...batchNames(name, axes), `${name}_dim_0`, `${name}_dim_1`],
    });
    // the panels sweep every part of the tile's rows (a) or columns (b)
    const parts = (tile: string) => knl.inames.filter((n) => n.startsWith(`${tile}_`));
    knl = addPrefetch(knl, 'a', [...parts('i_inner'), 'k_inner'], panelAxes('a', batch.a));
    knl = addPrefetch(knl, 'b', ['k_inner', ...parts('j_inner')], panelAxes('b', batch.b));
    knl = placeWorkItems(knl, `${row}_${items}`, `${column}_${items}`, config);
    // 4. Every work-item fetches its share: neighbouring work-items (along l.0) read neighbouring
    //    words of a panel row, so each row is read from global memory in whole lines.
    if ((config.vectorWidth ?? 1) === 1) {
      const aPanel: [number, number] = layout.transposedA ? [tileK, tileM] : [tileM, tileK];
      const bPanel: [number, number] = layout.transposedB ? [tileN, tileK] : [tileK, tileN];
      knl = spreadOverWorkGroup(knl, aPanel, 'a_dim_0', 'a_dim_1', along0, along1);
      knl = spreadOverWorkGroup(knl, bPanel, 'b_dim_0', 'b_dim_1', along0, along1);
    } else knl = vectorFetch(knl, config);
    // a's panel k-major: a row of the register tile's a values in consecutive words
    if (config.aTransposed) knl = transposeAPanel(knl, tileM);
    // 5. the loads of step k_outer + 1 issued before step k_outer computes
    if (config.pipelined) knl = pipelinePrefetch(knl, 'reads:a or reads:b', 'k_outer');
    if (config.pipelined && rowRuns) knl = prioritizeRowBlocks(knl, '_next');
    //    or: two buffers a panel, the next step's filled while this one computes
    if (config.doubleBuffered) knl = doubleBuffer(knl, ['a_fetch', 'b_fetch'], 'k_outer');
    //    copied without passing through registers, waited for at the step's barrier
    //    (a's k-major float4 panel is filled through registers: a copy cannot transpose)
    if (config.asyncCopies) knl = asyncCopies(knl, rowRuns ? ['b_fetch'] : ['a_fetch', 'b_fetch']);
  } else knl = placeWorkItems(knl, `${row}_${items}`, `${column}_${items}`, config);
  if (config.unrollK) knl = tagInames(knl, { [config.aVectorReads ? 'k_inner_outer' : 'k_inner']: 'unr' });
  // 6. acc + a*b as one fma, as cuBLAS computes it (by default Loom rounds the product and the sum apart)
  knl = setOptions(knl, {
    fusedMultiplyAdd: true,
    ...(config.groupsPerComputeUnit ? { minGroupsPerComputeUnit: config.groupsPerComputeUnit } : {}),
  });
  const steps = config.prefetch && config.doubleBuffered ? 'k_outer_pair,k_outer_parity' : 'k_outer';
  return prioritizeLoops(knl, `${steps},${config.aVectorReads ? 'k_inner_outer,k_inner_inner' : 'k_inner'}`);
}

/**
 * The global arrays of a `tileMatmul` kernel of `vectorWidth: 4` seen as rows of float4s (their
 * last axis split by 4, the lanes a `vec` axis: the same memory, which the caller passes
 * reshaped), so that the staging loads, and with `vectorReads` the stores of c, are float4
 * loads and stores. `arrays` names those to view (default a, b and, with vectorReads, c): an
 * array a fused transformation replaced is left out, and read lane by lane. Each row must be a
 * whole number of float4s (k and n multiples of 4).
 * ```ts
 * const knl = matmulVectorViews(tileMatmul(plain, { ...DEFAULT_MATMUL, vectorWidth: 4, vectorReads: true }), config);
 * ```
 */
export function matmulVectorViews(
  knl: LoopKernel,
  config: MatmulConfig,
  arrays: readonly string[] = vectorViewArrays(config),
): LoopKernel {
  const width = config.vectorWidth ?? 1;
  if (width === 1) return knl;
  for (const name of arrays) {
    const rank = knl.arg(name)?.shape?.length;
    if (rank === undefined) throw new LoomError(`matmulVectorViews: the kernel has no array argument '${name}'`);
    knl = splitArrayAxis(knl, name, rank - 1, width);
    knl = tagArrayAxes(knl, name, `${'c,'.repeat(rank)}vec`);
  }
  return knl;
}

/**
 * The global arrays a kernel of `config` views as rows of float4s (`matmulVectorViews`): a and b
 * for the float4 staging loads (not when asyncCopies copies them as floats), c with vectorReads.
 */
export function vectorViewArrays(config: MatmulConfig): string[] {
  if ((config.vectorWidth ?? 1) === 1) return [];
  const loaded = config.asyncCopies ? (config.aTransposedVectors ? ['a'] : []) : ['a', 'b'];
  return [...loaded, ...(config.vectorReads ? ['c'] : [])];
}

/**
 * With subgroupShape, the work-item's index along i (`row`) and along j (`column`) each split into
 * a block and a place within the block (`_outer`, `_inner`), before the panels' prefetches, whose
 * indices must stay affine.
 */
function splitWorkItems(knl: LoopKernel, row: string, column: string, config: MatmulConfig): LoopKernel {
  const block = config.subgroupShape;
  if (!block) return knl;
  return splitIname(splitIname(knl, row, block.rows), column, block.columns);
}

/**
 * The work-item's index along i (`row`) and along j (`column`) onto the work-group's axes: l.1 and
 * l.0, or with subgroupShape the places within a block joined onto l.0 (columns fastest) and the
 * blocks onto l.1 (`splitWorkItems` split them).
 */
function placeWorkItems(knl: LoopKernel, row: string, column: string, config: MatmulConfig): LoopKernel {
  if (!config.subgroupShape) return tagInames(knl, { [row]: 'l.1', [column]: 'l.0' });
  try {
    knl = joinInames(knl, [`${row}_inner`, `${column}_inner`], 'item_in_block', { tag: 'l.0' });
    return joinInames(knl, [`${row}_outer`, `${column}_outer`], 'item_block', { tag: 'l.1' });
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    // guards at the edges of c bound a work-item's rows by the matrix's: no box to join
    throw new LoomError(
      `tileMatmul: subgroupShape joins each work-item's place onto l.0 and l.1, which needs whole tiles of c (its rows and columns multiples of tileM = ${config.tileM} and tileN = ${config.tileN}; pad the matrices): ${e.message.split('\n')[0]}`,
    );
  }
}

function batchNames(name: string, axes: number): string[] {
  return axes === 1 ? [`${name}_batch`] : Array.from({ length: axes }, (_, k) => `${name}_batch${k}`);
}

/**
 * Spreads a fetch's two loops over the work-group: the panel's last axis (contiguous in memory)
 * over l.0, its first over l.1, each in unrolled rounds when the panel is larger than the group.
 * (Joining the two loops first would let any panel shape fit, but the fetch's bounds depend on
 * the group's position, which joinInames does not allow.)
 */
function spreadOverWorkGroup(
  knl: LoopKernel,
  [rows, columns]: [number, number],
  row: string,
  column: string,
  along0: number,
  along1: number,
): LoopKernel {
  const spread = (k: LoopKernel, iname: string, extent: number, axis: string, along: number) =>
    extent === along
      ? tagInames(k, { [iname]: axis })
      : splitIname(k, iname, along, { outerTag: 'unr', innerTag: axis });
  knl = spread(spread(knl, column, columns, 'l.0', along0), row, rows, 'l.1', along1);
  // when both axes take rounds (or a round of one), go row by row, as the panel lies in memory
  const rounds = [`${row}_outer`, `${column}_outer`];
  return rounds.every((n) => knl.inames.includes(n)) ? prioritizeLoops(knl, rounds.join(',')) : knl;
}

/**
 * The staging loads as float4 vectors, loopy's recipe in two steps. Each fetch's panel row is
 * split into vectors (`x_dim_1` = 4*vector + lane), and a second, private prefetch of the global
 * array over the lane loop (`x_vec`, its loop tagged `vec`) loads one vector at a time; the
 * global arrays, viewed as rows of float4 (`matmulVectorViews`: a `vec` last axis), make that
 * load one float4 load. Its four lanes go to local memory one float at a time, so
 * the local panels keep their scalar layout and the product reads them as before (a local
 * panel of float4s would make the product's reads `k // 4` and `k % 4` of the loop index).
 *
 * b's panel (tileK rows of tileN/4 vectors) spreads as the scalar one does, vectors along l.0.
 * a's panel has only tileK/4 vectors a row, fewer than the work-items along l.0, and l.0 cannot
 * take both a part of the row and a part of the column (that needs `//` and `%` of the local id):
 * its rows spread over both axes of the work-group, l.0 fastest, and each work-item loads the
 * vectors of its row in turn. Neighbouring work-items then read neighbouring rows, 16 bytes of
 * each: whole 32-byte sectors over the unrolled round.
 */
function vectorFetch(knl: LoopKernel, config: MatmulConfig): LoopKernel {
  const { along0, along1 } = workGroupOf(config);
  const width = config.vectorWidth ?? 1;
  const aVec = config.aVectorReads ?? false;
  const rowRuns = config.aTransposedVectors ?? false;
  if (rowRuns) knl = transposingFetch(knl, config);
  else {
    knl = splitIname(knl, 'a_dim_1', width, { outerTag: 'unr', innerTag: aVec ? 'vec' : 'unr' });
    knl = splitIname(knl, 'a_dim_0', along0, { innerTag: 'l.0' });
    knl = spreadOver(knl, 'a_dim_0_outer', config.tileM / along0, 'l.1', along1);
    // a work-item's rounds of rows, then the vectors of each row in turn
    if (knl.inames.includes('a_dim_0_outer_outer')) knl = prioritizeLoops(knl, 'a_dim_0_outer_outer,a_dim_1_outer');
  }
  // b's local panel of float4s (vectorReads) takes each vector whole; copied asynchronously, lane by
  // lane (unrolled), the four copies merge into one of 16 bytes
  knl = splitIname(knl, 'b_dim_1', width, { innerTag: config.vectorReads && !config.asyncCopies ? 'vec' : 'unr' });
  knl = spreadOver(knl, 'b_dim_1_outer', config.tileN / width, 'l.0', along0);
  knl = spreadOver(knl, 'b_dim_0', config.tileK, 'l.1', along1);
  // when both take several rounds, go row by row, as the panel lies in memory
  if (config.tileK > along1 && config.tileN / width > along0)
    knl = prioritizeLoops(knl, 'b_dim_0_outer,b_dim_1_outer_outer');
  // copied asynchronously: the runs of 4 go straight to local memory (16-byte copies), each run's
  // 4 copies innermost, where the printer merges them
  if (config.asyncCopies)
    for (const order of ['a_dim_1_outer,a_dim_1_inner', 'b_dim_0_outer,b_dim_1_outer_outer,b_dim_1_inner']) {
      const present = order.split(',').filter((n) => knl.inames.includes(n));
      if (present.length > 1) knl = prioritizeLoops(knl, present.join(','));
    }
  for (const name of config.asyncCopies ? (rowRuns ? ['a'] : []) : ['a', 'b']) {
    knl = addPrefetch(knl, name, [`${name}_dim_1_inner`], {
      temporaryAddressSpace: 'private',
      temporaryName: `${name}_vec`,
      defaultTag: 'vec',
    });
    knl = tagArrayAxes(knl, `${name}_vec`, 'vec');
  }
  // a work-item stores its row of a's panel: rows tileK words apart, a multiple of the 32 banks'
  // width, would put the 16 rows of a half-warp in 2 banks (a 16-way conflict); one word of
  // padding a row spreads them over all banks (the product reads a row, broadcast, either way)
  // padding (4 words where 16-byte copies fill each row at a 16-byte aligned place)
  if (!aVec && !rowRuns) knl = tagArrayAxes(knl, 'a_fetch', `stride:${config.tileK + aPanelPadding(config)},stride:1`);
  // a's local panel of float4s along k: the product's staged loop in steps of 4, unrolled
  // within, reads four consecutive values of an a row from one aligned float4
  if (aVec) knl = splitIname(knl, 'k_inner', 4, { innerTag: 'unr' });
  // the local panels' rows of float4s (the global arrays' are matmulVectorViews')
  const panels = config.vectorReads ? (aVec ? 'a_fetch,b_fetch' : 'b_fetch') : '';
  if (panels) knl = tagArrayAxes(splitArrayAxis(knl, panels, 1, width), panels, 'c,c,vec');
  // a's k-major panel of float4s, 4 rows a vector: (rows / 4, lanes, k) laid out k slowest
  return rowRuns ? tagArrayAxes(splitArrayAxis(knl, 'a_fetch', 0, 4), 'a_fetch', 'N0,vec,N1') : knl;
}

/**
 * a's panel for `aTransposedVectors`, filled through registers: each work-item takes a block of 4
 * rows by one float4 along k (4 float4 loads, one a row), and stores each step of k's 4 values, one
 * a row, as one float4 of the k-major panel. Blocks of rows spread over l.0 (in rounds when more),
 * the float4s along k over l.1: a warp's loads read 16 rows, 32 bytes of each, whole sectors.
 */
function transposingFetch(knl: LoopKernel, config: MatmulConfig): LoopKernel {
  const { along0, along1 } = workGroupOf(config);
  knl = splitIname(knl, 'a_dim_1', 4, { innerTag: 'unr' });
  knl = splitIname(knl, 'a_dim_0', 4, { innerTag: 'unr' });
  knl = spreadOver(knl, 'a_dim_0_outer', config.tileM / 4, 'l.0', along0);
  knl = spreadOver(knl, 'a_dim_1_outer', config.tileK / 4, 'l.1', along1);
  return prioritizeRowBlocks(knl, '');
}

/** A work-item's rounds of blocks of 4 rows and of float4s along k, then each row's load and its 4 stores (`suffix`: the pipelined copies' `_next`). */
function prioritizeRowBlocks(knl: LoopKernel, suffix: string): LoopKernel {
  const order = ['a_dim_0_outer_outer', 'a_dim_1_outer_outer', 'a_dim_0_inner', 'a_dim_1_inner'].map((n) => n + suffix);
  const present = order.filter((n) => knl.inames.includes(n));
  return present.length > 1 ? prioritizeLoops(knl, present.join(',')) : knl;
}

/** The words a row of a's local panel is padded by: the float4 kernel's one (bank conflicts), 4 where rows are copied 16 bytes at a time. */
export function aPanelPadding(config: MatmulConfig): number {
  if ((config.vectorWidth ?? 1) !== 4 || config.aVectorReads || config.aTransposedVectors) return 0;
  return config.asyncCopies ? 4 : 1;
}

/**
 * a's local panel (tileM rows i by tileK columns k, a batch's too) stored column by column:
 * strides 1 along i and tileM + 4 along k (the 4 words of padding keep each column 16-byte
 * aligned and move consecutive columns to other banks).
 */
function transposeAPanel(knl: LoopKernel, tileM: number): LoopKernel {
  return tagArrayAxes(knl, 'a_fetch', ['stride:1', `stride:${tileM + 4}`]);
}

/** `iname` (extent values) on a work-group axis of `along` work-items: in unrolled rounds when longer, guarded when shorter. */
function spreadOver(knl: LoopKernel, iname: string, extent: number, axis: string, along: number): LoopKernel {
  return extent <= along
    ? tagInames(knl, { [iname]: axis })
    : splitIname(knl, iname, along, { outerTag: 'unr', innerTag: axis });
}
