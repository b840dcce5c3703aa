/**
 * Reikna's ready-made transformations (reikna/transformations.py). Each takes the type of
 * the array it will be attached to (`{ dtype, shape }`: a parameter, a temporary, any
 * such object; without `shape` it fits any shape) and returns a transformation whose
 * parameters are named as Reikna names them: `output`, `input`, `param`...
 *
 *   comp.attach('C', mulConst(comp.parameter('C'), 2.5), 'input', { output: 'scaled' })
 *   attach(kernel, 'a', cast({ dtype: 'int32' }, 'float32'), 'output', { input: 'a_int' })
 *
 * Complex numbers: Loom's kernels have real dtypes; `splitComplex` and `combineComplex`
 * take complex arrays stored interleaved, as a last axis of 2 (real, imaginary).
 */
import { LoomError, type DType } from '@loom/core';
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

/** A number as a literal of the expression language (integers as integers, so `x * 2` stays in x's type). */
function literal(value: number, what: string): string {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new LoomError(`${what}: the constant must be a finite number, got ${String(value)}`);
  return Number.isInteger(value)
    ? String(value)
    : String(value).includes('e') || String(value).includes('.')
      ? String(value)
      : `${value}.0`;
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
  value: number,
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

/** `output = input + value`. */
export const addConst = <D extends DType>(arr: ArrayType<D>, value: number) =>
  withConstant('addConst', '+', arr, value);
/** `output = input + param`. */
export const addParam = <D extends DType, P extends DType = D>(
  arr: ArrayType<D>,
  paramDtype: P = arr.dtype as unknown as P,
) => withParam('addParam', '+', arr, paramDtype);
/** `output = input * value`. */
export const mulConst = <D extends DType>(arr: ArrayType<D>, value: number) =>
  withConstant('mulConst', '*', arr, value);
/** `output = input * param`. */
export const mulParam = <D extends DType, P extends DType = D>(
  arr: ArrayType<D>,
  paramDtype: P = arr.dtype as unknown as P,
) => withParam('mulParam', '*', arr, paramDtype);
/** `output = input / value`. */
export const divConst = <D extends DType>(arr: ArrayType<D>, value: number) =>
  withConstant('divConst', '/', arr, value);
/** `output = input / param`. */
export const divParam = <D extends DType, P extends DType = D>(
  arr: ArrayType<D>,
  paramDtype: P = arr.dtype as unknown as P,
) => withParam('divParam', '/', arr, paramDtype);

/** `output = |input| ** order`. */
export function normConst<D extends DType>(
  arr: ArrayType<D>,
  order: number,
): Transformation<readonly [Out<D>, In<D>], 'output' | 'input'> {
  checkType(arr, 'normConst');
  const value = order === 2 ? 'x * x' : order === 1 ? 'abs(x)' : `pow(abs(x), ${literal(order, 'normConst')})`;
  return transformation({
    name: 'normConst',
    params: [
      { name: 'output', dtype: arr.dtype, shape: shapeOf(arr), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
    ] as const satisfies Binary,
    body: `x = loadSame(input)\nstoreSame(output, ${arr.dtype}(${value}))`,
  }) as unknown as Transformation<readonly [Out<D>, In<D>], 'output' | 'input'>;
}

/** `output = |input| ** order`, `order` a parameter. */
export function normParam<D extends DType>(
  arr: ArrayType<D>,
): Transformation<readonly [Out<D>, In<D>, Scalar<D, 'order'>], 'output' | 'input'> {
  checkType(arr, 'normParam');
  return transformation({
    name: 'normParam',
    params: [
      { name: 'output', dtype: arr.dtype, shape: shapeOf(arr), role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: shapeOf(arr), role: 'i' },
      { name: 'order', dtype: arr.dtype, role: 's' },
    ] as const satisfies readonly [Out<D>, In<D>, Scalar<D, 'order'>],
    body: `storeSame(output, ${arr.dtype}(pow(abs(loadSame(input)), order)))`,
  }) as unknown as Transformation<readonly [Out<D>, In<D>, Scalar<D, 'order'>], 'output' | 'input'>;
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

/** `output = value` everywhere: what the kernel reads is that constant. */
export function broadcastConst<D extends DType>(
  arr: ArrayType<D>,
  value: number,
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

/**
 * A complex array (last axis of 2: real, imaginary) into its parts: `real = Re(input)`,
 * `imag = Im(input)`. What kernels write: each element the kernel stores lands in one part.
 */
export function splitComplex<D extends DType>(
  arr: ArrayType<D> & { readonly shape: readonly number[] },
): Transformation<readonly [Out<D, 'real'>, Out<D, 'imag'>, In<D>], 'input'> {
  checkType(arr, 'splitComplex');
  const parts = checkComplexShape(arr.shape, 'splitComplex');
  const index = parts.map((_, k) => `idx${k}`).join(', ');
  return transformation({
    name: 'splitComplex',
    params: [
      { name: 'real', dtype: arr.dtype, shape: parts, role: 'o' },
      { name: 'imag', dtype: arr.dtype, shape: parts, role: 'o' },
      { name: 'input', dtype: arr.dtype, shape: arr.shape, role: 'i' },
    ] as const satisfies readonly [Out<D, 'real'>, Out<D, 'imag'>, In<D>],
    body: `
      if idx${parts.length} == 0
        storeIdx(real, ${index}${index ? ', ' : ''}loadSame(input))
      else
        storeIdx(imag, ${index}${index ? ', ' : ''}loadSame(input))
      end
    `,
    connectors: ['input'],
  });
}

/** Two real arrays into a complex one (last axis of 2): `output = real + 1j * imag`. What kernels read. */
export function combineComplex<D extends DType>(
  arr: ArrayType<D> & { readonly shape: readonly number[] },
): Transformation<readonly [Out<D>, In<D, 'real'>, In<D, 'imag'>], 'output'> {
  checkType(arr, 'combineComplex');
  const parts = checkComplexShape(arr.shape, 'combineComplex');
  const index = parts.map((_, k) => `idx${k}`).join(', ');
  const load = (p: string) => (index ? `loadIdx(${p}, ${index})` : `loadIdx(${p})`);
  return transformation({
    name: 'combineComplex',
    params: [
      { name: 'output', dtype: arr.dtype, shape: arr.shape, role: 'o' },
      { name: 'real', dtype: arr.dtype, shape: parts, role: 'i' },
      { name: 'imag', dtype: arr.dtype, shape: parts, role: 'i' },
    ] as const satisfies readonly [Out<D>, In<D, 'real'>, In<D, 'imag'>],
    body: `storeSame(output, if(idx${parts.length} == 0, ${load('real')}, ${load('imag')}))`,
    connectors: ['output'],
  });
}

function checkComplexShape(shape: readonly number[], what: string): number[] {
  if (!Array.isArray(shape) || shape[shape.length - 1] !== 2)
    throw new LoomError(
      `${what}: a complex array is stored with a last axis of 2 (real, imaginary); got shape (${(shape ?? []).join(', ')})`,
    );
  return shape.slice(0, -1);
}
