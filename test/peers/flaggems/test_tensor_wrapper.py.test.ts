/**
 * Ports of FlagGems' tests/test_tensor_wrapper.py. FlagGems' TypedPtr (a data pointer with a dtype)
 * and StridedBuffer (a shape, strides and offset over a tensor's memory) are both a Loom `Tensor`
 * made by hand over a `Storage`: `new Tensor(storage, dtype, shape, strides, offset)`, offsets and
 * strides in elements of the view's dtype. FlagGems' Triton kernel `double` (`x * 2.0` over n
 * elements from a pointer) is a pointwise function called through its manually instantiated
 * overload, `fn.instantiate(1)`: no metadata, every operand of the outputs' shape, the output given
 * — what the raw kernel launch is. Each test runs on every device and checks the complex or real
 * tensors the views belong to against plain JavaScript.
 *
 * Reinterpreting a storage: a view's dtype must be stored as the storage's numbers, so a complex
 * storage can be viewed as its real parts (FlagGems' `dtype.to_real()`, the only reinterpretation its
 * tests use) and a real one as complex; any other (float32 bits as int32, float32 as float64) is a
 * LoomError when the view is made, where TypedPtr would reinterpret any pointer (README of test/peers).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, type Device } from '@loom/core';
import { empty, pointwise, Tensor, tensor } from '@loom/elementwise';
import { testDevices } from '../../support/devices.ts';
import { assertNumbers, sample } from '../../support/elementwise-reference.ts';
import { valuesOf } from './support.ts';

/** FlagGems' `double` kernel: `x * 2.0`, in the input's dtype. */
const double = pointwise({ promotionMethods: [[0, 'DEFAULT']] }, (x: number) => x * 2.0);

/** torch.complex(torch.randn(n), torch.randn(n)) as complex64 of `shape`, and its parts interleaved (re, im, ...). */
function randnComplex(device: Device, shape: number[], seed: number): { t: Tensor; parts: number[] } {
  const n = shape.reduce((a, b) => a * b, 1);
  const re = sample('float32', n, seed);
  const im = sample('float32', n, seed + 1);
  const parts = re.flatMap((r, k) => [r, im[k]]);
  return { t: tensor(Float32Array.from(parts), shape, { device, dtype: 'complex64' }), parts };
}

for (const device of testDevices()) {
  test(`${device.name}: test_tensor_wrapper.py::test_typed_pointer`, async () => {
    const x = randnComplex(device, [10, 10], 1);
    const out = empty([10, 10], { device, dtype: 'complex64' });
    // TypedPtr(x.data_ptr(), dtype=x.dtype.to_real()): the storage's 200 float32 numbers
    const n = x.t.numel * 2;
    const inPtr = new Tensor(x.t.storage, 'float32', [n], [1], 0);
    const outPtr = new Tensor(out.storage, 'float32', [n], [1], 0);
    assert.is(await double.instantiate(1)(inPtr, { out0: outPtr }), outPtr);
    // out, read as complex, is x * 2.0
    assertNumbers(
      await valuesOf(out),
      x.parts.map((p) => p * 2),
      'out == x * 2.0',
    );
    // the same as the complex function computes it
    assertNumbers(await valuesOf(await double(x.t)), await valuesOf(out), 'double(x)');
  });

  test(`${device.name}: test_tensor_wrapper.py::test_typed_pointer_reinterpret_with_offset`, async () => {
    const x = randnComplex(device, [100], 3);
    const out = empty([100], { device, dtype: 'complex64' });
    const k = 10;
    const n = (x.t.numel - k) * 2;
    // TypedPtr.reinterpret_tensor(x, x.dtype.to_real(), 2 * k): float32 numbers from the 2k-th on
    const inPtr = new Tensor(x.t.storage, 'float32', [n], [1], 2 * k);
    const outPtr = new Tensor(out.storage, 'float32', [n], [1], 2 * k);
    await double.instantiate(1)(inPtr, { out0: outPtr });
    // out[k:] == x[k:] * 2.0 (out[:k] was not written)
    const tail = out.slice(0, k);
    assert.is(tail.offset, k);
    assertNumbers(
      await valuesOf(tail),
      x.parts.slice(2 * k).map((p) => p * 2),
      'out[k:] == x[k:] * 2.0',
    );
    // a reinterpretation whose numbers are not the storage's is refused when the view is made
    for (const dtype of ['int32', 'float64', 'complex128'] as const) {
      assert.throws(
        () => new Tensor(x.t.storage, dtype, [n], [1], 2 * k),
        (e: unknown) => e instanceof LoomError && /cannot view a storage of float32/.test((e as Error).message),
        `a ${dtype} view of complex64 storage`,
      );
    }
    // the other way: real storage as complex64 (pairs of float32)
    const asComplex = new Tensor(inPtr.storage, 'complex64', [x.t.numel - k], [1], k);
    assertNumbers(await valuesOf(asComplex), x.parts.slice(2 * k), 'the same numbers as complex64');
  });

  test(`${device.name}: test_tensor_wrapper.py::test_typed_pointer_as_is`, async () => {
    const v = sample('float32', 100, 5);
    const x = tensor(Float32Array.from(v), undefined, { device });
    const out = empty([100], { device });
    const k = 10;
    // TypedPtr.from_tensor(x, k): x's dtype, k elements in — a slice
    const inPtr = x.slice(0, k);
    const outPtr = out.slice(0, k);
    assert.equal([inPtr.shape, inPtr.offset, inPtr.storage === x.storage], [[x.numel - k], k, true]);
    await double.instantiate(1)(inPtr, { out0: outPtr });
    assertNumbers(
      await valuesOf(out.slice(0, k)),
      v.slice(k).map((e) => e * 2),
      'out[k:] == x[k:] * 2.0',
    );
  });

  test(`${device.name}: test_tensor_wrapper.py::test_strided_buffer_slice`, async () => {
    const v = sample('float32', 100 * 100, 7);
    const x = tensor(Float32Array.from(v), [100, 100], { device });
    // StridedBuffer(x, (10, 10), (100, 1))
    const buffer = new Tensor(x.storage, x.dtype, [10, 10], [100, 1], 0);
    assert.equal(buffer.shape, [10, 10]);
    assert.is(buffer.ndim, 2);
    assert.is(buffer.dtype, x.dtype, "x's element size");
    assert.equal(buffer.strides, [100, 1]);
    // the view is x[:10, :10], and kernels read it as such, with metadata and without
    const corner = Array.from({ length: 100 }, (_, k) => v[100 * Math.floor(k / 10) + (k % 10)]);
    assertNumbers(await valuesOf(buffer), corner, 'x[:10, :10]');
    assertNumbers(
      await valuesOf(await double(buffer)),
      corner.map((e) => e * 2),
      'double(buffer)',
    );
    const out = empty([10, 10], { device });
    await double.instantiate(2)(buffer, { out0: out });
    assertNumbers(
      await valuesOf(out),
      corner.map((e) => e * 2),
      'double.instantiate(2)(buffer)',
    );
  });
}

test.run();
