/** What a declared argument is: an array (element type, mode, shape) or a value. */
import type { DType } from '@loom/core';

/** An array argument's direction. */
export type Mode = 'in' | 'out' | 'inout';
/** An axis of a declared shape: a parameter's name or a length. */
export type ShapeEntry = string | number;

/** An array argument declared with an element type (`f32('n')`). */
export interface ArrayDecl<
  T extends DType = DType,
  M extends Mode = Mode,
  Sh extends readonly ShapeEntry[] | 'auto' = readonly ShapeEntry[] | 'auto',
> {
  /** An array (not a value). */
  readonly kind: 'array';
  /** Its element dtype. */
  readonly dtype: T;
  /** `'in'`, `'out'` or `'inout'`. */
  readonly mode: M;
  /** Its axes: parameter names or lengths; `'auto'`: what the kernel's accesses need. */
  readonly shape: Sh;
  /** A vector element type (`f32x4`): each element is this many lanes, adjacent in the data. */
  readonly lanes?: 2 | 3 | 4 | 8 | 16;
}

/** A scalar argument declared with an element type (`i32.value()`). */
export interface ValueDecl<T extends DType = DType> {
  /** A scalar (not an array). */
  readonly kind: 'value';
  /** Its dtype. */
  readonly dtype: T;
}

/** An argument declaration. */
export type ArgDecl = ArrayDecl | ValueDecl;
/** Argument declarations by name, as `.args()` takes them. */
export type ArgDecls = { readonly [name: string]: ArgDecl };
