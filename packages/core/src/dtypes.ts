/**
 * Element types, named as numpy names them. A dtype is just its name; this module
 * knows their properties and numpy's promotion rules.
 *
 * Complex dtypes are pairs of reals (real part, then imaginary part), stored interleaved in
 * an array of their part's dtype: a complex64 array of n elements is a Float32Array of 2n
 * numbers on the host and on every device. Kernels compute on the parts: complex
 * arithmetic is lowered to real arithmetic before code generation (kernel/complex.ts), so
 * no target ever sees a complex value.
 */
import { bfloat16Bits } from './bfloat16.ts';
import { float16Bits } from './float16.ts';
/** The complex dtypes: pairs of float32 or float64 parts, stored interleaved. */
export type ComplexDType = 'complex64' | 'complex128';
/** The real dtypes, named as numpy names them. */
export type RealDType =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'float16'
  | 'bfloat16'
  | 'float32'
  | 'float64';
/** An element type, named as numpy names it (`'float32'`, `'int64'`, `'complex64'`...). */
export type DType = RealDType | ComplexDType;

/** Every dtype Loom knows, reals then complex. */
export const DTYPES: readonly DType[] = [
  'bool',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'float16',
  'bfloat16',
  'float32',
  'float64',
  'complex64',
  'complex128',
];

/** Whether `name` is a dtype's name. */
export function isDType(name: string): name is DType {
  return (DTYPES as readonly string[]).includes(name);
}

/** Whether `t` is a real floating-point dtype. */
export const isFloat = (t: DType) => t === 'float16' || t === 'bfloat16' || t === 'float32' || t === 'float64';
/** The 16-bit float dtypes: held in 16-bit words wherever they are stored (their bits on the host). */
export type NarrowFloat = 'float16' | 'bfloat16';
/** Whether `t` is a 16-bit float dtype (float16 or bfloat16). */
export const isNarrowFloat = (t: DType): t is NarrowFloat => t === 'float16' || t === 'bfloat16';
/** Whether `t` is a complex dtype. */
export const isComplex = (t: DType): t is ComplexDType => t === 'complex64' || t === 'complex128';
/** Whether `t` holds negative values (signed integers and floats). */
export const isSigned = (t: DType) => t.startsWith('int') || isFloat(t);
/** Whether `t` is an integer dtype (signed or unsigned; not `bool`). */
export const isInteger = (t: DType) => t !== 'bool' && !isFloat(t) && !isComplex(t);

/** The dtype of a complex's parts (float32 for complex64, float64 for complex128); a real dtype itself. */
export function complexPart(t: DType): RealDType {
  return t === 'complex64' ? 'float32' : t === 'complex128' ? 'float64' : t;
}

/** The complex dtype with parts of float dtype `t` (float16 parts do not exist: complex64). */
export function complexWithPart(t: DType): ComplexDType {
  return isComplex(t) ? t : t === 'float64' ? 'complex128' : 'complex64';
}

/** Bytes per element of `t` (a complex element is both parts). */
export function byteSize(t: DType): number {
  switch (t) {
    case 'bool':
    case 'int8':
    case 'uint8':
      return 1;
    case 'int16':
    case 'uint16':
    case 'float16':
    case 'bfloat16':
      return 2;
    case 'int32':
    case 'uint32':
    case 'float32':
      return 4;
    case 'complex128':
      return 16;
    default:
      return 8;
  }
}

/** The TypedArray constructor that holds a dtype's values on the host (a complex's parts, interleaved: two per element). */
export type HostArray =
  | Uint8Array
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

/** The TypedArray that holds each dtype on the host, by dtype (what `run` takes and returns). */
export interface HostArrays {
  /** How bool arrays are held on the host (0 or 1 per element). */
  bool: Uint8Array;
  /** How int8 arrays are held on the host. */
  int8: Int8Array;
  /** How int16 arrays are held on the host. */
  int16: Int16Array;
  /** How int32 arrays are held on the host. */
  int32: Int32Array;
  /** How int64 arrays are held on the host (bigints). */
  int64: BigInt64Array;
  /** How uint8 arrays are held on the host. */
  uint8: Uint8Array;
  /** How uint16 arrays are held on the host. */
  uint16: Uint16Array;
  /** How uint32 arrays are held on the host. */
  uint32: Uint32Array;
  /** How uint64 arrays are held on the host (bigints). */
  uint64: BigUint64Array;
  /** How float16 arrays are held on the host (each element as its bits). */
  float16: Uint16Array;
  /** How bfloat16 arrays are held on the host (each element as its bits: a float32's upper half). */
  bfloat16: Uint16Array;
  /** How float32 arrays are held on the host. */
  float32: Float32Array;
  /** How float64 arrays are held on the host. */
  float64: Float64Array;
  /** Interleaved parts: real, imaginary, real, ... */
  complex64: Float32Array;
  /** Interleaved parts, as for complex64. */
  complex128: Float64Array;
}

/** The typed-array constructor that holds `t` on the host (float16: its bits in a Uint16Array; complex: its parts). */
export function hostArrayConstructor(t: DType) {
  switch (t) {
    case 'bool':
    case 'uint8':
      return Uint8Array;
    case 'int8':
      return Int8Array;
    case 'int16':
      return Int16Array;
    case 'uint16':
    case 'float16':
    case 'bfloat16':
      return Uint16Array;
    case 'int32':
      return Int32Array;
    case 'uint32':
      return Uint32Array;
    case 'int64':
      return BigInt64Array;
    case 'uint64':
      return BigUint64Array;
    case 'float32':
    case 'complex64':
      return Float32Array;
    case 'float64':
    case 'complex128':
      return Float64Array;
  }
}

/**
 * Numbers as a host array of `dtype` (float16 as its bits, 64-bit integers as bigints, a
 * complex dtype's parts interleaved: two numbers per element).
 */
export function hostArrayOf(dtype: DType, values: readonly number[]): HostArray {
  const Ctor = hostArrayConstructor(dtype);
  if (dtype === 'float16') return Uint16Array.from(values, float16Bits);
  if (dtype === 'bfloat16') return Uint16Array.from(values, bfloat16Bits);
  if (Ctor === BigInt64Array || Ctor === BigUint64Array)
    return (Ctor as BigInt64ArrayConstructor).from(values.map((v) => BigInt(v)));
  return (Ctor as Float64ArrayConstructor).from(values);
}

/** How many host array entries hold one element: two for a complex dtype (its parts), else one. */
export const hostLanes = (t: DType): 1 | 2 => (isComplex(t) ? 2 : 1);

/** The dtype a host TypedArray carries (Uint8Array is uint8; bool must be declared). */
export function dtypeOfHostArray(a: unknown): DType | undefined {
  if (a instanceof Float32Array) return 'float32';
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof Uint32Array) return 'uint32';
  if (a instanceof Int16Array) return 'int16';
  if (a instanceof Uint16Array) return 'uint16';
  if (a instanceof Int8Array) return 'int8';
  if (a instanceof Uint8Array) return 'uint8';
  if (a instanceof BigInt64Array) return 'int64';
  if (a instanceof BigUint64Array) return 'uint64';
  return undefined;
}

const INT_ORDER: DType[] = ['int8', 'int16', 'int32', 'int64'];
const UINT_ORDER: DType[] = ['uint8', 'uint16', 'uint32', 'uint64'];
/** A float's rank by width: float16 and bfloat16 below float32, below float64. */
const floatRank = (t: DType) => (t === 'float64' ? 2 : t === 'float32' ? 1 : 0);

/**
 * The result type of a binary operation on two strongly typed operands. Within a
 * category (ints, floats) this is numpy's rule. Across categories it is PyTorch's
 * (and C's): an integer meets a float in that float's type — `a[i] + i` on float32
 * data stays float32 instead of becoming float64, which no GPU wants and WGSL lacks.
 * Literals are weak and handled by the caller (`combineTypes`).
 */
export function promote(a: DType, b: DType): DType {
  if (a === b) return a;
  if (a === 'bool') return b;
  if (b === 'bool') return a;
  if (isComplex(a) || isComplex(b)) {
    // a complex meets anything in a complex type, wide enough for float64 parts (numpy, PyTorch)
    const wide = [a, b].some((t) => t === 'complex128' || t === 'float64');
    return wide ? 'complex128' : 'complex64';
  }
  if (isFloat(a) || isFloat(b)) {
    // float16 and bfloat16 hold each other's values in neither: float32 holds both (PyTorch's rule)
    if (isNarrowFloat(a) && isNarrowFloat(b)) return 'float32';
    if (isFloat(a) && isFloat(b)) return floatRank(a) >= floatRank(b) ? a : b;
    return isFloat(a) ? a : b;
  }
  const aSigned = a.startsWith('int');
  const bSigned = b.startsWith('int');
  if (aSigned === bSigned) {
    const order = aSigned ? INT_ORDER : UINT_ORDER;
    return order[Math.max(order.indexOf(a), order.indexOf(b))];
  }
  const s = aSigned ? a : b;
  const u = aSigned ? b : a;
  // a signed type that holds every value of the unsigned one
  const needed = byteSize(u) * 2;
  if (needed > 8) return 'float64';
  return INT_ORDER[
    Math.max(
      INT_ORDER.indexOf(s),
      INT_ORDER.findIndex((t) => byteSize(t) >= needed),
    )
  ];
}
