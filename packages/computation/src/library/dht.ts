/**
 * `dht(modeArr, options)`: the discrete Hermite transform (Reikna's DHT; Dion & Cances,
 * PRE 67, 046706, 2003): between a function's coefficients over harmonic oscillator modes and
 * its values on the Gauss-Hermite grid (dht-grid.ts), along each of `axes` in turn, the other
 * axes a batch.
 *
 * Along one axis the transform is a matrix product with a matrix built on the host in float64
 * (the mode functions at the grid's points; forward, their transpose times the quadrature
 * weights) and kept on the device in the data's real dtype. Reikna transposes the axis to the
 * end and calls MatrixMul; here one kernel contracts the axis where it lies, each work-item
 * summing one output element, so no transposes are needed and a complex array multiplies a
 * real matrix directly. The kernel takes its sizes at launch: every axis of every shape of the
 * same rank runs the same code.
 */
import {
  checkOptionKeys,
  LoomError,
  globalArg,
  makeKernel,
  optionKeys,
  valueArg,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import type { DeviceParameters } from '../computation/device-parameters.ts';
import type { ComputationParam } from '../computation/params.ts';
import { getSpatialPoints, getSpatialWeights, getTransformationMatrix } from './dht-grid.ts';
import { normalizeAxes } from './axes.ts';
import { spreadOverGrid } from './parallel.ts';
import { transposeKernel } from './transpose.ts';

/** Options of `dht`. */
export interface DhtOptions {
  /** Per axis of the array, points of the spatial grid beyond the least needed (default 0 each). */
  readonly addPoints?: readonly number[];
  /** `true`: from modes to coordinates; `false` (default): from coordinates to modes. */
  readonly inverse?: boolean;
  /** The power of the function whose modes the grid must resolve (default 1). */
  readonly order?: number;
  /** The axes transformed (default all). */
  readonly axes?: readonly number[];
}

/** The options dht reads; any other key is an error. */
const DHT_OPTIONS = optionKeys<DhtOptions>()(['addPoints', 'axes', 'inverse', 'order']);

type Arr<N extends string, D extends DType, R extends 'i' | 'o'> = {
  readonly name: N;
  readonly dtype: D;
  readonly shape: readonly number[];
  readonly role: R;
};
type ForwardParams<D extends DType> = readonly [Arr<'modes', D, 'o'>, Arr<'coords', D, 'i'>];
type InverseParams<D extends DType> = readonly [Arr<'coords', D, 'o'>, Arr<'modes', D, 'i'>];

const REAL_OF: Partial<Record<DType, 'float32' | 'float64'>> = {
  float32: 'float32',
  float64: 'float64',
  complex64: 'float32',
  complex128: 'float64',
};

/**
 * The discrete Hermite transform over `axes` of an array of mode coefficients shaped like
 * `modeArr` (Reikna's `DHT`): forward (`modes` from `coords`, the function's values on
 * `getSpatialGrid`'s points along each axis) or, with `inverse`, back. Real and complex
 * dtypes; the coordinate array's shape has `getSpatialPoints(modes, order, addPoints)` along
 * each transformed axis.
 *
 *   const fw = await dht({ dtype: 'complex64', shape: [batch, 10, 11] }, { axes: [1, 2] }).compile(device);
 *   const { modes } = await fw(undefined, coords);
 */
export function dht<D extends DType>(
  modeArr: { readonly dtype: D; readonly shape: readonly number[] },
  options?: DhtOptions & { readonly inverse?: false },
): Computation<ForwardParams<D>>;
export function dht<D extends DType>(
  modeArr: { readonly dtype: D; readonly shape: readonly number[] },
  options: DhtOptions & { readonly inverse: true },
): Computation<InverseParams<D>>;
export function dht<D extends DType>(
  modeArr: { readonly dtype: D; readonly shape: readonly number[] },
  options?: DhtOptions,
): Computation<ForwardParams<D>> | Computation<InverseParams<D>>;
export function dht<D extends DType>(
  modeArr: { readonly dtype: D; readonly shape: readonly number[] },
  options: DhtOptions = {},
): Computation<ForwardParams<D>> | Computation<InverseParams<D>> {
  checkOptionKeys('dht', options, DHT_OPTIONS);
  const { dtype, shape: modeShape } = modeArr;
  const real = REAL_OF[dtype];
  if (!real)
    throw new LoomError(`dht: the dtype is ${dtype}; the transform takes float32, float64, complex64 or complex128`);
  const rank = modeShape.length;
  const axes = normalizeAxes('dht', options.axes ?? modeShape.map((_, k) => k), rank);
  const order = options.order ?? 1;
  const inverse = options.inverse ?? false;
  const addPoints = options.addPoints ?? modeShape.map(() => 0);
  if (addPoints.length !== rank)
    throw new LoomError(`dht: addPoints has ${addPoints.length} entries; give one per axis of the array (${rank})`);
  const coordShape = modeShape.map((n, k) => (axes.includes(k) ? getSpatialPoints(n, order, addPoints[k]) : n));
  const modes = { name: 'modes', dtype, shape: modeShape } as const;
  const coords = { name: 'coords', dtype, shape: coordShape } as const;
  const params = inverse
    ? ([
        { ...coords, role: 'o' },
        { ...modes, role: 'i' },
      ] as const)
    : ([
        { ...modes, role: 'o' },
        { ...coords, role: 'i' },
      ] as const);

  return computation<readonly ComputationParam[]>({
    name: 'dht',
    params,
    buildPlan(plan, device, output, input) {
      // over no axes the transform is the identity: the output must still be written
      if (axes.length === 0) {
        const identity = modeShape.map((_, k) => k);
        plan.kernelCall(transposeKernel(dtype, modeShape, identity, device), { out: output, inp: input });
        return;
      }
      let current: typeof input | ReturnType<typeof plan.tempArray> = input;
      let shape = [...input.shape!];
      axes.forEach((axis, step) => {
        const matrix = transformationMatrix(modeShape[axis], order, addPoints[axis], inverse, real);
        const to = (inverse ? coordShape : modeShape)[axis];
        const from = shape[axis];
        shape = shape.map((n, k) => (k === axis ? to : n));
        const target = step === axes.length - 1 ? output : plan.tempArray(dtype, shape);
        plan.kernelCall(
          contractionKernel(dtype, real, shape, axis, from, device),
          { out: target, inp: current, mat: plan.persistentArray(matrix, [from, to], real) },
          { runtimeSizes: true },
        );
        current = target;
      });
    },
  }) as unknown as Computation<ForwardParams<D>> | Computation<InverseParams<D>>;
}

/**
 * The matrix that takes an axis of the input to an axis of the output, `[from, to]` row-major:
 * inverse, the mode functions at the grid's points; forward, the grid's points weighted by the
 * quadrature weights against each mode function.
 */
function transformationMatrix(
  modes: number,
  order: number,
  addPoints: number,
  inverse: boolean,
  real: 'float32' | 'float64',
): Float32Array | Float64Array {
  const p = getTransformationMatrix(modes, order, addPoints);
  const points = p.length / modes;
  const out = real === 'float32' ? new Float32Array(p.length) : new Float64Array(p.length);
  if (inverse) out.set(p);
  else {
    const weights = getSpatialWeights(modes, order, addPoints);
    for (let k = 0; k < points; k++)
      for (let m = 0; m < modes; m++) out[k * modes + m] = p[m * points + k] * weights[k];
  }
  return out;
}

/** `out[..., m, ...] = sum(k, inp[..., k, ...] * mat[k, m])` along `axis`; `outShape` the result's. */
function contractionKernel(
  dtype: DType,
  real: DType,
  outShape: readonly number[],
  axis: number,
  from: number,
  device: DeviceParameters,
): LoopKernel {
  const idx = outShape.map((_, d) => `i${d}`);
  // an axis of 1 stays 1: whether the grid splits an axis depends on it
  const size = outShape.map((n, d) => (n === 1 ? '1' : d === axis ? 'nto' : `n${d}`));
  const k = from === 1 ? '1' : 'nfrom';
  const inShape = size.map((n, d) => (d === axis ? k : n));
  const knl = makeKernel(
    `{ [${[...idx, 'k'].join(', ')}]: ${[...idx.map((i, d) => `0 <= ${i} < ${size[d]}`), `0 <= k < ${k}`].join(' and ')} }`,
    `out[${idx.join(', ')}] = sum(k, inp[${idx.map((i, d) => (d === axis ? 'k' : i)).join(', ')}] * mat[k, ${idx[axis]}])`,
    [
      globalArg('inp', { dtype, shape: inShape }),
      globalArg('mat', { dtype: real, shape: [k, size[axis]] }),
      globalArg('out', { dtype, shape: size }),
      ...[...new Set([...size, k])].filter((n) => n !== '1').map((n) => valueArg(n, 'int32')),
    ],
    { name: 'dht' },
  );
  return spreadOverGrid(knl, idx, outShape, device, { runtimeSizes: true });
}
