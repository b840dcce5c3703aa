/**
 * `transpose(arr, axes)`: `output = numpy.transpose(input, axes)` (Reikna's Transpose):
 * output axis k is input axis `axes[k]`; by default the axes reversed.
 *
 * When the permutation moves the input's last axis (the one contiguous in memory), reading
 * and writing cannot both be contiguous element by element; the kernel goes through local
 * memory in tiles: a work-group reads a 16 x 16 tile with neighbouring work-items on
 * neighbouring input elements, and writes it with neighbouring work-items on neighbouring
 * output elements (the input's last axis and the axis that becomes the output's last are
 * the tile's two sides; the other axes select the tile). Otherwise each work-item copies
 * one element, neighbours writing neighbours.
 *
 * The kernel takes the sizes of the axes as parameters (`n0`, `n1`, ...; axes of 1 stay 1),
 * passed at launch (`runtimeSizes`): transposes of other sizes with the same permutation
 * run the same code, built once per device.
 */
import {
  LoomError,
  addPrefetch,
  globalArg,
  makeKernel,
  splitIname,
  tagInames,
  valueArg,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import type { DeviceParameters } from '../computation/device-parameters.ts';
import { spreadOverGrid } from './parallel.ts';

type Params<D extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'i' },
];

/** Permutes an array's axes (Reikna's `Transpose`). */
export function transpose<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  axes?: readonly number[],
): Computation<Params<D>> {
  const { dtype, shape } = arr;
  const perm = checkPermutation(axes ?? shape.map((_, k) => shape.length - 1 - k), shape.length);
  const outShape = perm.map((a) => shape[a]);
  return computation<Params<D>>({
    name: 'transpose',
    params: [
      { name: 'output', dtype, shape: outShape, role: 'o' },
      { name: 'input', dtype, shape, role: 'i' },
    ],
    buildPlan(plan, device, output, input) {
      plan.kernelCall(transposeKernel(dtype, shape, perm, device), { out: output, inp: input }, { runtimeSizes: true });
    },
  });
}

export function checkPermutation(axes: readonly number[], rank: number): number[] {
  const sorted = [...axes].sort((a, b) => a - b);
  if (axes.length !== rank || sorted.some((a, k) => a !== k))
    throw new LoomError(`transpose: axes (${axes.join(', ')}) are not a permutation of the ${rank} axes`);
  return [...axes];
}

/** The tile's side: 16 x 16 work-items, or fewer where the device allows fewer. */
function tileSide(device: DeviceParameters): number {
  let t = 16;
  while (
    t > 1 &&
    (t * t > device.maxWorkGroupSize || t > device.maxWorkGroupSizes[1] || 2 * t * t * 8 > device.localMemoryBytes)
  )
    t /= 2;
  return t;
}

export function transposeKernel(
  dtype: DType,
  shape: readonly number[],
  perm: readonly number[],
  device: DeviceParameters,
): LoopKernel {
  const r = shape.length;
  const idx = shape.map((_, k) => `i${k}`);
  // each axis's size a parameter, but an axis of 1, which decides the kernel's structure
  const size = shape.map((n, k) => (n === 1 ? '1' : `n${k}`));
  const domain = r
    ? `{ [${idx.join(', ')}]: ${idx.map((i, k) => `0 <= ${i} < ${size[k]}`).join(' and ')} }`
    : '{ [i0]: 0 <= i0 < 1 }';
  const out = perm.map((a) => idx[a]);
  const knl = makeKernel(
    domain,
    r ? `out[${out.join(', ')}] = inp[${idx.join(', ')}]` : 'out = inp',
    [
      globalArg('inp', { dtype, shape: size }),
      globalArg('out', { dtype, shape: perm.map((a) => size[a]) }),
      ...size.filter((n) => n !== '1').map((n) => valueArg(n, 'int32')),
    ],
    { name: 'transpose' },
  );
  const p = r - 1;
  const q = perm[r - 1];
  // the output's order: neighbouring work-items write neighbouring elements (sizes unknown to the code: split, never one group)
  if (r <= 1 || p === q || shape[p] === 1 || shape[q] === 1)
    return spreadOverGrid(
      knl,
      r ? out : [],
      perm.map((a) => (shape[a] === 1 ? 1 : Number.POSITIVE_INFINITY)),
      device,
    );

  const t = tileSide(device);
  let tiled = splitIname(knl, idx[q], t, { outerTag: 'g.0', innerTag: 'l.0' });
  tiled = splitIname(tiled, idx[p], t, { outerTag: 'g.1', innerTag: 'l.1' });
  tiled = addPrefetch(tiled, 'inp', [`${idx[p]}_inner`, `${idx[q]}_inner`], { temporaryAddressSpace: 'local' });
  // the fetch: neighbouring work-items read along the input's last axis
  tiled = tagInames(tiled, { [`inp_dim_${p}`]: 'l.0', [`inp_dim_${q}`]: 'l.1' });
  const batch = idx.map((name, k) => ({ name, size: shape[k] })).filter((_, k) => k !== p && k !== q && shape[k] > 1);
  return batchOnGrid(tiled, batch);
}

/**
 * The axes that select a tile: one on grid axis 2; several are loops in each work-item
 * around the tile's fetch, but the largest on the grid.
 */
function batchOnGrid(knl: LoopKernel, batch: readonly { readonly name: string; readonly size: number }[]): LoopKernel {
  if (batch.length === 0) return knl;
  const largest = batch.reduce((a, b) => (b.size > a.size ? b : a));
  return tagInames(knl, { [largest.name]: 'g.2' });
}
