/**
 * `transpose(arr, axes)`: `output = numpy.transpose(input, axes)` (Reikna's Transpose):
 * output axis k is input axis `axes[k]`; by default the axes reversed.
 *
 * When the permutation moves the input's last axis (the one contiguous in memory), reading
 * and writing cannot both be contiguous element by element; the kernel goes through local
 * memory in tiles: a work-group reads a 32 x 32 tile with neighbouring work-items on
 * neighbouring input elements, and writes it with neighbouring work-items on neighbouring
 * output elements (the input's last axis and the axis that becomes the output's last are
 * the tile's two sides; the other axes select the tile). The group is 32 x 8 work-items, each
 * moving four elements of a column of the tile (unrolled), and the tile's rows are padded to
 * 33 elements so that a column's reads fall in different memory banks: the classic GPU
 * transpose, which moves twice the data of a 16 x 16 tile of one element per work-item.
 * Otherwise each work-item copies one element, neighbours writing neighbours.
 *
 * The kernel takes the sizes of the axes as parameters (`n0`, `n1`, ...; axes of 1 stay 1),
 * passed at launch (`runtimeSizes`): transposes of other sizes with the same permutation
 * run the same code, built once per device.
 */
import {
  LoomError,
  addPrefetch,
  byteSize,
  globalArg,
  makeKernel,
  splitIname,
  tagArrayAxes,
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

/**
 * The tile: `side` x `side` elements, moved by `side` x `rows` work-items (`side / rows`
 * elements each); 32 x 32 by 32 x 8 where the device allows it, else the largest square of one
 * element per work-item that it allows.
 */
function tileShape(device: DeviceParameters, dtype: DType): { readonly side: number; readonly rows: number } {
  const fits = (side: number, rows: number) =>
    side * rows <= device.maxWorkGroupSize &&
    side <= device.maxWorkGroupSizes[0] &&
    rows <= device.maxWorkGroupSizes[1] &&
    (side + 1) * side * byteSize(dtype) <= device.localMemoryBytes / 2;
  if (fits(32, 8)) return { side: 32, rows: 8 };
  let t = 16;
  while (t > 1 && !fits(t, t)) t /= 2;
  return { side: t, rows: t };
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

  const { side, rows } = tileShape(device, dtype);
  let tiled = splitIname(knl, idx[q], side, { outerTag: 'g.0', innerTag: 'l.0' });
  const pInner = `${idx[p]}_inner`;
  let fetchSweep: string[];
  if (rows < side) {
    // each work-item writes side / rows elements of its column of the tile, unrolled
    tiled = splitIname(tiled, idx[p], side, { outerTag: 'g.1' });
    tiled = splitIname(tiled, pInner, rows, { outerTag: 'unr', innerTag: 'l.1' });
    fetchSweep = [`${pInner}_outer`, `${pInner}_inner`, `${idx[q]}_inner`];
  } else {
    tiled = splitIname(tiled, idx[p], side, { outerTag: 'g.1', innerTag: 'l.1' });
    fetchSweep = [pInner, `${idx[q]}_inner`];
  }
  tiled = addPrefetch(tiled, 'inp', fetchSweep, { temporaryAddressSpace: 'local' });
  // the fetch: neighbouring work-items read along the input's last axis
  tiled = tagInames(tiled, { [`inp_dim_${p}`]: 'l.0' });
  tiled =
    rows < side
      ? splitIname(tiled, `inp_dim_${q}`, rows, { outerTag: 'unr', innerTag: 'l.1' })
      : tagInames(tiled, { [`inp_dim_${q}`]: 'l.1' });
  // the tile's axes are (q, p), q < p = the last: rows of side + 1 spread a column over the banks
  tiled = tagArrayAxes(tiled, 'inp_fetch', `stride:${side + 1},stride:1`);
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
