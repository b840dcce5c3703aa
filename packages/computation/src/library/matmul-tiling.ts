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
 * computation applies it once the transformations attached to its operands are fused in. The
 * configurations are matmul-config.ts's, the panels' fills matmul-fetch.ts's.
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
import {
  configProblem,
  layoutProblem,
  registerTilesOf,
  workGroupOf,
  type MatmulConfig,
  type MatmulLayout,
} from './matmul-config.ts';
import { prioritizeRowBlocks, spreadOverWorkGroup, transposeAPanel, vectorFetch } from './matmul-fetch.ts';

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
    if (config.doubleBuffered)
      knl = doubleBuffer(knl, ['a_fetch', 'b_fetch'], 'k_outer', { stages: config.stages ?? 2 });
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
