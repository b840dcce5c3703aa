/**
 * The element types a tensor can have: the core's dtypes, complex64 and complex128
 * included. A complex tensor is stored as pairs of reals (real part, then imaginary
 * part) in an array of its component dtype, as complex kernel arguments are, and
 * kernels expand complex arithmetic into real arithmetic on those pairs — so every
 * device that can hold float32 can hold complex64.
 */
import {
  DTYPES,
  hostArrayConstructor,
  isDType,
  LoomError,
  type ComplexDType,
  type DType,
  type HostArray,
} from '@loom/core';

export type { ComplexDType };
/** A tensor's dtype: any of Loom's. */
export type TensorDType = DType;

/** Every tensor dtype. */
export const TENSOR_DTYPES: readonly TensorDType[] = DTYPES;

export function isTensorDType(name: unknown): name is TensorDType {
  return typeof name === 'string' && (TENSOR_DTYPES as readonly string[]).includes(name);
}

/** Whether `t` is a complex dtype. */
export const isComplex = (t: TensorDType): t is ComplexDType => t === 'complex64' || t === 'complex128';
export const isFloating = (t: TensorDType) => t === 'float16' || t === 'bfloat16' || t === 'float32' || t === 'float64';
/** Integer dtypes, bool excluded (as PyTorch's `is_integer_dtype`). */
export const isIntegral = (t: TensorDType) => t !== 'bool' && !isFloating(t) && !isComplex(t);

/** The dtype of one stored number: a complex's real and imaginary parts, else the dtype itself. */
export function componentDType(t: TensorDType): DType {
  if (t === 'complex64') return 'float32';
  if (t === 'complex128') return 'float64';
  return t;
}

/** How many stored numbers make one element: two for complex dtypes. */
export const lanes = (t: TensorDType): 1 | 2 => (isComplex(t) ? 2 : 1);

/** The complex dtype whose parts are `t` (PyTorch's corresponding_complex_dtype). */
export function complexWithParts(t: TensorDType): ComplexDType {
  if (isComplex(t)) return t;
  if (t === 'float64') return 'complex128';
  if (t === 'float32') return 'complex64';
  // PyTorch would answer complex32 (two float16s), which it barely supports itself
  throw new LoomError(`there is no complex dtype with ${t} parts here (PyTorch's complex32 is not supported)`);
}

/** A tensor dtype from a name, or a LoomError listing the known ones. */
export function checkTensorDType(name: unknown, what = 'dtype'): TensorDType {
  if (isTensorDType(name)) return name;
  throw new LoomError(`unknown ${what} '${String(name)}' (known: ${TENSOR_DTYPES.join(', ')})`);
}

/**
 * The host TypedArray for `n` elements of `t`: bool as Uint8Array, float16 as the
 * Uint16Array of its bits (as the core does), complex as interleaved parts.
 */
export function hostArrayFor(t: TensorDType, n: number): HostArray {
  const Ctor = hostArrayConstructor(componentDType(t));
  return new Ctor(n * lanes(t));
}

export { isDType };
