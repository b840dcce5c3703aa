/**
 * Declared signatures: `.args({...})` types `run` exactly — element types, which
 * arguments are required, and the outputs.
 */
import type { DeviceArray, Device } from '@loom/core';
import { f32, f32x2, f32x4, f64, i32, i32x4, i64, kernel, u8, type Inferable } from '@loom/dsl';
import { value, type Equal, type Expect } from './helpers.ts';

export async function declaredCases(device: Device): Promise<void> {
  const double = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').args({ a: f32('n'), out: f32.out('n') });
  const a = new Float32Array(8);

  const { out } = await double.run(device, { a });
  type _out = Expect<Equal<typeof out, Float32Array>>;
  // `n` is optional (the size of `a` says it), and may be given
  await double.run(device, { a, n: 8 });
  // data with its shape, or data already on the device
  await double.run(device, { a: { data: a, shape: [8] } });
  await double.run(device, { a: value<DeviceArray>() });
  // an output passed on the device comes back as the DeviceArray
  const onDevice = await double.run(device, { a, out: value<DeviceArray>() });
  type _onDevice = Expect<Equal<typeof onDevice.out, DeviceArray>>;

  // @ts-expect-error: missing argument 'a'
  await double.run(device, {});
  // @ts-expect-error: misspelled argument 'b'
  await double.run(device, { b: a });
  // @ts-expect-error: an extra argument
  await double.run(device, { a, alpha: 2 });
  // @ts-expect-error: Float64Array where float32 is declared
  await double.run(device, { a: new Float64Array(8) });
  // @ts-expect-error: Int32Array where float32 is declared
  await double.run(device, { a: new Int32Array(8) });
  // @ts-expect-error: shaped data of the wrong type
  await double.run(device, { a: { data: new Float64Array(8), shape: [8] } });
  // @ts-expect-error: the output is a Float32Array, not a Float64Array
  const wrong: Float64Array = out;
  void wrong;

  // values: required; 64-bit ones may be bigints
  const saxpy = kernel('{ [i]: 0<=i<n }', 'y[i] = alpha*x[i] + y[i]').args({
    x: f64('n'),
    y: f64.inout('n'),
    alpha: f64.value(),
  });
  const y = new Float64Array(4);
  const { y: result } = await saxpy.run(device, { x: y, y, alpha: 2 });
  type _result = Expect<Equal<typeof result, Float64Array<ArrayBuffer>>>;
  // @ts-expect-error: missing value 'alpha'
  await saxpy.run(device, { x: y, y });
  // @ts-expect-error: an inout array is required
  await saxpy.run(device, { x: y, alpha: 2 });
  const offset = kernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + k').args({
    a: i64('n'),
    out: i64.out('n'),
    k: i64.value(),
  });
  await offset.run(device, { a: new BigInt64Array(2), k: 3n });
  // @ts-expect-error: int64 data is a BigInt64Array
  await offset.run(device, { a: new Int32Array(2), k: 3n });

  // bool and uint8 data travel as Uint8Array
  const mask = kernel('{ [i]: 0<=i<n }', 'out[i] = a[i]').args({ a: u8('n'), out: u8.out('n') });
  const { out: bytes } = await mask.run(device, { a: new Uint8Array(3) });
  type _bytes = Expect<Equal<typeof bytes, Uint8Array>>;

  // vector element types: n float2s are a Float32Array of 2n, n is still inferable
  const norms = kernel('{ [i]: 0<=i<n }', 'out[i] = a[i].x*a[i].x + a[i].y*a[i].y').args({
    a: f32x2('n'),
    out: f32.out('n'),
  });
  const { out: squared } = await norms.run(device, { a: new Float32Array(8) });
  type _squared = Expect<Equal<typeof squared, Float32Array>>;
  // @ts-expect-error: float32 vectors are a Float32Array
  await norms.run(device, { a: new Float64Array(8) });
  const lanes = kernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = a[i, k]').args({
    a: i32x4('n'),
    out: i32x4.out('n'),
  });
  const { out: copied } = await lanes.run(device, { a: new Int32Array(8) });
  type _copied = Expect<Equal<typeof copied, Int32Array>>;
  // @ts-expect-error: a vector element type has no values
  f32x4.value();
}

export async function upFrontCases(device: Device): Promise<void> {
  // declared from the start: for kernels that cannot be built without declarations
  const rotate = kernel('[n] -> {[i] : 0<=i<n}', 'arr[(i + 1) % n] = arr[i]', { args: { arr: i32.inout('n') } });
  const { arr } = await rotate.run(device, { arr: new Int32Array(16) });
  type _arr = Expect<Equal<typeof arr, Int32Array<ArrayBuffer>>>;
  // @ts-expect-error: Uint32Array where int32 is declared
  await rotate.run(device, { arr: new Uint32Array(16) });
  // @ts-expect-error: not an element type's declaration
  kernel('{ [i]: 0<=i<n }', 'out[i] = a[i]', { args: { a: 'float32' } });
}

// Which parameters `run` can find from the sizes of the inputs: an input with a single
// unknown name in its shape settles it, which may settle the next.
type Decls1 = {
  A: ReturnType<typeof f32<['n', 'm']>>;
  x: ReturnType<typeof f32<['m']>>;
  y: ReturnType<typeof f32.out<['n']>>;
};
type Decls2 = { A: ReturnType<typeof f32<['n', 'm']>>; y: ReturnType<typeof f32.out<['n']>> };
type Decls3 = { a: ReturnType<typeof f32<['2*n + 1']>>; k: ReturnType<typeof i32.value> };
export type InferableCases = [
  Expect<Equal<Inferable<Decls1>, 'm' | 'n'>>,
  // two unknowns in one flat array: neither can be found
  Expect<Equal<Inferable<Decls2>, never>>,
  Expect<Equal<Inferable<Decls3>, 'n'>>,
];

export async function parameterCases(device: Device): Promise<void> {
  const matvec = kernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'y[i] = sum(j, A[i,j]*x[j])').args({
    A: f32('n', 'm'),
    x: f32('m'),
    y: f32.out('n'),
  });
  await matvec.run(device, { A: new Float32Array(6), x: new Float32Array(3) });
  const alone = kernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'y[i] = sum(j, A[i,j])').args({
    A: f32('n', 'm'),
    y: f32.out('n'),
  });
  await alone.run(device, { A: new Float32Array(6), n: 2, m: 3 });
  // @ts-expect-error: 'n' and 'm' cannot both be found from a flat A
  await alone.run(device, { A: new Float32Array(6) });
}
