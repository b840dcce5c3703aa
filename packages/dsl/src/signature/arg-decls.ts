/** What a declared argument is: an array (element type, mode, shape) or a value. */
import type { DType } from '@loom/core';

export type Mode = 'in' | 'out' | 'inout';
export type ShapeEntry = string | number;

export interface ArrayDecl<T extends DType = DType, M extends Mode = Mode, Sh extends readonly ShapeEntry[] | 'auto' = readonly ShapeEntry[] | 'auto'> {
  readonly kind: 'array';
  readonly dtype: T;
  readonly mode: M;
  readonly shape: Sh;
  /** A vector element type (`f32x4`): each element is this many lanes, adjacent in the data. */
  readonly lanes?: 2 | 3 | 4 | 8 | 16;
}

export interface ValueDecl<T extends DType = DType> {
  readonly kind: 'value';
  readonly dtype: T;
}

export type ArgDecl = ArrayDecl | ValueDecl;
export type ArgDecls = { readonly [name: string]: ArgDecl };
