/**
 * The tiles of NVIDIA's warp matrix functions (WMMA): halves (sm_70 and later) into float or half
 * accumulators, bfloat16s (sm_80 and later) into floats, and floats rounded to TF32 (sm_80 and
 * later) into floats; and Hopper's warpgroup instructions (`wgmma`, sm_90a): 64 x N x 16 tiles of
 * halves or bfloat16s into floats, run by 128 work-items, their factors read from local memory in
 * core matrices. CUDA's target multiplies them; the CPU device, the reference, accepts the same
 * ones, so that it checks what CUDA runs.
 */
import type { MatrixShape } from './target.ts';

/** WMMA's tiles, as a target states them in its `matrixInstructions` fact: `{ lanes: 32, shapes: WMMA_SHAPES }`. */
export const WMMA_SHAPES: readonly MatrixShape[] = [
  ...[
    [16, 16, 16],
    [32, 8, 16],
    [8, 32, 16],
  ].flatMap(([m, n, k]): MatrixShape[] => [
    { m, n, k, operand: 'float16', accumulators: ['float32', 'float16'] },
    { m, n, k, operand: 'bfloat16', accumulators: ['float32'] },
  ]),
  { m: 16, n: 16, k: 8, operand: 'float32', accumulators: ['float32'], precision: 'tf32' },
];

/**
 * The tiles of Hopper's warpgroup matrix instructions (`wgmma.mma_async`, sm_90a): 64 x N x 16 for
 * every N from 8 to 256 in steps of 8, halves or bfloat16s into floats, and 64 x N x 8 of floats
 * taken as TF32, each run by the 128 work-items of a warpgroup, both factors in local memory as
 * core matrices (TF32's both with their lines along k: it reads no factor transposed).
 */
export const WGMMA_SHAPES: readonly MatrixShape[] = Array.from({ length: 32 }, (_, k) => 8 * (k + 1)).flatMap(
  (n): MatrixShape[] => [
    ...(['float16', 'bfloat16'] as const).map(
      (operand): MatrixShape => ({
        m: 64,
        n,
        k: 16,
        operand,
        accumulators: ['float32'],
        lanes: 128,
        factors: 'core-matrices',
        // each work-item stores its own floats: rounded to halves or bfloat16s as they are stored
        storedAs: ['float16', 'bfloat16'],
      }),
    ),
    {
      m: 64,
      n,
      k: 8,
      operand: 'float32',
      accumulators: ['float32'],
      precision: 'tf32',
      // read from local memory as stored: the low bits dropped (bench/wgmma/tf32-probe.cu)
      truncatesTf32: true,
      lanes: 128,
      factors: 'core-matrices',
      kMajor: true,
    },
  ],
);
