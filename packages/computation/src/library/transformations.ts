/**
 * Reikna's ready-made transformations (reikna/transformations.py). Each takes the type of
 * the array it will be attached to (`{ dtype, shape }`: a parameter, a temporary, any
 * such object; without `shape` it fits any shape) and returns a transformation whose
 * parameters are named as Reikna names them: `output`, `input`, `param`...
 *
 *   comp.attach('C', mulConst(comp.parameter('C'), 2.5), 'input', { output: 'scaled' })
 *   attach(kernel, 'a', cast({ dtype: 'int32' }, 'float32'), 'output', { input: 'a_int' })
 *
 * Complex arrays are arrays of complex64 or complex128 (as every kernel takes them): the
 * constants of `addConst`, `mulConst`, `divConst` and `broadcastConst` may be complex (`{ re, im }`
 * or `[re, im]`), `splitComplex` and `combineComplex` go between a complex array and two real
 * ones, and `normConst` and `normParam` of a complex array are real, as Reikna's are.
 */
import { complexPart, isComplex, LoomError, type ComplexScalar, type DType } from '@loom/core';
import { transformation, type Transformation } from '../transformation/transformation.ts';

/** The type of an array a transformation is made for; no shape: any. */
export interface ArrayType<D extends DType = DType> {
  /** The element dtype. */
  readonly dtype: D;
  /** The shape; absent for a scalar. */
  readonly shape?: readonly number[];
}

type Out<D extends DType, N extends string = 'output'> = {
  readonly name: N;
  readonly dtype: D;
  readonly shape: readonly number[] | undefined;
  readonly role: 'o';
};
type In<D extends DType, N extends string = 'input'> = {
  readonly name: N;
  readonly dtype: D;
  readonly shape: readonly number[] | undefined;
  readonly role: 'i';
};
type Scalar<D extends DType, N extends string = 'param'> = { readonly name: N; readonly dtype: D; readonly role: 's' };

/** The dtype of a complex dtype's parts; a real dtype is its own (Reikna's `real_for` where the input is complex). */
export type RealOf<D extends DType> = D extends 'complex64' ? 'float32' : D extends 'complex128' ? 'float64' : D;

const realOf = <D extends DType>(dtype: D) => complexPart(dtype) as RealOf<D>;

/**
 * A constant as a literal of the expression language: a number (integers as integers, so
 * `x * 2` stays in x's type), or a complex one, `{ re, im }` or `[re, im]`, as `(re + imj)`
 * (a weak literal: beside complex64 data it stays complex64).
 */
function literal(value: number | ComplexScalar, what: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  const parts = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null && 're' in value && 'im' in value
      ? [value.re, value.im]
      : undefined;
  if (parts?.length !== 2 || !parts.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw new LoomError(
      `${what}: the constant must be a finite number or a complex one ({ re, im } or [re, im]), got ${JSON.stringify(value) ?? String(value)}`,
    );
  const [re, im] = parts as [number, number];
  return `(${re} ${Object.is(im, -0) || im < 0 ? '-' : '+'} ${Math.abs(im)}j)`;
}

function checkType(arr: ArrayType, what: string): void {
  if (typeof arr !== 'object' || arr === null || typeof arr.dtype !== 'string')
    throw new LoomError(`${what}: give the array's type, { dtype, shape }`);
}

const shapeOf = (arr: ArrayType) => arr.shape;

/** `output = input` (Reikna's `copy`); `out` may differ only in ... nothing Loom arrays have, so it must match. */
export function copy<D extends DType>(
  arr: ArrayType<D>,
  out: ArrayType<D> = arr,
): Transformation<readonly [Out<D>, In<D>], 'output' | 'input'> {
  checkType(arr, 'copy');
  if (out.dtype !== arr.dtype || (out.shape && arr.shape && out.shape.join() !== arr.shape.join()))
    throw new LoomError('copy: input and output arrays must have the same shape and data type');
  return transformation({
    name: 'copy',
    params: [
      { name: 'output', dtype: arr.dtype, shape: shapeOf(out), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
    ] as const satisfies readonly [Out<D>, In<D>],
    body: 'storeSame(output, loadSame(input))',
  });
}

/**
 * `output = input`, where `input` broadcasts to `output`'s shape as numpy.broadcast_to does:
 * its axes match `output`'s last ones or have size 1. What kernels read only.
 */
export function copyBroadcasted<D extends DType>(
  arr: ArrayType<D> & { readonly shape: readonly number[] },
  out: ArrayType<D> & { readonly shape: readonly number[] },
): Transformation<readonly [Out<D>, In<D>], 'output'> {
  checkType(arr, 'copyBroadcasted');
  if (out.dtype !== arr.dtype)
    throw new LoomError('copyBroadcasted: input and output arrays must have the same data type');
  const offset = out.shape.length - arr.shape.length;
  if (offset < 0 || arr.shape.some((n, k) => n !== 1 && n !== out.shape[offset + k])) {
    throw new LoomError(
      `copyBroadcasted: input of shape (${arr.shape.join(', ')}) is not broadcastable to output of shape (${out.shape.join(', ')})`,
    );
  }
  const index = arr.shape.map((n, k) => (n === 1 ? '0' : `idx${offset + k}`));
  return transformation({
    name: 'copyBroadcasted',
    params: [
      { name: 'output', dtype: arr.dtype, shape: out.shape, role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: arr.shape, role: 'i' },
    ] as const satisfies readonly [Out<D>, In<D>],
    body: `storeSame(output, ${index.length ? `loadIdx(input, ${index.join(', ')})` : 'loadIdx(input)'})`,
    connectors: ['output'],
  });
}

/** `output = dtype(input)`. */
export function cast<D extends DType, T extends DType>(
  arr: ArrayType<D>,
  dtype: T,
): Transformation<readonly [Out<T>, In<D>], 'output' | 'input'> {
  checkType(arr, 'cast');
  return transformation({
    name: 'cast',
    params: [
      { name: 'output', dtype, shape: shapeOf(arr), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
    ] as const satisfies readonly [Out<T>, In<D>],
    body: `storeSame(output, ${dtype}(loadSame(input)))`,
  });
}

type Binary = readonly [Out<DType>, In<DType>];
type WithParam<D extends DType, P extends DType> = readonly [Out<D>, In<D>, Scalar<P>];

function withConstant<D extends DType>(
  name: string,
  op: string,
  arr: ArrayType<D>,
  value: number | ComplexScalar,
): Transformation<readonly [Out<D>, In<D>], 'output' | 'input'> {
  checkType(arr, name);
  return transformation({
    name,
    params: [
      { name: 'output', dtype: arr.dtype, shape: shapeOf(arr), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
    ] as const satisfies Binary,
    // the result has the array's dtype, whatever the constant's (Reikna's out_dtype)
    body: `storeSame(output, ${arr.dtype}(loadSame(input) ${op} ${literal(value, name)}))`,
  }) as unknown as Transformation<readonly [Out<D>, In<D>], 'output' | 'input'>;
}

function withParam<D extends DType, P extends DType>(
  name: string,
  op: string,
  arr: ArrayType<D>,
  paramDtype: P,
): Transformation<WithParam<D, P>, 'output' | 'input'> {
  checkType(arr, name);
  return transformation({
    name,
    params: [
      { name: 'output', dtype: arr.dtype, shape: shapeOf(arr), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
      { name: 'param', dtype: paramDtype, role: 's' },
    ] as const satisfies WithParam<D, P>,
    body: `storeSame(output, ${arr.dtype}(loadSame(input) ${op} param))`,
  }) as unknown as Transformation<WithParam<D, P>, 'output' | 'input'>;
}

/** `output = input + value` (a complex constant, `{ re, im }` or `[re, im]`, for a complex array). */
export const addConst = <D extends DType>(arr: ArrayType<D>, value: number | ComplexScalar) =>
  withConstant('addConst', '+', arr, value);
/** `output = input + param`. */
export const addParam = <D extends DType, P extends DType = D>(
  arr: ArrayType<D>,
  paramDtype: P = arr.dtype as unknown as P,
) => withParam('addParam', '+', arr, paramDtype);
/** `output = input * value` (a complex constant, `{ re, im }` or `[re, im]`, for a complex array). */
export const mulConst = <D extends DType>(arr: ArrayType<D>, value: number | ComplexScalar) =>
  withConstant('mulConst', '*', arr, value);
/** `output = input * param`. */
export const mulParam = <D extends DType, P extends DType = D>(
  arr: ArrayType<D>,
  paramDtype: P = arr.dtype as unknown as P,
) => withParam('mulParam', '*', arr, paramDtype);
/** `output = input / value` (a complex constant, `{ re, im }` or `[re, im]`, for a complex array). */
export const divConst = <D extends DType>(arr: ArrayType<D>, value: number | ComplexScalar) =>
  withConstant('divConst', '/', arr, value);
/** `output = input / param`. */
export const divParam = <D extends DType, P extends DType = D>(
  arr: ArrayType<D>,
  paramDtype: P = arr.dtype as unknown as P,
) => withParam('divParam', '/', arr, paramDtype);

/**
 * `output = |input| ** order`; of a complex array, a real one (its parts' dtype), as Reikna's
 * `norm_const`.
 */
export function normConst<D extends DType>(
  arr: ArrayType<D>,
  order: number,
): Transformation<readonly [Out<RealOf<D>>, In<D>], 'output' | 'input'> {
  checkType(arr, 'normConst');
  if (typeof order !== 'number' || !Number.isFinite(order))
    throw new LoomError(`normConst: the order must be a finite number, got ${String(order)}`);
  const out = realOf(arr.dtype);
  // the square of the modulus needs no root: x*x, or the parts' squares of a complex x
  const square = isComplex(arr.dtype) ? 'real(x) * real(x) + imag(x) * imag(x)' : 'x * x';
  const value = order === 2 ? square : order === 1 ? 'abs(x)' : `pow(abs(x), ${literal(order, 'normConst')})`;
  return transformation({
    name: 'normConst',
    params: [
      { name: 'output', dtype: out, shape: shapeOf(arr), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
    ] as const satisfies readonly [Out<RealOf<D>>, In<D>],
    body: `x = loadSame(input)\nstoreSame(output, ${out}(${value}))`,
  }) as unknown as Transformation<readonly [Out<RealOf<D>>, In<D>], 'output' | 'input'>;
}

/**
 * `output = |input| ** order`, `order` a parameter; of a complex array, a real one (and a real
 * `order`), as Reikna's `norm_param`.
 */
export function normParam<D extends DType>(
  arr: ArrayType<D>,
): Transformation<readonly [Out<RealOf<D>>, In<D>, Scalar<RealOf<D>, 'order'>], 'output' | 'input'> {
  checkType(arr, 'normParam');
  const out = realOf(arr.dtype);
  return transformation({
    name: 'normParam',
    params: [
      { name: 'output', dtype: out, shape: shapeOf(arr), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
      { name: 'order', dtype: out, role: 's' },
    ] as const satisfies readonly [Out<RealOf<D>>, In<D>, Scalar<RealOf<D>, 'order'>],
    body: `storeSame(output, ${out}(pow(abs(loadSame(input)), order)))`,
  }) as unknown as Transformation<readonly [Out<RealOf<D>>, In<D>, Scalar<RealOf<D>, 'order'>], 'output' | 'input'>;
}

/** Discards what the kernel writes: the kernel stores nothing there. */
export function ignore<D extends DType>(arr: ArrayType<D>): Transformation<readonly [In<D>], 'input'> {
  checkType(arr, 'ignore');
  return transformation({
    name: 'ignore',
    params: [{ name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' }] as const satisfies readonly [In<D>],
    body: '# ignored on purpose',
  });
}

/** `output = value` everywhere (a complex value, `{ re, im }` or `[re, im]`, for a complex array): what the kernel reads is that constant. */
export function broadcastConst<D extends DType>(
  arr: ArrayType<D>,
  value: number | ComplexScalar,
): Transformation<readonly [Out<D>], 'output'> {
  checkType(arr, 'broadcastConst');
  return transformation({
    name: 'broadcastConst',
    params: [{ name: 'output', dtype: arr.dtype, shape: shapeOf(arr), role: 'o' }] as const satisfies readonly [Out<D>],
    body: `storeSame(output, ${arr.dtype}(${literal(value, 'broadcastConst')}))`,
  });
}

/** `output = param` everywhere. */
export function broadcastParam<D extends DType>(
  arr: ArrayType<D>,
): Transformation<readonly [Out<D>, Scalar<D>], 'output'> {
  checkType(arr, 'broadcastParam');
  return transformation({
    name: 'broadcastParam',
    params: [
      { name: 'output', dtype: arr.dtype, shape: shapeOf(arr), role: 'o' },
      { name: 'param', dtype: arr.dtype, role: 's' },
    ] as const satisfies readonly [Out<D>, Scalar<D>],
    body: 'storeSame(output, param)',
  });
}

/** What a complex array's parts go to or come from: real, of the complex dtype's parts. */
type Parts<D extends DType, N1 extends string, N2 extends string, R extends 'i' | 'o'> = readonly [
  { readonly name: N1; readonly dtype: RealOf<D>; readonly shape: readonly number[] | undefined; readonly role: R },
  { readonly name: N2; readonly dtype: RealOf<D>; readonly shape: readonly number[] | undefined; readonly role: R },
];

function checkComplex(arr: ArrayType, what: string): void {
  checkType(arr, what);
  if (!isComplex(arr.dtype))
    throw new LoomError(
      `${what}: the array must be complex (complex64 or complex128), got ${arr.dtype}; a complex array's parts, interleaved in a real array, are a complex array of half its last axis`,
    );
}

/**
 * A complex array into its parts: `real = Re(input)`, `imag = Im(input)`, two arrays of the
 * shape of `input` and the dtype of its parts (Reikna's `split_complex`). What kernels write.
 */
export function splitComplex<D extends DType>(
  arr: ArrayType<D>,
): Transformation<readonly [...Parts<D, 'real', 'imag', 'o'>, In<D>], 'input'> {
  checkComplex(arr, 'splitComplex');
  const part = realOf(arr.dtype);
  return transformation({
    name: 'splitComplex',
    params: [
      { name: 'real', dtype: part, shape: shapeOf(arr), role: 'o' },
      { name: 'imag', dtype: part, shape: shapeOf(arr), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
    ] as const satisfies readonly [...Parts<D, 'real', 'imag', 'o'>, In<D>],
    body: 'z = loadSame(input)\nstoreSame(real, real(z))\nstoreSame(imag, imag(z))',
    connectors: ['input'],
  }) as unknown as Transformation<readonly [...Parts<D, 'real', 'imag', 'o'>, In<D>], 'input'>;
}

/**
 * Two real arrays into a complex one: `output = real + 1j * imag`, the parts of the shape of
 * `output` and the dtype of its parts (Reikna's `combine_complex`). What kernels read.
 */
export function combineComplex<D extends DType>(
  arr: ArrayType<D>,
): Transformation<readonly [Out<D>, ...Parts<D, 'real', 'imag', 'i'>], 'output'> {
  checkComplex(arr, 'combineComplex');
  const part = realOf(arr.dtype);
  return transformation({
    name: 'combineComplex',
    params: [
      { name: 'output', dtype: arr.dtype, shape: shapeOf(arr), role: 'o' },
      { name: 'real', dtype: part, shape: shapeOf(arr), role: 'i' },
      { name: 'imag', dtype: part, shape: shapeOf(arr), role: 'i' },
    ] as const satisfies readonly [Out<D>, ...Parts<D, 'real', 'imag', 'i'>],
    body: `storeSame(output, ${arr.dtype}(loadSame(real) + 1j * loadSame(imag)))`,
    connectors: ['output'],
  }) as unknown as Transformation<readonly [Out<D>, ...Parts<D, 'real', 'imag', 'i'>], 'output'>;
}
