/**
 * How `tileMatmul`'s work-groups fill their local panels of a and b (matmul-tiling.ts, step 4): every
 * work-item loads its share, neighbours reading neighbouring words; as scalars spread over both local
 * axes, as float4 vectors (b's panel row by row, a's rows over the group, or a's 4-row blocks loaded
 * along k and stored transposed for its k-major float4 panel), with the panels' padding and layouts.
 */
import {
  addPrefetch,
  prioritizeLoops,
  splitArrayAxis,
  splitIname,
  tagArrayAxes,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { workGroupOf, type MatmulConfig } from './matmul-config.ts';

/**
 * Spreads a fetch's two loops over the work-group: the panel's last axis (contiguous in memory)
 * over l.0, its first over l.1, each in unrolled rounds when the panel is larger than the group.
 * (Joining the two loops first would let any panel shape fit, but the fetch's bounds depend on
 * the group's position, which joinInames does not allow.)
 */
export function spreadOverWorkGroup(
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
export function vectorFetch(knl: LoopKernel, config: MatmulConfig): LoopKernel {
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
export function prioritizeRowBlocks(knl: LoopKernel, suffix: string): LoopKernel {
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
export function transposeAPanel(knl: LoopKernel, tileM: number): LoopKernel {
  return tagArrayAxes(knl, 'a_fetch', ['stride:1', `stride:${tileM + 4}`]);
}

/** `iname` (extent values) on a work-group axis of `along` work-items: in unrolled rounds when longer, guarded when shorter. */
function spreadOver(knl: LoopKernel, iname: string, extent: number, axis: string, along: number): LoopKernel {
  return extent <= along
    ? tagInames(knl, { [iname]: axis })
    : splitIname(knl, iname, along, { outerTag: 'unr', innerTag: axis });
}
