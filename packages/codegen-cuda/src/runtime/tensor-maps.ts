/**
 * Tensor maps (the driver's `CUtensorMap`), what bulk copies read global memory through: a view of a
 * buffer as up to five axes, the first contiguous, read in boxes. This module turns Loom's view
 * (codegen-cfamily's `TensorMapSpec`) into the arguments of `cuTensorMapEncodeTiled`, which the
 * context (`CudaContext.encodeTensorMap`) passes with the buffer's address.
 */
import { LoomError } from '@loom/core';

/** A view of a buffer for bulk copies (`CudaContext.encodeTensorMap`): its axes, the first contiguous. */
export interface TensorMapView {
  /** The bytes of an element. */
  readonly elementBytes: number;
  /** The swizzle the box lands in shared memory with: 32, 64 or 128 bytes, or 0. */
  readonly swizzle: number;
  /**
   * The axes, first (contiguous) first: the stride in elements, the box's elements along it, and the
   * axis's extent (undefined: as many of its strides as the buffer holds).
   */
  readonly axes: readonly { readonly stride: number; readonly box: number; readonly extent: number | undefined }[];
}

/** CUtensorMapSwizzle by span in bytes (none, 32, 64, 128). */
const SWIZZLES: Readonly<Record<number, number>> = { 0: 0, 32: 1, 64: 2, 128: 3 };

/** CUtensorMapDataType by element bytes: unsigned integers of that width (a copy moves bits). */
const DATA_TYPES: Readonly<Record<number, number>> = { 1: 0, 2: 1, 4: 2, 8: 4 };

/**
 * The arguments of `cuTensorMapEncodeTiled` for `view` of a buffer of `bufferBytes` (but the map
 * and the address), and a description for its errors; a LoomError naming `use` where no map can be.
 */
export function tensorMapEncoding(view: TensorMapView, bufferBytes: number, use: string) {
  const { elementBytes, axes } = view;
  const elements = Math.floor(bufferBytes / elementBytes);
  const extents = axes.map((a) => a.extent ?? Math.floor(elements / a.stride));
  if (extents.some((e) => e < 1))
    throw new LoomError(`${use}: the buffer of ${bufferBytes} bytes is too small for the tile its copies read`);
  const dataType = DATA_TYPES[elementBytes];
  if (dataType === undefined) throw new LoomError(`${use}: no tensor map moves elements of ${elementBytes} bytes`);
  return {
    dataType,
    rank: axes.length,
    dims: BigUint64Array.from(extents, (e) => BigInt(e)),
    strides: BigUint64Array.from(axes.slice(1), (a) => BigInt(a.stride * elementBytes)),
    box: Uint32Array.from(axes, (a) => a.box),
    elementStrides: Uint32Array.from(axes, () => 1),
    // the box lands in shared memory swizzled as the array is
    swizzle: SWIZZLES[view.swizzle] ?? 0,
    description: `${axes.length} axes of ${axes.map((a, i) => `${a.box} of ${extents[i]} elements, ${a.stride} apart`).join('; ')}`,
  };
}
