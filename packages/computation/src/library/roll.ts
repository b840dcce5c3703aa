/**
 * `roll(arr, axis)`: numpy.roll along one axis (Reikna's Roll), the shift a parameter of the
 * compiled computation: `output[..., (i + shift) mod n, ...] = input[..., i, ...]`. Each
 * work-item reads the element that lands at its own index, so writes are neighbours'.
 */
import { LoomError, type DType } from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import { pureParallel } from './pure-parallel.ts';
import { transposeKernel } from './transpose.ts';

type Params<D extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'i' },
  { readonly name: 'shift'; readonly dtype: 'int32'; readonly role: 's' },
];

/** Rotates an array along `axis` by a shift given at call time, as `numpy.roll` (Reikna's `Roll`). */
export function roll<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  axis = -1,
): Computation<Params<D>> {
  const r = arr.shape.length;
  const a = axis < 0 ? axis + r : axis;
  if (!Number.isInteger(a) || a < 0 || a >= r) throw new LoomError(`roll: axis ${axis} is out of bounds for rank ${r}`);
  const n = arr.shape[a];
  return pureParallel<Params<D>>({
    name: 'roll',
    params: [
      { name: 'output', dtype: arr.dtype, shape: arr.shape, role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: arr.shape, role: 'i' },
      { name: 'shift', dtype: 'int32', role: 's' },
    ],
    // the source index: i - shift, brought into [0, n) whatever the sign of shift and of % on negatives
    body: (idx) =>
      `output[${idx.join(', ')}] = input[${idx.map((i, k) => (k === a ? `(${i} + ${n} - shift % ${n}) % ${n}` : i)).join(', ')}]`,
  });
}

type InplaceParams<D extends DType> = readonly [
  { readonly name: 'array'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'io' },
  { readonly name: 'shift'; readonly dtype: 'int32'; readonly role: 's' },
];

/**
 * `roll` in place (Reikna's `RollInplace`): `array` rotated along `axis` by the shift given at
 * call time, through a temporary (every element moves, so no work-item may overwrite what
 * another has yet to read).
 *
 *   const rot = await rollInplace({ dtype: 'float32', shape: [4, 10] }, 1).compile(device);
 *   await rot(deviceArray, 3);
 */
export function rollInplace<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  axis = -1,
): Computation<InplaceParams<D>> {
  const rolled = roll(arr, axis);
  return computation<InplaceParams<D>>({
    name: 'rollInplace',
    params: [
      { name: 'array', dtype: arr.dtype, shape: arr.shape, role: 'io' },
      { name: 'shift', dtype: 'int32', role: 's' },
    ],
    buildPlan(plan, device, array, shift) {
      const temp = plan.tempArrayLike(array);
      plan.computationCall(rolled, temp, array, shift);
      // the identity permutation: an elementwise copy
      const copy = transposeKernel(
        arr.dtype,
        arr.shape,
        arr.shape.map((_, k) => k),
        device,
      );
      plan.kernelCall(copy, { out: array, inp: temp }, { runtimeSizes: true });
    },
  });
}
