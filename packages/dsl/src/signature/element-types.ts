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
  /** An output array of this shape (no shape: the kernel's accesses decide it): `run` allocates it when not passed, and returns it. */
  out<const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'out', ShapeOf<Sh>>;
  /** An array the kernel reads and writes: passed, and returned. */
  inout<const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'inout', ShapeOf<Sh>>;
  /** A scalar argument, passed by value. */
  value(): ValueDecl<T>;
  /** The dtype it declares. */
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

/** bool arguments: `bool('n')` an input array, `bool.out('n')` an output, `bool.inout('n')` both, `bool.value()` a scalar. */
export const bool = elementType('bool');
/** int8 arguments: `i8('n')` an input array, `i8.out('n')` an output, `i8.inout('n')` both, `i8.value()` a scalar. */
export const i8 = elementType('int8');
/** int16 arguments: `i16('n')` an input array, `i16.out('n')` an output, `i16.inout('n')` both, `i16.value()` a scalar. */
export const i16 = elementType('int16');
/** int32 arguments: `i32('n')` an input array, `i32.out('n')` an output, `i32.inout('n')` both, `i32.value()` a scalar. */
export const i32 = elementType('int32');
/** int64 arguments: `i64('n')` an input array, `i64.out('n')` an output, `i64.inout('n')` both, `i64.value()` a scalar. */
export const i64 = elementType('int64');
/** uint8 arguments: `u8('n')` an input array, `u8.out('n')` an output, `u8.inout('n')` both, `u8.value()` a scalar. */
export const u8 = elementType('uint8');
/** uint16 arguments: `u16('n')` an input array, `u16.out('n')` an output, `u16.inout('n')` both, `u16.value()` a scalar. */
export const u16 = elementType('uint16');
/** uint32 arguments: `u32('n')` an input array, `u32.out('n')` an output, `u32.inout('n')` both, `u32.value()` a scalar. */
export const u32 = elementType('uint32');
/** uint64 arguments: `u64('n')` an input array, `u64.out('n')` an output, `u64.inout('n')` both, `u64.value()` a scalar. */
export const u64 = elementType('uint64');
/** float16 arguments: `f16('n')` an input array, `f16.out('n')` an output, `f16.inout('n')` both, `f16.value()` a scalar. */
export const f16 = elementType('float16');
/** bfloat16 arguments (held as their bits, a Uint16Array): `bf16('n')` an input array, `bf16.out('n')`, `bf16.inout('n')`, `bf16.value()`. */
export const bf16 = elementType('bfloat16');
/** float32 arguments: `f32('n')` an input array, `f32.out('n')` an output, `f32.inout('n')` both, `f32.value()` a scalar. */
export const f32 = elementType('float32');
/** float64 arguments: `f64('n')` an input array, `f64.out('n')` an output, `f64.inout('n')` both, `f64.value()` a scalar. */
export const f64 = elementType('float64');

/** A vector element type: `f32x4('n')`, `f32x4.out('n')`, `f32x4.inout('n')` (no values). */
export interface VectorElementType<T extends DType> {
  <const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'in', ShapeOf<Sh>>;
  /** An output array of vectors of this shape: `run` allocates it when not passed, and returns it. */
  out<const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'out', ShapeOf<Sh>>;
  /** An array of vectors the kernel reads and writes: passed, and returned. */
  inout<const Sh extends readonly ShapeEntry[]>(...shape: Sh): ArrayDecl<T, 'inout', ShapeOf<Sh>>;
  /** The dtype of a lane. */
  readonly dtype: T;
  /** Lanes per vector. */
  readonly lanes: 2 | 3 | 4 | 8 | 16;
}

function vectorType<T extends DType>(dtype: T, lanes: 2 | 3 | 4 | 8 | 16): VectorElementType<T> {
  const array =
    <M extends Mode>(mode: M) =>
    (...shape: ShapeEntry[]) =>
      Object.freeze({ kind: 'array', dtype, mode, shape: shape.length ? Object.freeze(shape) : 'auto', lanes });
  return Object.freeze(
    Object.assign(array('in'), { out: array('out'), inout: array('inout'), dtype, lanes }),
  ) as unknown as VectorElementType<T>;
}

/** Arrays of 2-lane float32 vectors: `f32x2('n')`, `f32x2.out('n')`, `f32x2.inout('n')`. */
export const f32x2 = vectorType('float32', 2);
/** Arrays of 3-lane float32 vectors: `f32x3('n')`, `f32x3.out('n')`, `f32x3.inout('n')`. */
export const f32x3 = vectorType('float32', 3);
/** Arrays of 4-lane float32 vectors: `f32x4('n')`, `f32x4.out('n')`, `f32x4.inout('n')`. */
export const f32x4 = vectorType('float32', 4);
/** Arrays of 8-lane float32 vectors: `f32x8('n')`, `f32x8.out('n')`, `f32x8.inout('n')`. */
export const f32x8 = vectorType('float32', 8);
/** Arrays of 16-lane float32 vectors: `f32x16('n')`, `f32x16.out('n')`, `f32x16.inout('n')`. */
export const f32x16 = vectorType('float32', 16);
/** Arrays of 2-lane float64 vectors: `f64x2('n')`, `f64x2.out('n')`, `f64x2.inout('n')`. */
export const f64x2 = vectorType('float64', 2);
/** Arrays of 3-lane float64 vectors: `f64x3('n')`, `f64x3.out('n')`, `f64x3.inout('n')`. */
export const f64x3 = vectorType('float64', 3);
/** Arrays of 4-lane float64 vectors: `f64x4('n')`, `f64x4.out('n')`, `f64x4.inout('n')`. */
export const f64x4 = vectorType('float64', 4);
/** Arrays of 8-lane float64 vectors: `f64x8('n')`, `f64x8.out('n')`, `f64x8.inout('n')`. */
export const f64x8 = vectorType('float64', 8);
/** Arrays of 16-lane float64 vectors: `f64x16('n')`, `f64x16.out('n')`, `f64x16.inout('n')`. */
export const f64x16 = vectorType('float64', 16);
/** Arrays of 2-lane int32 vectors: `i32x2('n')`, `i32x2.out('n')`, `i32x2.inout('n')`. */
export const i32x2 = vectorType('int32', 2);
/** Arrays of 3-lane int32 vectors: `i32x3('n')`, `i32x3.out('n')`, `i32x3.inout('n')`. */
export const i32x3 = vectorType('int32', 3);
/** Arrays of 4-lane int32 vectors: `i32x4('n')`, `i32x4.out('n')`, `i32x4.inout('n')`. */
export const i32x4 = vectorType('int32', 4);
/** Arrays of 8-lane int32 vectors: `i32x8('n')`, `i32x8.out('n')`, `i32x8.inout('n')`. */
export const i32x8 = vectorType('int32', 8);
/** Arrays of 16-lane int32 vectors: `i32x16('n')`, `i32x16.out('n')`, `i32x16.inout('n')`. */
export const i32x16 = vectorType('int32', 16);
/** Arrays of 2-lane uint32 vectors: `u32x2('n')`, `u32x2.out('n')`, `u32x2.inout('n')`. */
export const u32x2 = vectorType('uint32', 2);
/** Arrays of 3-lane uint32 vectors: `u32x3('n')`, `u32x3.out('n')`, `u32x3.inout('n')`. */
export const u32x3 = vectorType('uint32', 3);
/** Arrays of 4-lane uint32 vectors: `u32x4('n')`, `u32x4.out('n')`, `u32x4.inout('n')`. */
export const u32x4 = vectorType('uint32', 4);
/** Arrays of 8-lane uint32 vectors: `u32x8('n')`, `u32x8.out('n')`, `u32x8.inout('n')`. */
export const u32x8 = vectorType('uint32', 8);
/** Arrays of 16-lane uint32 vectors: `u32x16('n')`, `u32x16.out('n')`, `u32x16.inout('n')`. */
export const u32x16 = vectorType('uint32', 16);
/** Arrays of 4-lane int8 vectors: `i8x4('n')`, `i8x4.out('n')`, `i8x4.inout('n')`. */
export const i8x4 = vectorType('int8', 4);
/** Arrays of 4-lane uint8 vectors: `u8x4('n')`, `u8x4.out('n')`, `u8x4.inout('n')`. */
export const u8x4 = vectorType('uint8', 4);
