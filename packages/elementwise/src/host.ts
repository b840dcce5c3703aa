/**
 * Host data in and out of tensors: what `tensor(data)` accepts (TypedArrays, flat or
 * nested arrays of numbers, booleans, bigints and `{ re, im }` complex values, single
 * scalars) turned into the array of stored numbers a device buffer is written from;
 * and a strided view gathered back into a row-major host array.
 */
import {
  bfloat16Bits,
  DeviceArray,
  dtypeOfHostArray,
  float16Bits,
  LoomError,
  type DType,
  type HostArray,
} from '@loom/core';
import { componentDType, hostArrayFor, isComplex, lanes, type TensorDType } from './dtypes.ts';
import { isComplexScalar, type ComplexScalar } from './promotion.ts';

/** A scalar operand of a pointwise function. */
export type Scalar = number | boolean | bigint | ComplexScalar;
export type NestedData = Scalar | readonly NestedData[];
/** What `tensor` takes: a host array or nested arrays of numbers. */
export type TensorData = HostArray | NestedData;

export function isHostArray(x: unknown): x is HostArray {
  return ArrayBuffer.isView(x) && !(x instanceof DataView);
}

/** The elements of `data` in row-major order, with the shape its nesting spells. */
function flatten(data: NestedData): { values: Scalar[]; shape: number[] } {
  if (!Array.isArray(data)) return { values: [data as Scalar], shape: [] };
  if (data.length === 0) return { values: [], shape: [0] };
  const parts = data.map((d) => flatten(d));
  const inner = parts[0].shape;
  for (const p of parts) {
    if (p.shape.length !== inner.length || p.shape.some((s, k) => s !== inner[k])) {
      throw new LoomError(
        `tensor(): nested arrays must be rectangular, got rows of shapes [${inner.join(', ')}] and [${p.shape.join(', ')}]`,
      );
    }
  }
  return { values: parts.flatMap((p) => p.values), shape: [data.length, ...inner] };
}

/** PyTorch's choice for Python data: bools stay bool, ints become int64, floats float32. */
function inferDType(values: readonly Scalar[]): TensorDType {
  if (values.some(isComplexScalar)) return 'complex64';
  if (values.length > 0 && values.every((v) => typeof v === 'boolean')) return 'bool';
  if (values.some((v) => typeof v === 'number' && !Number.isInteger(v))) return 'float32';
  return 'int64';
}

export interface HostTensorData {
  /** The stored numbers (interleaved parts for complex dtypes). */
  readonly components: HostArray;
  readonly shape: readonly number[];
  readonly dtype: TensorDType;
}

/**
 * `data` as stored numbers of `dtype` (inferred when absent). A TypedArray is taken
 * flat (reshaped by `shape`); for a complex dtype a float TypedArray holds interleaved
 * parts. Numbers are converted as a TypedArray store converts them (integers wrap),
 * except float16 and bfloat16, which round to nearest even.
 */
export function hostTensorData(
  data: TensorData,
  shape: readonly number[] | undefined,
  dtype: TensorDType | undefined,
): HostTensorData {
  if (isHostArray(data)) {
    const own = dtypeOfHostArray(data)!;
    const t = dtype ?? own;
    const elements = isComplex(t) && (own === 'float32' || own === 'float64') ? data.length / 2 : data.length;
    const dims = shape ?? [elements];
    checkSize(dims, elements);
    if (componentDType(t) === own && (isComplex(t) ? elements * 2 === data.length : true)) {
      return { components: data, shape: dims, dtype: t };
    }
    return { components: convert(Array.from(data as ArrayLike<number | bigint>), t), shape: dims, dtype: t };
  }
  // a DeviceArray is no nested data: say how to make a tensor of it, rather than fail converting it
  if (data instanceof DeviceArray) {
    throw new LoomError(
      `tensor(): got a DeviceArray of ${data.dtype}; make a tensor of its elements with tensor(await array.toHost(), array.shape, { device, dtype: '${data.dtype}' })`,
    );
  }
  const { values, shape: spelled } = flatten(data as NestedData);
  const t = dtype ?? inferDType(values);
  const dims = shape ?? spelled;
  checkSize(dims, values.length);
  return { components: convert(values, t), shape: dims, dtype: t };
}

function checkSize(shape: readonly number[], count: number): void {
  const size = shape.reduce((a, b) => a * b, 1);
  if (shape.some((s) => !Number.isInteger(s) || s < 0))
    throw new LoomError(`tensor(): invalid shape [${shape.join(', ')}]`);
  if (size !== count)
    throw new LoomError(`tensor(): shape [${shape.join(', ')}] holds ${size} elements, but the data has ${count}`);
}

function convert(values: readonly Scalar[], dtype: TensorDType): HostArray {
  const out = hostArrayFor(dtype, values.length);
  const component = componentDType(dtype);
  const put = storer(component, out);
  values.forEach((v, k) => {
    if (isComplex(dtype)) {
      const c = isComplexScalar(v) ? v : { re: realOf(v, dtype), im: 0 };
      put(2 * k, c.re);
      put(2 * k + 1, c.im);
    } else {
      if (isComplexScalar(v)) throw new LoomError(`tensor(): a complex value cannot be stored as ${dtype}`);
      put(k, v);
    }
  });
  return out;
}

function realOf(v: Scalar, dtype: TensorDType): number {
  if (isComplexScalar(v)) throw new LoomError(`tensor(): unexpected complex value for ${dtype}`);
  return Number(v);
}

/** Writes one number of `dtype` at index k, converting as PyTorch's tensor() would. */
function storer(dtype: DType, out: HostArray): (k: number, v: number | boolean | bigint) => void {
  switch (dtype) {
    case 'bool':
      return (k, v) => {
        (out as Uint8Array)[k] = v ? 1 : 0;
      };
    case 'float16':
      return (k, v) => {
        (out as Uint16Array)[k] = float16Bits(Number(v));
      };
    case 'bfloat16':
      return (k, v) => {
        (out as Uint16Array)[k] = bfloat16Bits(Number(v));
      };
    case 'int64':
    case 'uint64':
      return (k, v) => {
        (out as BigInt64Array)[k] = typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
      };
    default:
      return (k, v) => {
        (out as Float64Array)[k] = Number(v);
      };
  }
}

/** Where a view's elements lie in its storage: shape, strides and offset, in elements. */
export interface Layout {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
}

/** The elements of a strided view over `storage`, gathered into row-major order. */
export function gather(storage: HostArray, dtype: TensorDType, layout: Layout): HostArray {
  const n = layout.shape.reduce((a, b) => a * b, 1);
  const out = hostArrayFor(dtype, n);
  const width = lanes(dtype);
  const src = storage as unknown as { [k: number]: number | bigint };
  const dst = out as unknown as { [k: number]: number | bigint };
  forEachIndex(layout, (k, at) => {
    for (let c = 0; c < width; c++) dst[k * width + c] = src[at * width + c];
  });
  return out;
}

/** Calls `fn(k, at)` for the k-th element in row-major order, at storage element `at`. */
export function forEachIndex(layout: Layout, fn: (k: number, at: number) => void): void {
  const { shape, strides } = layout;
  const n = shape.reduce((a, b) => a * b, 1);
  if (n === 0) return;
  const index = shape.map(() => 0);
  let at = layout.offset;
  for (let k = 0; k < n; k++) {
    fn(k, at);
    // odometer: bump the last axis, carrying into earlier ones
    for (let d = shape.length - 1; d >= 0; d--) {
      index[d]++;
      at += strides[d];
      if (index[d] < shape[d]) break;
      at -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}
