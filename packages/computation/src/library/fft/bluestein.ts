/**
 * Bluestein's algorithm for a size N with a prime factor above 7: the DFT as a convolution,
 * computed by two transforms of a smooth size M >= 2N - 1. With the chirp a[n] =
 * exp(-pi i n^2 / N),
 *
 *   X[k] = a[k] sum_n (x[n] a[n]) conj(a[k - n])
 *
 *   pad        u = x a, zeros up to M            (this module)
 *   fft        U = FFT_M(u)                      (the passes)
 *   filter     V = conj(U K), K = FFT_M(conj a) / M, precomputed on the host
 *   fft        W = FFT_M(V)                      so conj(W) is the convolution
 *   unpad      X = a conj(W), the first N        (this module)
 *
 * Both transforms are forward: the inverse of the middle one is the conjugate of a forward
 * transform of the conjugate, folded into the filter and unpad kernels.
 */
import { globalArg, makeKernel, valueArg, type DType, type LoopKernel } from '@loom/core';
import type { DeviceParameters } from '../../computation/device-parameters.ts';
import { spreadOverGrid } from '../parallel.ts';
import {
  batchAxes,
  batchBounds,
  batchIname,
  element,
  loaded,
  stored,
  takesInverse,
  type AxisLayout,
  type Direction,
} from './layout.ts';

type Step = 'pad' | 'filter' | 'unpad';

/**
 * A Bluestein step over the padded layout's elements (`pad`, `filter`) or the original's
 * (`unpad`): `src` and `dst` of their layouts, `table` the chirp (N) or the filter (M).
 */
export function bluesteinStep(
  step: Step,
  dtype: DType,
  original: AxisLayout,
  padded: AxisLayout,
  direction: Direction,
  device: DeviceParameters,
): LoopKernel {
  const n = original.shape[original.axis];
  const over = step === 'unpad' ? original : padded;
  const size = over.shape[over.axis];
  const all = [...batchAxes(over).map(batchIname), 'k'];
  const domain = `{ [${all.join(', ')}]: ${[...batchBounds(over), `0 <= k < ${size}`].join(' and ')} }`;
  const inames = all.join(':');
  const lines =
    step === 'pad'
      ? [
          `if k < ${n}`,
          `  <${dtype}> x = ${element('src', original, 'k')} {inames=${inames}}`,
          `  ${element('dst', padded, 'k')} = ${loaded('x', direction)} * table[k] {inames=${inames}}`,
          'end',
          `if k >= ${n}`,
          `  ${element('dst', padded, 'k')} = 0 {inames=${inames}}`,
          'end',
        ]
      : step === 'filter'
        ? [`${element('dst', padded, 'k')} = conj(${element('src', padded, 'k')} * table[k]) {inames=${inames}}`]
        : [
            `<${dtype}> x = conj(${element('src', padded, 'k')}) * table[k] {inames=${inames}}`,
            `${element('dst', original, 'k')} = ${stored('x', direction)} {inames=${inames}}`,
          ];
  const knl = makeKernel(
    domain,
    lines.join('\n'),
    [
      globalArg('src', { dtype, shape: step === 'pad' ? original.shape : padded.shape }),
      globalArg('dst', { dtype, shape: step === 'unpad' ? original.shape : padded.shape }),
      globalArg('table', { dtype, shape: [step === 'filter' ? size : n] }),
      ...(takesInverse(direction) ? [valueArg('inverse', 'int32')] : []),
    ],
    { name: `fft_bluestein_${step}` },
  );
  const order = over.shape.map((_, m) => (m === over.axis ? 'k' : batchIname(m)));
  return spreadOverGrid(knl, order, over.shape, device);
}
