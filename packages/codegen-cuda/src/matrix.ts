/**
 * Tensor tiles (`tensorize`) in CUDA C: the warp-wide matrix functions of `mma.h` (`nvcuda::wmma`,
 * named `wmma` by the prelude). An accumulator is an array of `wmma::fragment`s; a product loads
 * its two tiles into fragments of their own and adds them with `mma_sync`.
 */
import type { MatrixSpelling } from '@loom/codegen-cfamily';
import type { MatrixShape } from '@loom/core';

/** The tiles WMMA multiplies in half precision (sm_70 and later), into float or half accumulators. */
export const CUDA_MATRIX_SHAPES: readonly MatrixShape[] = [
  [16, 16, 16],
  [32, 8, 16],
  [8, 32, 16],
].map(([m, n, k]) => ({ m, n, k, operand: 'float16', accumulators: ['float32', 'float16'] }));

const layout = (l: 'row' | 'col') => `wmma::${l}_major`;

export const cudaMatrix: MatrixSpelling = {
  fragments: (name, { m, n, k }, type, count) =>
    `wmma::fragment<wmma::accumulator, ${m}, ${n}, ${k}, ${type}> ${name}[${count}];`,
  fill: (fragment, value) => [`wmma::fill_fragment(${fragment}, ${value});`],
  multiply: (fragment, { m, n, k }, a, b) => [
    '{',
    `  wmma::fragment<wmma::matrix_a, ${m}, ${n}, ${k}, ${a.type}, ${layout(a.layout)}> loom_a_tile;`,
    `  wmma::fragment<wmma::matrix_b, ${m}, ${n}, ${k}, ${b.type}, ${layout(b.layout)}> loom_b_tile;`,
    `  wmma::load_matrix_sync(loom_a_tile, ${a.pointer}, ${a.leading});`,
    `  wmma::load_matrix_sync(loom_b_tile, ${b.pointer}, ${b.leading});`,
    `  wmma::mma_sync(${fragment}, loom_a_tile, loom_b_tile, ${fragment});`,
    '}',
  ],
  store: (fragment, c) => [
    `wmma::store_matrix_sync(${c.pointer}, ${fragment}, ${c.leading}, wmma::mem_${c.layout}_major);`,
  ],
  // load_matrix_sync and store_matrix_sync need 256-bit aligned tiles
  alignedLocal: '__align__(32) ',
};
