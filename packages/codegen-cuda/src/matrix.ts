/**
 * Tensor tiles (`tensorize`) in CUDA C: the warp-wide matrix functions of `mma.h` (`nvcuda::wmma`,
 * named `wmma` by the prelude). An accumulator is an array of `wmma::fragment`s; a run of products
 * loads each of its distinct tiles into a fragment of its own once, then adds each product with
 * `mma_sync`.
 */
import type { Fragment } from '@loom/core';
import type { MatrixSpelling, PrintedProduct, PrintedTile } from '@loom/codegen-cfamily';
import {
  WARPGROUP,
  warpgroupWait,
  warpgroupFill,
  warpgroupFragments,
  warpgroupMultiply,
  warpgroupStore,
} from './warpgroup-matrix.ts';

const layout = (l: 'row' | 'col') => `wmma::${l}_major`;

/** The fragments of a run's tiles of one side, declared and loaded (and rounded to TF32 where asked). */
function loaded(
  side: 'a' | 'b',
  shape: { m: number; n: number; k: number },
  tiles: readonly PrintedTile[],
  precision: 'tf32' | undefined,
): string[] {
  const type = (t: PrintedTile) => (precision ? `wmma::precision::${precision}` : t.type);
  return tiles.flatMap((t, k) => {
    const name = `loom_${side}_tile${k}`;
    return [
      `  wmma::fragment<wmma::matrix_${side}, ${shape.m}, ${shape.n}, ${shape.k}, ${type(t)}, ${layout(t.layout)}> ${name};`,
      `  wmma::load_matrix_sync(${name}, ${t.pointer}, ${t.leading});`,
      ...(precision
        ? [`  for (int e = 0; e < ${name}.num_elements; e++) ${name}.x[e] = wmma::__float_to_tf32(${name}.x[e]);`]
        : []),
    ];
  });
}

/**
 * CUDA's spelling of tensor tiles for the C printer (`CDialect.matrix`): WMMA fragments, loads,
 * products and stores; a warpgroup's tiles (64 rows, 128 lanes) as Hopper's `wgmma` (warpgroup-matrix.ts).
 */
export const cudaMatrix: MatrixSpelling = {
  fragments: (name, shape, type, count) =>
    shape.lanes === WARPGROUP
      ? warpgroupFragments(name, shape, type, count)
      : `wmma::fragment<wmma::accumulator, ${shape.m}, ${shape.n}, ${shape.k}, ${type}> ${name}[${count}];`,
  fill: (fragment, value, accumulator) =>
    accumulator.lanes === WARPGROUP
      ? warpgroupFill(fragment, value, accumulator)
      : [`wmma::fill_fragment(${fragment}, ${value});`],
  multiply: (shape, as, bs, products, precision, use) =>
    as[0]?.cores || as[0]?.swizzle
      ? warpgroupMultiply(shape, as, bs, products, use)
      : wmmaMultiply(shape, as, bs, products, precision),
  store: (fragment, c, accumulator) =>
    accumulator.lanes === WARPGROUP
      ? warpgroupStore(fragment, c, accumulator)
      : [`wmma::store_matrix_sync(${c.pointer}, ${fragment}, ${c.leading}, wmma::mem_${c.layout}_major);`],
  // load_matrix_sync and store_matrix_sync need 256-bit aligned tiles
  alignedLocal: '__align__(32) ',
  // products still in flight read the panels the barrier lets others overwrite: waited for first;
  // and shared memory written by ordinary stores or cp.async reaches wgmma's reads only past the fence
  factorsFence: (groups) => [warpgroupWait(groups), 'asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");'],
};

/** A run of WMMA products: each distinct tile loaded into a fragment once, then each product added. */
function wmmaMultiply(
  shape: Fragment['shape'],
  as: readonly PrintedTile[],
  bs: readonly PrintedTile[],
  products: readonly PrintedProduct[],
  precision: 'tf32' | undefined,
): string[] {
  return [
    '{',
    ...loaded('a', shape, as, precision),
    ...loaded('b', shape, bs, precision),
    ...products.map(
      ({ fragment, a, b }) => `  wmma::mma_sync(${fragment}, loom_a_tile${a}, loom_b_tile${b}, ${fragment});`,
    ),
    '}',
  ];
}
