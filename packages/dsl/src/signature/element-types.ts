/**
 * The vocabulary of declared arguments: `.args({ a: f32('n'), out: f32.out('n'), alpha: f32.value() })`.
 *
 * One element type per dtype (`f32`, `i32`, ...), each a small vocabulary:
 *
 *   f32('n', 'm')       an input array of shape (n, m), float32
 *   f32()               an input array whose shape the kernel's accesses decide
 *   f32.out('n')        an output: `run` allocates it when not passed, and returns it
 *   f32.inout('n')      read and written: passed, and returned
 *   f32.value()         a scalar passed by value
 *
 * Vector element types (`f32x4('n')`: n `float4`s, OpenCL's vector types) take the lanes as a
 * last axis tagged `vec`: the data is a Float32Array of 4n, each vector's lanes adjacent, and
 * `a[i].x` / `a[i, k]` read them. They have no `.value()`.
 *
 * Names in shapes that are not declared otherwise are the kernel's integer parameters
 * (declared.ts says what signature all this gives).
 */
import type { DType } from '@loom/core';
import type { ArrayDecl, Mode, ShapeEntry, ValueDecl } from './arg-decls.ts';

type ShapeOf<Sh extends readonly ShapeEntry[]> = Sh extends readonly [] ? 'auto' : Sh;

/** One element type's vocabulary: `f32('n')`, `f32.out('n')`, `f32.inout('n')`, `f32.value()`. */
export interface ElementType<T extends DType> {
  <const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'in', ShapeOf<Sh>>;
  out<const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'out', ShapeOf<Sh>>;
  inout<const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'inout', ShapeOf<Sh>>;
  value(): ValueDecl<T>;
  readonly dtype: T;
}

function elementType<T extends DType>(dtype: T): ElementType<T> {
  const array =
    <M extends Mode>(mode: M) =>
    (...shape: ShapeEntry[]) =>
      Object.freeze({ kind: 'array', dtype, mode, shape: shape.length ? Object.freeze(shape) : 'auto' });
  return Object.freeze(
    Object.assign(array('in'), {
      out: array('out'),
      inout: array('inout'),
      value: () => Object.freeze({ kind: 'value' as const, dtype }),
      dtype,
    }),
  ) as unknown as ElementType<T>;
}

export const bool = elementType('bool');
export const i8 = elementType('int8');
export const i16 = elementType('int16');
export const i32 = elementType('int32');
export const i64 = elementType('int64');
export const u8 = elementType('uint8');
export const u16 = elementType('uint16');
export const u32 = elementType('uint32');
export const u64 = elementType('uint64');
export const f16 = elementType('float16');
export const f32 = elementType('float32');
export const f64 = elementType('float64');

/** A vector element type: `f32x4('n')`, `f32x4.out('n')`, `f32x4.inout('n')` (no values). */
export interface VectorElementType<T extends DType> {
  <const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'in', ShapeOf<Sh>>;
  out<const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'out', ShapeOf<Sh>>;
  inout<const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'inout', ShapeOf<Sh>>;
  readonly dtype: T;
  readonly lanes: 2 | 3 | 4 | 8 | 16;
}

function vectorType<T extends DType>(dtype: T, lanes: 2 | 3 | 4 | 8 | 16): VectorElementType<T> {
  const array =
    <M extends Mode>(mode: M) =>
    (...shape: ShapeEntry[]) =>
      Object.freeze({ kind: 'array', dtype, mode, shape: shape.length ? Object.freeze(shape) : 'auto', lanes });
  return Object.freeze(Object.assign(array('in'), { out: array('out'), inout: array('inout'), dtype, lanes })) as unknown as VectorElementType<T>;
}

export const f32x2 = vectorType('float32', 2);
export const f32x3 = vectorType('float32', 3);
export const f32x4 = vectorType('float32', 4);
export const f32x8 = vectorType('float32', 8);
export const f32x16 = vectorType('float32', 16);
export const f64x2 = vectorType('float64', 2);
export const f64x3 = vectorType('float64', 3);
export const f64x4 = vectorType('float64', 4);
export const f64x8 = vectorType('float64', 8);
export const f64x16 = vectorType('float64', 16);
export const i32x2 = vectorType('int32', 2);
export const i32x3 = vectorType('int32', 3);
export const i32x4 = vectorType('int32', 4);
export const i32x8 = vectorType('int32', 8);
export const i32x16 = vectorType('int32', 16);
export const u32x2 = vectorType('uint32', 2);
export const u32x3 = vectorType('uint32', 3);
export const u32x4 = vectorType('uint32', 4);
export const u32x8 = vectorType('uint32', 8);
export const u32x16 = vectorType('uint32', 16);
export const i8x4 = vectorType('int8', 4);
export const u8x4 = vectorType('uint8', 4);
