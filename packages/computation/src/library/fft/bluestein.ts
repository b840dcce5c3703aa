/**
 * Bluestein's algorithm for a size N with a prime factor above 7: the DFT as a convolution,
 * computed by two transforms of a smooth size M >= 2N - 1. With the chirp a[n] =
 * exp(-pi i n^2 / N),
 *
 *   X[k] = a[k] sum_n (x[n] a[n]) conj(a[k - n])
 *
 *   pad        u = x a, zeros up to M            the first transform's first load
 *   fft        U = FFT_M(u)                      (the stages)
 *   filter     V = conj(U K), K = FFT_M(conj a) / M, precomputed on the host:
 *                                                the first transform's last store
 *   fft        W = FFT_M(V)                      so conj(W) is the convolution
 *   unpad      X = a conj(W), the first N        the second transform's last store
 *
 * Both transforms are forward: the inverse of the middle one is the conjugate of a forward
 * transform of the conjugate, folded into the filter and unpad. The three steps are hooks of
 * the stage kernels (stage-kernel.ts), so that Bluestein's algorithm costs the two transforms'
 * round trips through global memory and no more.
 */
import type { DType } from '@loom/core';
import { element, loaded, stored, type AxisLayout, type Direction } from './layout.ts';
import type { LoadHook, StoreHook } from './stage-kernel.ts';

/** The hooks of Bluestein's steps; `chirp` (N entries) and `filter` (M) are the tables' arguments. */
export interface BluesteinHooks {
  readonly pad: LoadHook;
  readonly filter: StoreHook;
  readonly unpad: StoreHook;
}

/**
 * The hooks of a Bluestein transform of `original`'s axis padded to `padded`'s, `direction`
 * applied at the pad (the input's conjugate) and the unpad (the output's).
 */
export function bluesteinHooks(
  dtype: DType,
  original: AxisLayout,
  padded: AxisLayout,
  direction: Direction,
): BluesteinHooks {
  const n = original.shape[original.axis];
  const m = padded.shape[padded.axis];
  const chirp = { name: 'chirp', size: n };
  const filter = { name: 'filter', size: m };
  return {
    pad: {
      shape: original.shape,
      tables: [chirp],
      // zeros beyond n: the value is set, then overwritten where the input has a point
      lines: (name, k, inames, attrs) => [
        `<${dtype}> ${name} = 0 {id=${name}0, ${attrs}}`,
        `if ${k} < ${n}`,
        `  ${name} = ${loaded(element('src', original, k, inames), direction)} * chirp[${k}] {id=${name}1, dep=${name}0, ${attrs}}`,
        'end',
      ],
    },
    filter: {
      shape: padded.shape,
      tables: [filter],
      lines: (k, value, inames, attrs) => [
        `${element('dst', padded, k, inames)} = conj(${value} * filter[${k}]) {${attrs}}`,
      ],
    },
    unpad: {
      shape: original.shape,
      tables: [chirp],
      lines: (k, value, inames, attrs) => [
        `if ${k} < ${n}`,
        `  ${element('dst', original, k, inames)} = ${stored(`conj(${value}) * chirp[${k}]`, direction)} {${attrs}}`,
        'end',
      ],
    },
  };
}
