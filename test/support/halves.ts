/** Matrices of float16 values for the tensor-tile tests (tensorize, tensorize-warpgroup). */
import { float16Bits, float16Value } from '@loom/core';

/** n x n float16 values in [-1, 1): their bits for the device, their values for the check. */
export function halves(n: number, seed: number): { bits: Uint16Array; values: Float32Array } {
  const bits = new Uint16Array(n * n);
  const values = new Float32Array(n * n);
  let state = seed;
  for (let k = 0; k < n * n; k++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    bits[k] = float16Bits(state / 2 ** 31 - 1);
    values[k] = float16Value(bits[k]);
  }
  return { bits, values };
}
