/**
 * Where a transform along one axis of an n-dimensional array finds its elements: every other
 * axis is an iname of its own (`a0`, `a1`, ...: the batch), and the transformed axis is indexed
 * by an expression. Kernels read and write the arrays with their own shapes, so that
 * transformations attached to the computation's parameters fuse into the loads and stores.
 */
import { complexPart, isComplex, LoomError, type DType } from '@loom/core';

export interface AxisLayout {
  /** The array's shape; `shape[axis]` is the transform's size (or Bluestein's padded size). */
  readonly shape: readonly number[];
  /** The transformed axis. */
  readonly axis: number;
}

/** The iname of batch axis `m`. */
export const batchIname = (m: number): string => `a${m}`;

/** The batch axes (every axis but the transformed one), outermost first. */
export const batchAxes = (layout: AxisLayout): number[] =>
  layout.shape.map((_, m) => m).filter((m) => m !== layout.axis);

/** `array[a0, ..., k, ...]`: the element `k` along the axis of the current batch index. */
export function element(array: string, layout: AxisLayout, k: string, inames = batchIname): string {
  const idx = layout.shape.map((_, m) => (m === layout.axis ? k : inames(m)));
  return `${array}[${idx.join(', ')}]`;
}

/** The domain's conditions on the batch inames. */
export function batchBounds(layout: AxisLayout, axes = batchAxes(layout)): string[] {
  return axes.map((m) => `0 <= ${batchIname(m)} < ${layout.shape[m]}`);
}

/** The shape with the transformed axis of another size. */
export function withAxisSize(layout: AxisLayout, size: number): AxisLayout {
  return { shape: layout.shape.map((n, m) => (m === layout.axis ? size : n)), axis: layout.axis };
}

/** The real dtype of a complex one's parts; anything else is refused. */
export function partDtype(dtype: DType, what: string): DType {
  if (!isComplex(dtype)) throw new LoomError(`${what} requires an array of a complex dtype, got ${dtype}`);
  return complexPart(dtype);
}

/**
 * What the first and last kernels of the whole transform add: the inverse as the conjugate
 * of the forward transform of the conjugate, divided by the number of points
 * (ifft(x) = conj(fft(conj(x))) / N), decided at launch by the `inverse` argument.
 */
export interface Direction {
  /** Conjugate the input as it is loaded, when `inverse` is non-zero. */
  readonly conjugateIn: boolean;
  /** Conjugate the output and divide by this as it is stored, when `inverse` is non-zero; 0: neither. */
  readonly scaleOut: number;
}

/** The load of `value` (a private name) for `d`. */
export const loaded = (value: string, d: Direction): string =>
  d.conjugateIn ? `if(inverse != 0, conj(${value}), ${value})` : value;

/** The value stored for `d`. */
export const stored = (value: string, d: Direction): string =>
  d.scaleOut ? `if(inverse != 0, conj(${value}) * ${1 / d.scaleOut}, ${value})` : value;

/** Whether a kernel for `d` takes the `inverse` value argument. */
export const takesInverse = (d: Direction): boolean => d.conjugateIn || d.scaleOut !== 0;
