/**
 * A fast SGEMM made of one line of math and a handful of transformations.
 *
 *     c[i, j] = sum(k, a[i, k]*b[k, j])
 *
 * is the whole kernel. Everything that makes it fast is a transformation applied afterwards:
 *
 *   1. work-group tiles   each work-group computes a tileM x tileN block of c (split i and j, tag g.*)
 *   2. register tiles     each work-item holds regM x regN results in registers (split again, tag `ilp`):
 *                         one value of a is reused regN times, one of b regM times
 *   3. local memory       the a and b panels a work-group needs for tileK steps of k are staged in
 *                         local memory (addPrefetch), read from global memory once per work-group
 *   4. cooperative fetch  all work-items of the group share the staging, neighbours reading
 *                         neighbouring words (splitIname onto l.0/l.1)
 *
 * The same transformations take any sizes, c (m x n) = a (m x k) · b (k x n), and batches of
 * products (`matmulKernel(config, { m, n, k, batch })`): where a size is not a multiple of its tile,
 * the splits guard the edges of c and the prefetches load only the part of a panel inside the
 * matrices (loads and stores of float4s stay whole where the rows are whole float4s).
 * examples/matmul-padded.ts takes the other road, as BLAS wrappers do: a and b copied into arrays
 * of whole tiles (zeros outside), the unguarded kernel, c cropped.
 *
 * `matmulKernel(config)` applies them; `matmulTuning(n)` is the search for the best configuration
 * on the device at hand (`npx loom tune examples/matmul.ts`, or `autotune` from @loom/core). Run this file to see the generated OpenCL C and WGSL and check the result on every
 * device present against the CPU device:
 *
 *     npx tsx examples/matmul.ts
 */
import { pathToFileURL } from 'node:url';
import {
  addDtypes,
  LoomError,
  addPrefetch,
  assume,
  DeviceArray,
  defineTuning,
  generateCode,
  makeKernel,
  pipelinePrefetch,
  prioritizeLoops,
  run,
  setOptions,
  splitArrayAxis,
  splitIname,
  tagArrayAxes,
  tagInames,
  type Device,
  type LoopKernel,
  type TuningProblem,
} from '@loom/core';

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

/** The work-group's shape: work-items along j (l.0) and along i (l.1). */
export function workGroupOf(config: MatmulConfig): { along0: number; along1: number } {
  return { along0: config.tileN / config.regN, along1: config.tileM / config.regM };
}

/** Why a configuration cannot be built (sizes that do not divide), or undefined when it can. */
export function configProblem(config: MatmulConfig): string | undefined {
  const { tileM, tileN, tileK, regM, regN } = config;
  if (tileM % regM || tileN % regN) return 'the register tile must divide the work-group tile';
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
  if (config.aTransposed && (!config.prefetch || config.aVectorReads))
    return "aTransposed lays out a's local panel: it needs prefetch, and not aVectorReads";
  if (vectorWidth !== 1) {
    // a's panel: tileM rows over the whole work-group, its tileK/4 vectors a row in turn; b's: tileN/4 vectors along l.0, tileK rows along l.1
    const fits = (extent: number, along: number) => extent <= along || extent % along === 0;
    if (tileK % vectorWidth || tileN % vectorWidth)
      return `tileK and tileN must be multiples of the vector width ${vectorWidth}`;
    if (tileM % along0 || !fits(tileM / along0, along1))
      return `a's panel rows (${tileM}) do not spread over the work-group (${along0} x ${along1})`;
    if (!fits(tileN / vectorWidth, along0) || !fits(tileK, along1))
      return `b's panel (${tileK} x ${tileN / vectorWidth} vectors) does not spread over the work-group (${along0} x ${along1})`;
  }
  return undefined;
}

/**
 * The sizes of a product: c (m x n) = a (m x k) · b (k x n), or with `batch` that many products
 * at once, c[l, i, j] = sum(k, a[l, i, k]*b[l, k, j]).
 */
export interface MatmulShape {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly batch?: number;
}

/** n x n x n as a shape. */
export function shapeOf(size: number | MatmulShape): MatmulShape {
  return typeof size === 'number' ? { m: size, n: size, k: size } : size;
}

/** `4000x4100x3900`, `64 x 512x512x512`: a shape in a few characters. */
export function describeShape(size: number | MatmulShape): string {
  const { m, n, k, batch } = shapeOf(size);
  return `${batch === undefined ? '' : `${batch} x `}${m}x${n}x${k}`;
}

/** Multiply-adds of a product, times two: its FLOP. */
export function matmulFlops(size: number | MatmulShape): number {
  const { m, n, k, batch = 1 } = shapeOf(size);
  return 2 * batch * m * n * k;
}

/**
 * The plain kernel: one line of math, for square n x n matrices (n a parameter), or for the
 * sizes of `shape` (fixed, any sizes), with a batch axis `l` when it has one.
 */
export function plainMatmul(shape?: MatmulShape): LoopKernel {
  if (shape === undefined)
    return makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
      name: 'sgemm',
      assumptions: 'n >= 1',
    });
  const { m, n, k, batch } = shape;
  for (const [what, size] of Object.entries(shape))
    if (size !== undefined && !(Number.isInteger(size) && size >= 1))
      throw new LoomError(`plainMatmul: ${what} must be a positive integer, got ${String(size)}`);
  const bounds = `0<=i<${m} and 0<=j<${n} and 0<=k<${k}`;
  if (batch === undefined)
    return makeKernel(`{ [i,j,k]: ${bounds} }`, 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, { name: 'sgemm' });
  return makeKernel(
    `{ [l,i,j,k]: 0<=l<${batch} and ${bounds} }`,
    'c[l, i, j] = sum(k, a[l, i, k]*b[l, k, j])',
    undefined,
    { name: 'sgemm' },
  );
}

/**
 * Why `config` cannot take matrices of `shape`, or undefined when it can. Sizes that are not
 * multiples of the tiles are fine (the splits guard the edges); the float4 views of the rows
 * are not: a row of a (k floats) is a whole number of float4s, 16-byte aligned, only when k is
 * a multiple of 4, and so for b and c with n.
 */
export function shapeProblem(config: MatmulConfig, shape: MatmulShape): string | undefined {
  if ((config.vectorWidth ?? 1) === 4 && shape.k % 4)
    return `a's rows (k = ${shape.k}) are not whole float4s: vectorWidth 4 needs k a multiple of 4`;
  if ((config.vectorWidth ?? 1) === 4 && shape.n % 4)
    return `b's rows (n = ${shape.n}) are not whole float4s: vectorWidth 4 needs n a multiple of 4`;
  return undefined;
}

/**
 * The plain kernel, transformed by `config`: for n x n matrices, n fixed when given (a kernel
 * per size, as BLAS libraries pick one per shape), otherwise any multiple of the tile sizes;
 * or for the fixed sizes of a `MatmulShape` (rectangular, batched), of any sizes: where they
 * are not multiples of the tiles, the splits guard the edges of c and the prefetches load only
 * the part of a panel inside the matrices.
 */
export function matmulKernel(config: MatmulConfig = DEFAULT_MATMUL, size?: number | MatmulShape): LoopKernel {
  const shape = size === undefined ? undefined : shapeOf(size);
  const problem = configProblem(config) ?? (shape ? shapeProblem(config, shape) : undefined);
  if (problem)
    throw new LoomError(
      `matmulKernel(${JSON.stringify(config)}${shape ? `, ${describeShape(shape)}` : ''}): ${problem}`,
    );
  const { tileM, tileN, tileK, regM, regN } = config;
  const { along0, along1 } = workGroupOf(config);
  const batched = shape?.batch !== undefined;

  // Any n: whole tiles only, no guards at the edges of c (the caller pads, as BLAS wrappers do).
  let knl = shape === undefined ? assume(plainMatmul(), `n mod ${lcm(tileM, tileN, tileK)} = 0`) : plainMatmul(shape);
  // a batch of products: one work-group per tile of c in each product, the batch on the grid's axis 2
  if (batched) knl = tagInames(knl, { l: 'g.2' });

  // 1. Work-group tiles: i = tileM*i_outer + i_inner, i_outer on the group grid's axis 1 (j on axis 0).
  knl = splitIname(knl, 'i', tileM, { outerTag: 'g.1' });
  knl = splitIname(knl, 'j', tileN, { outerTag: 'g.0' });

  // 2. Register tiles: each tile row index splits into a work-item part (l.*) and a register
  //    part (ilp): the ilp inames become unrolled copies of every instruction inside them, and
  //    the sum's accumulator becomes a small private array, one entry per copy.
  //    With vectorReads, a work-item's columns come in runs of 4 (the lane loop `j_inner_inner`,
  //    tagged vec), laid out strided or blocked as runs: its accumulators, its reads of b's
  //    panel and its writes of c become float4s.
  const vectorReads = config.vectorReads ?? false;
  const column = vectorReads ? 'j_inner_outer' : 'j_inner';
  if (vectorReads) knl = splitIname(knl, 'j_inner', 4, { innerTag: 'vec' });
  if (config.layout === 'strided') {
    knl = splitIname(knl, 'i_inner', along1, { outerTag: 'ilp', innerTag: 'l.1' });
    knl = splitIname(knl, column, along0, { outerTag: 'ilp', innerTag: 'l.0' });
  } else {
    knl = splitIname(knl, 'i_inner', regM, { outerTag: 'l.1', innerTag: 'ilp' });
    knl = splitIname(knl, column, vectorReads ? regN / 4 : regN, { outerTag: 'l.0', innerTag: 'ilp' });
  }

  // 3. The k loop in steps of tileK; each step's panels of a and b go to local memory.
  //    Where k is not a multiple of tileK, the last step is generated apart (a slab), so that
  //    the others run tileK steps unguarded.
  knl = splitIname(knl, 'k', tileK, shape && shape.k % tileK ? { slabs: [0, 1] } : {});
  if (config.prefetch) {
    // (a batch's panels are a product's: the fetch inames are named after the matrix axes)
    const panelAxes = (name: string) => ({
      temporaryAddressSpace: 'local' as const,
      dimArgNames: [...(batched ? [`${name}_batch`] : []), `${name}_dim_0`, `${name}_dim_1`],
    });
    knl = addPrefetch(knl, 'a', ['i_inner_outer', 'i_inner_inner', 'k_inner'], panelAxes('a'));
    knl = addPrefetch(
      knl,
      'b',
      ['k_inner', `${column}_outer`, `${column}_inner`, ...(vectorReads ? ['j_inner_inner'] : [])],
      panelAxes('b'),
    );
    // 4. Every work-item fetches its share: neighbouring work-items (along l.0) read neighbouring
    //    words of a panel row, so each row is read from global memory in whole lines.
    if ((config.vectorWidth ?? 1) === 1) {
      knl = spreadOverWorkGroup(knl, [tileM, tileK], 'a_dim_0', 'a_dim_1', along0, along1);
      knl = spreadOverWorkGroup(knl, [tileK, tileN], 'b_dim_0', 'b_dim_1', along0, along1);
    } else knl = vectorFetch(knl, config, batched);
    // a's panel k-major: a row of the register tile's a values in consecutive words
    if (config.aTransposed) knl = transposeAPanel(knl, tileM);
    // 5. the loads of step k_outer + 1 issued before step k_outer computes
    if (config.pipelined) knl = pipelinePrefetch(knl, 'reads:a or reads:b', 'k_outer');
  }
  if (config.unrollK) knl = tagInames(knl, { [config.aVectorReads ? 'k_inner_outer' : 'k_inner']: 'unr' });
  // 6. acc + a*b as one fma, as cuBLAS computes it (by default Loom rounds the product and the sum apart)
  knl = setOptions(knl, { fusedMultiplyAdd: true });
  return prioritizeLoops(knl, config.aVectorReads ? 'k_outer,k_inner_outer,k_inner_inner' : 'k_outer,k_inner');
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
  // when both axes take several rounds, go row by row, as the panel lies in memory
  return rows > along1 && columns > along0 ? prioritizeLoops(knl, `${row}_outer,${column}_outer`) : knl;
}

/**
 * The staging loads as float4 vectors, loopy's recipe in two steps. Each fetch's panel row is
 * split into vectors (`x_dim_1` = 4*vector + lane), and a second, private prefetch of the global
 * array over the lane loop (`x_vec`, its loop tagged `vec`) loads one vector at a time; the
 * global arrays are then viewed as rows of float4 (splitArrayAxis, a `vec` last axis), which
 * makes that load one float4 load. Its four lanes go to local memory one float at a time, so
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
function vectorFetch(knl: LoopKernel, config: MatmulConfig, batched: boolean): LoopKernel {
  const { along0, along1 } = workGroupOf(config);
  const width = config.vectorWidth ?? 1;
  const aVec = config.aVectorReads ?? false;
  knl = splitIname(knl, 'a_dim_1', width, { outerTag: 'unr', innerTag: aVec ? 'vec' : 'unr' });
  knl = splitIname(knl, 'a_dim_0', along0, { innerTag: 'l.0' });
  knl = spreadOver(knl, 'a_dim_0_outer', config.tileM / along0, 'l.1', along1);
  // b's local panel of float4s (vectorReads) takes each vector whole
  knl = splitIname(knl, 'b_dim_1', width, { innerTag: config.vectorReads ? 'vec' : 'unr' });
  knl = spreadOver(knl, 'b_dim_1_outer', config.tileN / width, 'l.0', along0);
  knl = spreadOver(knl, 'b_dim_0', config.tileK, 'l.1', along1);
  // when both take several rounds, go row by row, as the panel lies in memory
  if (config.tileK > along1 && config.tileN / width > along0)
    knl = prioritizeLoops(knl, 'b_dim_0_outer,b_dim_1_outer_outer');
  for (const name of ['a', 'b']) {
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
  if (!aVec) knl = tagArrayAxes(knl, 'a_fetch', `stride:${config.tileK + 1},stride:1`);
  // a's local panel of float4s along k: the product's staged loop in steps of 4, unrolled
  // within, reads four consecutive values of an a row from one aligned float4
  if (aVec) knl = splitIname(knl, 'k_inner', 4, { innerTag: 'unr' });
  // the arrays' rows (a batch's arrays have one axis more than the local panels)
  const vectorRows = (names: string, rowAxis: number) =>
    tagArrayAxes(splitArrayAxis(knl, names, rowAxis, width), names, `${'c,'.repeat(rowAxis + 1)}vec`);
  knl = vectorRows(config.vectorReads ? 'a,b,c' : 'a,b', batched ? 2 : 1);
  const panels = config.vectorReads ? (aVec ? 'a_fetch,b_fetch' : 'b_fetch') : '';
  return panels ? vectorRows(panels, 1) : knl;
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

/**
 * Every configuration the tuner considers, most promising first: work-group tiles of 64 or 128,
 * register tiles of 4 or 8, 16 or 32 steps of k staged in local memory, the register tile strided
 * or blocked, the staged loop unrolled or not, and one kernel without local memory to show what
 * staging buys. Rolled loops come first: GPU compilers unroll a constant 16-step loop themselves.
 *
 * First the best scalar kernel measured so far, then the vector kernels (float4 staging loads,
 * float4 reads of b's panel, float4 accumulators and stores of c: what hand-written OpenCL
 * SGEMMs do), those five pipelined (the next step's panels loaded into registers during this
 * step's product), a's panel read as float4s too, then the float4 staging loads alone for the
 * 128x128 tile, then the scalar kernels as before. Targets without vector
 * types run the vector kernels lane by lane (scalar kernels with other fetches): for them
 * (`vectorTypes: false`) the vector kernels come last.
 */
export function matmulSearchSpace(options: { readonly vectorTypes?: boolean } = {}): MatmulConfig[] {
  const tiles = [
    { tileM: 128, tileN: 128, regM: 8, regN: 8 },
    { tileM: 128, tileN: 64, regM: 8, regN: 4 },
    { tileM: 64, tileN: 128, regM: 4, regN: 8 },
    { tileM: 64, tileN: 64, regM: 4, regN: 4 },
    { tileM: 64, tileN: 64, regM: 8, regN: 8 },
  ];
  const configs: MatmulConfig[] = [];
  const add = (config: MatmulConfig) => {
    if (!configProblem(config) && !configs.some((c) => JSON.stringify(c) === JSON.stringify(config)))
      configs.push(config);
  };
  const layouts = ['strided', 'blocked'] as const;
  // the best scalar kernel on the H100 (OpenCL and WebGPU) first: every backend has it measured at once
  add({ tileM: 128, tileN: 128, regM: 8, regN: 8, tileK: 16, layout: 'strided', prefetch: true, unrollK: false });
  // then the vector kernels expected fastest on NVIDIA GPUs: the 128x128 tile, strided (no bank
  // conflicts on the float4 reads of b), a read as float4s too, then b only
  for (const aVectorReads of [true, false])
    for (const tileK of [16, 32])
      add({
        ...tiles[0],
        tileK,
        layout: 'strided',
        prefetch: true,
        unrollK: false,
        vectorWidth: 4,
        vectorReads: true,
        ...(aVectorReads ? { aVectorReads } : {}),
      });
  // those five again with the next step's panels loaded into registers during this step's
  // product (pipelined), and the best scalar kernel on WebGPU (unrolled), with and without
  for (const config of [...configs]) add({ ...config, pipelined: true });
  for (const pipelined of [true, false])
    add({
      ...tiles[0],
      tileK: 16,
      layout: 'strided',
      prefetch: true,
      unrollK: true,
      ...(pipelined ? { pipelined } : {}),
    });
  for (const tile of tiles)
    for (const tileK of [16, 32])
      for (const layout of layouts)
        add({ ...tile, tileK, layout, prefetch: true, unrollK: false, vectorWidth: 4, vectorReads: true });
  // and a's panel read as float4s too, for the strided tiles of 8 rows or columns a work-item
  for (const tile of tiles.slice(0, 3))
    for (const tileK of [16, 32])
      add({
        ...tile,
        tileK,
        layout: 'strided',
        prefetch: true,
        unrollK: false,
        vectorWidth: 4,
        vectorReads: true,
        aVectorReads: true,
      });
  // the float4 staging loads alone, to see what they buy by themselves
  add({ ...tiles[0], tileK: 16, layout: 'strided', prefetch: true, unrollK: false, vectorWidth: 4 });
  for (const unrollK of [false, true])
    for (const tile of tiles)
      for (const tileK of [16, 32])
        for (const layout of layouts) add({ ...tile, tileK, layout, prefetch: true, unrollK });
  configs.push({
    tileM: 64,
    tileN: 64,
    tileK: 16,
    regM: 4,
    regN: 4,
    layout: 'strided',
    prefetch: false,
    unrollK: true,
  });
  // a target without vector types (WGSL here) runs the vector kernels lane by lane: they go last
  if (options.vectorTypes === false)
    return [...configs.filter((c) => !c.vectorWidth), ...configs.filter((c) => c.vectorWidth)];
  return configs;
}

/**
 * The search for the fastest SGEMM of order `n`, or of a `MatmulShape`, on a device: random
 * matrices, each configuration's product checked at 64 entries (corners included) against
 * float64 dot products.
 */
export function matmulTuning(
  size: number | MatmulShape,
  space: readonly MatmulConfig[] = matmulSearchSpace(),
): TuningProblem<MatmulConfig> {
  const shape = shapeOf(size);
  const { a: aShape, b: bShape, c: cShape } = matmulArgumentShapes({ ...DEFAULT_MATMUL }, shape);
  // made on the first device's arguments, not when the problem is defined
  let host: { a: Float32Array; b: Float32Array } | undefined;
  const matrices = () => (host ??= { a: pseudoRandom(count(aShape), 1), b: pseudoRandom(count(bShape), 2) });
  return defineTuning({
    name: typeof size === 'number' ? `sgemm n=${size}` : `sgemm ${describeShape(shape)}`,
    // a configuration that cannot take these sizes (float4 rows of an odd length) is not tried
    space: space.filter((config) => !shapeProblem(config, shape)),
    work: { amount: matmulFlops(shape), unit: 'FLOP' },
    build: (config) => matmulKernel(config, size),
    // a configuration that views rows as float4s takes the same matrices with their shapes
    argumentsFor: (config, args) => {
      const shapes = matmulArgumentShapes(config, shape);
      return Object.fromEntries(
        Object.entries(args).map(([name, a]) => [
          name,
          a instanceof DeviceArray && shapes[name] ? a.reshape(shapes[name]) : a,
        ]),
      );
    },
    arguments: async (device) => ({
      a: await DeviceArray.from(device, matrices().a, 'float32', aShape),
      b: await DeviceArray.from(device, matrices().b, 'float32', bShape),
      c: await DeviceArray.from(device, new Float32Array(count(cShape)), 'float32', cShape),
    }),
    check: async (args) =>
      sampledMatmulError((await (args.c as DeviceArray).toHost()) as Float32Array, matrices().a, matrices().b, shape),
  });
}

/**
 * The shapes the kernel of `config` takes a, b and c in: m x k, k x n and m x n (after the batch
 * axis, when there is one), or with vectorWidth 4 the rows of a and b as vectors of 4
 * (m x k/4 x 4: the same memory), and of c with vectorReads.
 */
export function matmulArgumentShapes(config: MatmulConfig, size: number | MatmulShape): Record<string, number[]> {
  const { m, n, k, batch } = shapeOf(size);
  const matrix = (rows: number, columns: number, w: number) => [
    ...(batch === undefined ? [] : [batch]),
    rows,
    ...(w === 1 ? [columns] : [columns / w, w]),
  ];
  const width = config.vectorWidth ?? 1;
  return { a: matrix(m, k, width), b: matrix(k, n, width), c: matrix(m, n, config.vectorReads ? 4 : 1) };
}

function count(shape: readonly number[]): number {
  return shape.reduce((x, y) => x * y, 1);
}

/**
 * Compares 64 entries of c (the corners, then spread over the batch and the rows and columns)
 * with float64 dot products, within float32's error for sums of k terms.
 */
export function sampledMatmulError(
  c: Float32Array,
  a: Float32Array,
  b: Float32Array,
  size: number | MatmulShape,
): string | undefined {
  const { m, n, k, batch = 1 } = shapeOf(size);
  for (let s = 0; s < 64; s++) {
    const l = s === 1 ? batch - 1 : (s * 31) % batch;
    const i = s === 0 ? 0 : s === 1 ? m - 1 : (s * 7919) % m;
    const j = s === 0 ? 0 : s === 1 ? n - 1 : (s * 104729 + 13) % n;
    let sum = 0;
    let magnitude = 0;
    for (let p = 0; p < k; p++) {
      const term = a[(l * m + i) * k + p] * b[(l * k + p) * n + j];
      sum += term;
      magnitude += Math.abs(term);
    }
    const got = c[(l * m + i) * n + j];
    if (!(Math.abs(got - sum) <= 1e-5 * magnitude * Math.sqrt(k) + 1e-6))
      return `c[${batch === 1 ? '' : `${l}, `}${i}, ${j}] is ${got}, expected ${sum}`;
  }
  return undefined;
}

/** Numbers in [-1, 1) from a small linear congruential generator: the same on every run. */
export function pseudoRandom(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let state = seed * 2654435761;
  for (let k = 0; k < length; k++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[k] = state / 2 ** 31 - 1;
  }
  return out;
}

/** `npx loom tune examples/matmul.ts` searches this one. */
export const sgemmTuning = matmulTuning(1024);

function lcm(...values: number[]): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return values.reduce((x, y) => (x * y) / gcd(x, y), 1);
}

/** c = a*b on the CPU in float64, for checking: n x n matrices, or those of a shape (each product of a batch). */
export function referenceMatmul(a: Float32Array, b: Float32Array, size: number | MatmulShape): Float64Array {
  const { m, n, k, batch = 1 } = shapeOf(size);
  const c = new Float64Array(batch * m * n);
  for (let l = 0; l < batch; l++) {
    for (let i = 0; i < m; i++) {
      for (let p = 0; p < k; p++) {
        const aip = a[(l * m + i) * k + p];
        for (let j = 0; j < n; j++) c[(l * m + i) * n + j] += aip * b[(l * k + p) * n + j];
      }
    }
  }
  return c;
}

/** Largest difference from the reference, relative to the size of the terms summed (k of them). */
export function matmulError(c: ArrayLike<number>, reference: ArrayLike<number>, size: number | MatmulShape): number {
  let worst = 0;
  for (let x = 0; x < reference.length; x++) worst = Math.max(worst, Math.abs(c[x] - reference[x]));
  return worst / shapeOf(size).k;
}

// --- run as a script: show the code, check every device -------------------------------------------------

async function main(): Promise<void> {
  const { cpuDevice } = await import('@loom/codegen-js');
  const { openclDevice, openclTarget } = await import('@loom/codegen-opencl');
  const { webgpuDevice, wgslTarget } = await import('@loom/codegen-wgsl');
  const n = 128;
  const knl = matmulKernel(DEFAULT_MATMUL, n);
  const typed = addDtypes(knl, { a: 'float32', b: 'float32' });
  console.log(`=== ${JSON.stringify(DEFAULT_MATMUL)}, n = ${n}: OpenCL C ===\n`);
  console.log(generateCode(typed, openclTarget()).code);
  console.log('=== WGSL ===\n');
  console.log(generateCode(typed, wgslTarget()).code);

  const devices: Device[] = [cpuDevice()];
  const cl = openclDevice();
  if (cl) devices.push(cl);
  const gpu = await webgpuDevice();
  if (gpu) devices.push(gpu);

  const a = Float32Array.from({ length: n * n }, (_, x) => ((x * 7) % 13) / 13 - 0.5);
  const b = Float32Array.from({ length: n * n }, (_, x) => ((x * 5) % 11) / 11 - 0.5);
  const expected = referenceMatmul(a, b, n);
  const configs: MatmulConfig[] = [
    DEFAULT_MATMUL,
    { ...DEFAULT_MATMUL, layout: 'blocked', unrollK: true },
    { tileM: 128, tileN: 64, tileK: 16, regM: 8, regN: 4, layout: 'strided', prefetch: true, unrollK: true },
    { ...DEFAULT_MATMUL, prefetch: false },
    { ...DEFAULT_MATMUL, vectorWidth: 4, vectorReads: true },
  ];
  for (const config of configs) {
    for (const device of devices) {
      const { c } = await run(matmulKernel(config, n), device, { a, b });
      const error = matmulError(c as Float32Array, expected, n);
      const ok = error < 1e-6;
      console.log(`  ${device.name}: ${JSON.stringify(config)}: ${ok ? 'ok' : `WRONG (error ${error})`}`);
      if (!ok) process.exitCode = 1;
    }
  }
  gpu?.destroy();
}

// Only when run directly (not when the benchmarks import the recipe, bundled or not).
if (
  import.meta.url.endsWith('/examples/matmul.ts') &&
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href
)
  await main();
