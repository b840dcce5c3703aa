/**
 * `fftShift(arr, axes)`: the zero-frequency element moved to the centre of the spectrum over
 * `axes` (Reikna's FFTShift): `numpy.fft.fftshift` when the `inverse` scalar is 0,
 * `numpy.fft.ifftshift` otherwise; the two differ only along axes of odd length.
 *
 * `output` and `input` may be the same DeviceArray (a shift in place). Reikna swaps pairs of
 * elements in place when every shifted axis is even; in Loom a kernel given one buffer as
 * two arguments must touch every element at one index (runtime/aliasing.ts refuses the swap,
 * which reads and writes two), so every shift gathers into a temporary and copies it to
 * `output`, as Reikna does for odd lengths. Both kernels take the axes' sizes at launch, so
 * shifts of other shapes over the same axes share their code.
 */
import { globalArg, makeKernel, valueArg, type DType, type LoopKernel } from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import type { DeviceParameters } from '../computation/device-parameters.ts';
import { normalizeAxes } from './axes.ts';
import { spreadOverGrid } from './parallel.ts';
import { transposeKernel } from './transpose.ts';

type Params<D extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'i' },
  { readonly name: 'inverse'; readonly dtype: 'int32'; readonly role: 's' },
];

/**
 * Shifts the zero-frequency component to the centre over `axes` (all by default), as
 * `numpy.fft.fftshift`, or back (`ifftshift`) when called with `inverse` nonzero (Reikna's
 * `FFTShift`). Any dtype; `output` may be `input`.
 *
 *   const shift = await fftShift({ dtype: 'complex64', shape: [8, 9] }, [0, 1]).compile(device);
 *   await shift(spectrum, spectrum, 0);   // in place; 1 undoes it
 */
export function fftShift<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  axes?: readonly number[],
): Computation<Params<D>> {
  const { dtype, shape } = arr;
  const shifted = normalizeAxes('fftShift', axes ?? shape.map((_, k) => k), shape.length);
  return computation<Params<D>>({
    name: 'fftShift',
    params: [
      { name: 'output', dtype, shape, role: 'o' },
      { name: 'input', dtype, shape, role: 'i' },
      { name: 'inverse', dtype: 'int32', role: 's' },
    ],
    buildPlan(plan, device, output, input, inverse) {
      const identity = shape.map((_, k) => k);
      // nothing moves, but transformations attached to the parameters still run (Reikna's trivial plan)
      if (shifted.every((a) => shape[a] === 1)) {
        plan.kernelCall(
          transposeKernel(dtype, shape, identity, device),
          { out: output, inp: input },
          { runtimeSizes: true },
        );
        return;
      }
      const temp = plan.tempArrayLike(output);
      plan.kernelCall(
        shiftKernel(dtype, shape, shifted, device),
        { out: temp, inp: input, inverse },
        { runtimeSizes: true },
      );
      plan.kernelCall(
        transposeKernel(dtype, shape, identity, device),
        { out: output, inp: temp },
        { runtimeSizes: true },
      );
    },
  });
}

/**
 * `out[i] = inp[source(i)]`: along a shifted axis of n elements the source is `i + ceil(n/2)`
 * (fftshift, numpy.roll by floor(n/2)) or `i + floor(n/2)` (ifftshift), modulo n.
 */
function shiftKernel(
  dtype: DType,
  shape: readonly number[],
  axes: readonly number[],
  device: DeviceParameters,
): LoopKernel {
  const idx = shape.map((_, k) => `i${k}`);
  // an axis of 1 stays 1: whether the grid splits an axis depends on it
  const size = shape.map((n, k) => (n === 1 ? '1' : `n${k}`));
  const source = idx.map((i, k) => {
    if (!axes.includes(k) || shape[k] === 1) return i;
    const n = size[k];
    return `(${i} + (${n} // 2 if inverse != 0 else ${n} - ${n} // 2)) % ${n}`;
  });
  const knl = makeKernel(
    `{ [${idx.join(', ')}]: ${idx.map((i, k) => `0 <= ${i} < ${size[k]}`).join(' and ')} }`,
    `out[${idx.join(', ')}] = inp[${source.join(', ')}]`,
    [
      globalArg('inp', { dtype, shape: size }),
      globalArg('out', { dtype, shape: size }),
      valueArg('inverse', 'int32'),
      ...size.filter((n) => n !== '1').map((n) => valueArg(n, 'int32')),
    ],
    { name: 'fftshift' },
  );
  return spreadOverGrid(knl, idx, shape, device, { runtimeSizes: true });
}
