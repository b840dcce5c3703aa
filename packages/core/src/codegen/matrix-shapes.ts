/**
 * The tiles of NVIDIA's warp matrix functions (WMMA): halves (sm_70 and later) into float or half
 * accumulators, bfloat16s (sm_80 and later) into floats, and floats rounded to TF32 (sm_80 and
 * later) into floats. CUDA's target multiplies
 * them; the CPU device, the reference, accepts the same ones, so that it checks what CUDA runs.
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
