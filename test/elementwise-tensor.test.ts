/**
 * Tensors: construction from JS data (PyTorch's dtype choices), the views (permute,
 * transpose, flip, expand, slice with Python's rules, reshape where a view exists),
 * reading back in row-major order on every device, and float16 on the host.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';
import { broadcastShapes, contiguous, float16Bits, float16Value, Tensor, tensor } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';
import { numbers } from './support/elementwise-reference.ts';

test('tensor() takes nested arrays, TypedArrays and scalars, choosing dtypes as PyTorch does', () => {
  const ints = tensor([
    [1, 2, 3],
    [4, 5, 6],
  ]);
  assert.equal([ints.dtype, ints.shape, ints.strides, ints.offset], ['int64', [2, 3], [3, 1], 0]);
  assert.is(tensor([1, 2.5]).dtype, 'float32');
  assert.is(tensor([true, false]).dtype, 'bool');
  assert.is(tensor([{ re: 1, im: 2 }]).dtype, 'complex64');
  assert.is(tensor(Int16Array.of(1, 2)).dtype, 'int16');
  const scalar = tensor(3.5);
  assert.equal([scalar.shape, scalar.ndim, scalar.numel], [[], 0, 1]);
  assert.equal(tensor(Float32Array.of(1, 2, 3, 4, 5, 6), [3, 2]).shape, [3, 2]);
  assert.throws(() => tensor([[1, 2], [3]]), /rectangular/);
  assert.throws(() => tensor([1, 2, 3], [2, 2]), /holds 4 elements, but the data has 3/);
});

test('tensor() converts values into the dtype asked for: integers wrap and truncate, float16 rounds', async () => {
  assert.equal(numbers(await tensor([300, -1.7, 2.9], undefined, { dtype: 'int8' }).toArray()), [44, -1, 2]);
  assert.equal(numbers(await tensor([1, 0, 2], undefined, { dtype: 'bool' }).toArray()), [1, 0, 1]);
  assert.equal(
    numbers(await tensor([0.1, 65520, -0], undefined, { dtype: 'float16' }).toArray()),
    [0x2e66, 0x7c00, 0x8000],
  );
  assert.equal(numbers(await tensor([1, 2], undefined, { dtype: 'complex128' }).toArray()), [1, 0, 2, 0]);
});

test('float16 on the host: nearest, ties to even, subnormals, overflow', () => {
  assert.is(float16Bits(1), 0x3c00);
  assert.is(float16Bits(1 + 2 ** -11), 0x3c00); // a tie goes to the even mantissa
  assert.is(float16Bits(1 + 3 * 2 ** -11), 0x3c02);
  assert.is(float16Bits(2 ** -24), 0x0001);
  assert.is(float16Bits(2 ** -25), 0x0000);
  assert.is(float16Bits(65504), 0x7bff);
  assert.is(float16Bits(-Infinity), 0xfc00);
  assert.ok(Number.isNaN(float16Value(float16Bits(NaN))));
  for (let bits = 0; bits < 0x7c00; bits += 37) assert.is(float16Bits(float16Value(bits)), bits);
});

test('slice follows Python: negative indices, clamping, negative steps, empty results', () => {
  const t = tensor(Float32Array.from({ length: 10 }, (_, k) => k));
  const view = (s: Tensor) => [s.shape[0], s.strides[0], s.offset];
  assert.equal(view(t.slice(0, 2, 8, 3)), [2, 3, 2]); // 2, 5
  assert.equal(view(t.slice(0, -3)), [3, 1, 7]);
  assert.equal(view(t.slice(0, null, null, -1)), [10, -1, 9]);
  assert.equal(view(t.slice(0, 7, 2, -2)), [3, -2, 7]); // 7, 5, 3
  assert.equal(view(t.slice(0, 100, -100, -4)), [3, -4, 9]); // 9, 5, 1
  assert.equal(t.slice(0, 5, 2).shape, [0]);
  assert.throws(() => t.slice(0, 0, 1, 0), /step must be a non-zero integer/);
  assert.throws(() => t.slice(1), /axis 1 is out of range/);
});

test('reshape is a view exactly when one exists', () => {
  const t = tensor(
    Float32Array.from({ length: 24 }, (_, k) => k),
    [2, 3, 4],
  );
  assert.equal(t.reshape(6, 4).strides, [4, 1]);
  assert.equal(t.reshape(2, -1).shape, [2, 12]);
  assert.equal(t.reshape(2, 3, 2, 2).strides, [12, 4, 2, 1]);
  const tr = t.transpose(1, 2); // [2, 4, 3], strides [12, 1, 4]
  assert.throws(() => tr.reshape(8, 3), /cannot be viewed as \[8, 3\]; copy it first with contiguous\(t\)/);
  assert.throws(() => tr.reshape(2, 12), /cannot be viewed/);
  assert.equal(tr.reshape(1, 2, 4, 3).strides, [24, 12, 1, 4]); // a new axis of size 1 only
  assert.equal(t.slice(1, 0, 3, 2).reshape(2, 2, 2, 2).strides, [12, 8, 2, 1]); // rows 0 and 2 stay apart
  const expanded = t.expand(5, 2, 3, 4); // strides [0, 12, 4, 1]
  assert.equal(expanded.reshape(5, 2, 12).strides, [0, 12, 1]);
  assert.throws(() => expanded.reshape(10, 12), /cannot be viewed/);
  assert.throws(() => t.reshape(5, 5), /invalid for a tensor of 24 elements/);
});

test('views are checked against their storage', () => {
  const t = tensor(Float32Array.of(1, 2, 3, 4));
  assert.throws(
    () => new Tensor(t.storage, 'float32', [3], [2], 0),
    (e: unknown) => e instanceof LoomError && /outside its storage of 4 elements/.test((e as Error).message),
  );
  assert.throws(() => new Tensor(t.storage, 'float32', [2], [-1], 0), /reaches elements -1 to 0/);
  assert.throws(() => t.expand(2, 3), /cannot be expanded to \[2, 3\]/);
  assert.throws(() => t.permute(0, 0), /not a permutation/);
  assert.equal(broadcastShapes([[3, 1, 4], [5, 1], []]), [3, 5, 4]);
  assert.throws(() => broadcastShapes([[2, 3], [4]], ['a', 'b']), /a has shape \[2, 3\] and b has shape \[4\]/);
});

for (const device of testDevices()) {
  test(`${device.name}: views read back in row-major order`, async () => {
    const t = tensor(
      Int32Array.from({ length: 24 }, (_, k) => k),
      [2, 3, 4],
      { device },
    );
    const read = async (v: Tensor) => numbers(await v.toArray());
    assert.equal(await read(t.permute(2, 0, 1).slice(0, 0, 2)), [0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21]);
    assert.equal(await read(t.transpose(0, 2).slice(0, 3, 4)), [3, 15, 7, 19, 11, 23]);
    assert.equal(await read(t.flip(1, 2).slice(0, 1, 2)), [23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12]);
    assert.equal(await read(t.slice(2, null, null, -3)), [3, 0, 7, 4, 11, 8, 15, 12, 19, 16, 23, 20]);
    assert.equal(
      await read(t.slice(0, 1, 2).slice(1, 0, 1).expand(2, 2, 1, 4)),
      [12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15],
    );
    assert.equal(await read(t.reshape(4, 6).slice(1, 1, 6, 2)), [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23]);
    const flipped = t.flip(0).transpose(1, 2);
    const dense = await contiguous(flipped); // a copy kernel, then a view is possible
    assert.ok(dense.isContiguous());
    assert.equal(await read(dense.reshape(2, 12)), await read(flipped));
  });
}

test.run();
