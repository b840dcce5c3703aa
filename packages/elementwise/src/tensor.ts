/**
 * `Tensor`: a strided view over a device's storage, as PyTorch has them — a dtype,
 * a shape, strides and an offset, all counted in elements. Strides may be zero (a
 * broadcast axis) or negative (a flipped one: FlagGems' StridedBuffer, which PyTorch
 * itself cannot express). The views below never copy: they make a new Tensor over
 * the same storage, and writing through one is seen through all.
 */
import { checkOptionKeys, hostArrayConstructor, LoomError, optionKeys, type Device, type HostArray } from '@loom/core';
import { checkTensorDType, componentDType, lanes, type TensorDType } from './dtypes.ts';
import { defaultDevice } from './devices.ts';
import { gather, hostTensorData, type Layout, type TensorData } from './host.ts';
import { Storage } from './storage.ts';

/** A strided tensor on a device: storage, shape, strides and offset (PyTorch's). */
export class Tensor implements Layout {
  /** Its shape (PyTorch's `size()`). */
  readonly shape: readonly number[];
  /** Elements to step in storage per index of each axis (PyTorch's `stride()`). */
  readonly strides: readonly number[];

  constructor(
    /** The device memory it views (shared with the tensors viewing the same storage). */
    readonly storage: Storage,
    /** Its element dtype. */
    readonly dtype: TensorDType,
    shape: readonly number[],
    strides: readonly number[],
    /** The storage element where index (0, ..., 0) is (PyTorch's `storage_offset()`). */
    readonly offset: number,
  ) {
    if (shape.length !== strides.length)
      throw new LoomError(
        `a tensor of shape [${shape.join(', ')}] needs ${shape.length} strides, got [${strides.join(', ')}]`,
      );
    if (shape.some((s) => !Number.isInteger(s) || s < 0))
      throw new LoomError(`invalid tensor shape [${shape.join(', ')}]`);
    if (strides.some((s) => !Number.isInteger(s)) || !Number.isInteger(offset))
      throw new LoomError('tensor strides and offset must be integers');
    if (componentDType(dtype) !== storage.dtype)
      throw new LoomError(
        `a tensor of ${dtype} cannot view a storage of ${storage.dtype} (it views its own component dtype, ${componentDType(dtype)}, only)`,
      );
    this.shape = Object.freeze([...shape]);
    this.strides = Object.freeze([...strides]);
    const [lo, hi] = extent(this);
    if (this.numel > 0 && (lo < 0 || (hi + 1) * lanes(dtype) > storage.length)) {
      throw new LoomError(
        `a view with shape [${shape.join(', ')}], strides [${strides.join(', ')}] and offset ${offset} reaches elements ${lo} to ${hi}, ` +
          `outside its storage of ${storage.length / lanes(dtype)} elements`,
      );
    }
  }

  /** The device its storage lives on. */
  get device(): Device {
    return this.storage.device;
  }

  /** The number of axes (PyTorch's `ndim`): 0 for a scalar tensor. */
  get ndim(): number {
    return this.shape.length;
  }

  /** The number of elements (PyTorch's `numel()`): the product of the shape, 1 for shape `[]`. */
  get numel(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /**
   * Row-major and gap-free: what `reshape` and a flat kernel like best. A tensor without elements is,
   * whatever its strides, as in PyTorch (the product of the sizes is 0 before an empty axis, so
   * `empty([2, 0, 4])`, strides `contiguousStrides` gives, was not, and `contiguous()` copied it).
   */
  isContiguous(): boolean {
    if (this.numel === 0) return true;
    let expected = 1;
    for (let d = this.ndim - 1; d >= 0; d--) {
      if (this.shape[d] !== 1 && this.strides[d] !== expected) return false;
      expected *= this.shape[d];
    }
    return true;
  }

  /** The same elements with axes reordered: axis k of the result is axis dims[k] of this one. */
  permute(...dims: number[]): Tensor {
    const axes = dims.map((d) => this.axis(d, 'permute'));
    if (axes.length !== this.ndim || new Set(axes).size !== this.ndim) {
      throw new LoomError(
        `permute: [${dims.join(', ')}] is not a permutation of the ${this.ndim} axes of a tensor of shape [${this.shape.join(', ')}]`,
      );
    }
    return this.view(
      axes.map((a) => this.shape[a]),
      axes.map((a) => this.strides[a]),
      this.offset,
    );
  }

  /** Swaps two axes. */
  transpose(dim0: number, dim1: number): Tensor {
    const order = this.shape.map((_, k) => k);
    const [a, b] = [this.axis(dim0, 'transpose'), this.axis(dim1, 'transpose')];
    [order[a], order[b]] = [order[b], order[a]];
    return this.permute(...order);
  }

  /** Reverses the given axes: a negative stride, starting from the last element. */
  flip(...dims: number[]): Tensor {
    const axes = dims.map((d) => this.axis(d, 'flip'));
    if (new Set(axes).size !== axes.length)
      throw new LoomError(`flip: an axis appears more than once in [${dims.join(', ')}]`);
    const strides = [...this.strides];
    let offset = this.offset;
    for (const a of axes) {
      if (this.shape[a] === 0) continue;
      offset += (this.shape[a] - 1) * strides[a];
      strides[a] = -strides[a];
    }
    return this.view(this.shape, strides, offset);
  }

  /**
   * Broadcasts to `sizes` without copying: new leading axes and axes of size 1 get
   * stride 0; -1 keeps an axis' size.
   */
  expand(...sizes: number[]): Tensor {
    const lead = sizes.length - this.ndim;
    if (lead < 0)
      throw new LoomError(
        `expand: [${sizes.join(', ')}] has fewer axes than the tensor's shape [${this.shape.join(', ')}]`,
      );
    const shape: number[] = [];
    const strides: number[] = [];
    sizes.forEach((size, k) => {
      const own = k - lead;
      if (own < 0) {
        if (size < 0)
          throw new LoomError(`expand: -1 is not allowed for a new leading axis (sizes [${sizes.join(', ')}])`);
        shape.push(size);
        strides.push(0);
      } else if (size === -1 || size === this.shape[own]) {
        shape.push(this.shape[own]);
        strides.push(this.strides[own]);
      } else if (this.shape[own] === 1) {
        shape.push(size);
        strides.push(0);
      } else {
        throw new LoomError(
          `expand: the tensor of shape [${this.shape.join(', ')}] cannot be expanded to [${sizes.join(', ')}]: axis ${own} has size ${this.shape[own]}, not 1`,
        );
      }
    });
    return this.view(shape, strides, this.offset);
  }

  /**
   * `t[start:end:step]` along one axis, as Python slices a list: negative indices count
   * from the end, a negative step walks backwards (start defaults to the last element),
   * and out-of-range bounds are clamped.
   */
  slice(dim: number, start?: number | null, end?: number | null, step = 1): Tensor {
    const a = this.axis(dim, 'slice');
    if (!Number.isInteger(step) || step === 0)
      throw new LoomError(`slice: the step must be a non-zero integer, got ${step}`);
    const n = this.shape[a];
    const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
    const resolve = (v: number | null | undefined, fallback: number, lo: number, hi: number) =>
      v === undefined || v === null ? fallback : clamp(v < 0 ? v + n : v, lo, hi);
    const from = step > 0 ? resolve(start, 0, 0, n) : resolve(start, n - 1, -1, n - 1);
    const to = step > 0 ? resolve(end, n, 0, n) : resolve(end, -1, -1, n - 1);
    const length = Math.max(0, Math.ceil((to - from) / step));
    const shape = [...this.shape];
    const strides = [...this.strides];
    shape[a] = length;
    strides[a] = this.strides[a] * step;
    return this.view(shape, strides, length > 0 ? this.offset + from * this.strides[a] : this.offset);
  }

  /**
   * The same elements in a new shape (one size may be -1), as a view: possible when each
   * run of axes that is merged or split is contiguous within itself. Otherwise copy
   * first with `contiguous(t)`.
   */
  reshape(...sizes: number[]): Tensor {
    const shape = inferSize(sizes, this.numel);
    const strides = viewStrides(this, shape);
    if (!strides) {
      throw new LoomError(
        `reshape: a tensor of shape [${this.shape.join(', ')}] and strides [${this.strides.join(', ')}] cannot be viewed as [${shape.join(', ')}]; ` +
          'copy it first with contiguous(t)',
      );
    }
    return this.view(shape, strides, this.offset);
  }

  /** The elements in row-major order, once every operation queued on the storage is done. */
  toArray(): Promise<HostArray> {
    return Storage.after([this.storage], async () => {
      const all = new (hostArrayConstructor(this.storage.dtype))(this.storage.length);
      if (all.byteLength > 0) await this.device.read(this.storage.buffer, all);
      return gather(all, this.dtype, this);
    });
  }

  /** Frees the storage (for every view of it) once the work queued on it is done. */
  release(): void {
    this.storage.release();
  }

  toString(): string {
    return `Tensor(${this.dtype}, shape [${this.shape.join(', ')}], strides [${this.strides.join(', ')}], offset ${this.offset}, on ${this.device.name})`;
  }

  /** A view with the same storage and dtype. */
  view(shape: readonly number[], strides: readonly number[], offset: number): Tensor {
    return new Tensor(this.storage, this.dtype, shape, strides, offset);
  }

  private axis(dim: number, what: string): number {
    const a = dim < 0 ? dim + this.ndim : dim;
    if (!Number.isInteger(dim) || a < 0 || a >= this.ndim) {
      throw new LoomError(
        `${what}: axis ${dim} is out of range for a tensor of ${this.ndim} axes (shape [${this.shape.join(', ')}])`,
      );
    }
    return a;
  }
}

/** The lowest and highest element a view reaches (meaningful when it has elements). */
export function extent(layout: Layout): [number, number] {
  let lo = layout.offset;
  let hi = layout.offset;
  layout.shape.forEach((size, d) => {
    if (size === 0) return;
    const span = (size - 1) * layout.strides[d];
    if (span < 0) lo += span;
    else hi += span;
  });
  return [lo, hi];
}

/** Row-major strides for `shape`. */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = step;
    step *= Math.max(shape[d], 1);
  }
  return strides;
}

function inferSize(sizes: readonly number[], numel: number): number[] {
  const unknown = sizes.filter((s) => s === -1).length;
  if (unknown > 1 || sizes.some((s) => !Number.isInteger(s) || s < -1))
    throw new LoomError(`reshape: invalid shape [${sizes.join(', ')}]`);
  const known = sizes.filter((s) => s !== -1).reduce((a, b) => a * b, 1);
  const shape = sizes.map((s) => (s === -1 ? (known === 0 ? 0 : numel / known) : s));
  const size = shape.reduce((a, b) => a * b, 1);
  if (size !== numel || shape.some((s) => !Number.isInteger(s))) {
    throw new LoomError(`reshape: shape [${sizes.join(', ')}] is invalid for a tensor of ${numel} elements`);
  }
  return shape;
}

/**
 * Strides that show `t`'s elements in `shape` (row-major order preserved), or
 * undefined when no strides can. Axes of size 1 constrain nothing; the others form
 * runs that are contiguous among themselves ("chunks"), and each new axis must fall
 * inside one chunk, splitting it evenly from the innermost side.
 */
function viewStrides(t: Layout & { readonly numel: number }, shape: readonly number[]): number[] | undefined {
  if (t.numel === 0) return contiguousStrides(shape);
  const chunks: { size: number; stride: number }[] = [];
  t.shape.forEach((size, d) => {
    if (size === 1) return;
    const last = chunks[chunks.length - 1];
    if (last && last.stride === t.strides[d] * size) {
      last.size *= size;
      last.stride = t.strides[d];
    } else {
      chunks.push({ size, stride: t.strides[d] });
    }
  });
  const strides = new Array<number>(shape.length).fill(0);
  let c = chunks.length - 1;
  let consumed = 1;
  for (let j = shape.length - 1; j >= 0; j--) {
    if (shape[j] === 1) continue;
    const chunk = chunks[c];
    if (!chunk || chunk.size % (consumed * shape[j]) !== 0) return undefined;
    strides[j] = chunk.stride * consumed;
    consumed *= shape[j];
    if (consumed === chunk.size) {
      c--;
      consumed = 1;
    }
  }
  if (c >= 0) return undefined;
  // axes of size 1 get the stride a contiguous tensor would give them
  for (let j = shape.length - 1; j >= 0; j--) {
    if (shape[j] === 1) strides[j] = j === shape.length - 1 ? 1 : strides[j + 1] * shape[j + 1];
  }
  return strides;
}

/** Options of `tensor` and `empty`: dtype and device. */
export interface TensorOptions {
  /** Where the data goes (default: the CPU device). */
  readonly device?: Device;
  /** Its dtype (default: the TypedArray's, or PyTorch's choice for JS values: int64, float32, bool, complex64). */
  readonly dtype?: TensorDType;
}

/** The options tensor() and empty() read; any other key is an error. */
const TENSOR_OPTIONS = optionKeys<TensorOptions>()(['device', 'dtype']);
const EMPTY_OPTIONS = optionKeys<TensorOptions & { readonly strides?: readonly number[] }>()([
  'device',
  'dtype',
  'strides',
]);

/**
 * A tensor holding `data`: a TypedArray (shape `[length]` unless `shape` is given),
 * nested arrays, or one scalar (a 0-dimensional tensor). The upload is queued and
 * every later use of the tensor waits for it.
 */
export function tensor(data: TensorData, shape?: readonly number[], options: TensorOptions = {}): Tensor {
  checkOptionKeys('tensor', options, TENSOR_OPTIONS);
  const dtype = options.dtype === undefined ? undefined : checkTensorDType(options.dtype);
  const host = hostTensorData(data, shape, dtype);
  // any device can hold any dtype's bytes; only kernels need to compute in it
  const device = options.device ?? defaultDevice();
  const storage = Storage.allocate(device, componentDType(host.dtype), host.components.length);
  const buffer = storage.buffer;
  if (host.components.byteLength > 0) void Storage.after([storage], () => device.write(buffer, host.components));
  return new Tensor(storage, host.dtype, host.shape, contiguousStrides(host.shape), 0);
}

/** A new tensor of `shape`, its elements not yet written (PyTorch's empty), row-major unless `strides` say otherwise. */
export function empty(
  shape: readonly number[],
  options: TensorOptions & { readonly strides?: readonly number[] } = {},
): Tensor {
  checkOptionKeys('empty', options, EMPTY_OPTIONS);
  const dtype = checkTensorDType(options.dtype ?? 'float32');
  const device = options.device ?? defaultDevice();
  const strides = options.strides ?? contiguousStrides(shape);
  const numel = shape.reduce((a, b) => a * b, 1);
  const span = numel === 0 ? 0 : extent({ shape, strides, offset: 0 })[1] + 1;
  if (numel > 0 && extent({ shape, strides, offset: 0 })[0] < 0)
    throw new LoomError('empty(): strides must not be negative');
  const storage = Storage.allocate(device, componentDType(dtype), span * lanes(dtype));
  return new Tensor(storage, dtype, shape, strides, 0);
}
