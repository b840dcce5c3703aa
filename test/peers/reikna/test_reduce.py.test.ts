/**
 * Ports of Reikna's tests/test_algorithms/test_reduce.py, on every test device against
 * plain JS. Reikna sums int64; WGSL has no 64-bit integers, so these sum int32 (small values:
 * exact). Shapes are Reikna's (two of the largest replaced by a 10^6-element input), and axes
 * None, 0, 1, 2. test_summation sums int64, as Reikna's, where the device has it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { predicate, predicateMax, predicateSum, reduce } from '@loom/computation';
import { packStructs, structLayout, unpackStructs } from '@loom/core';
import { supportsDType, testDevices } from '../../support/devices.ts';
import { addStructures, structureType, structureValues, zeroStructure } from '../../support/structure-type.ts';
import { reduceRef, sizeOf, testIntegers } from '../../support/ndarray.ts';
import { testValues, toHost } from '../../support/reikna-values.ts';

// Reikna's shapes, but 512*231 and 1536x789 give way to one 10^6-element input (each shape
// compiles its own kernels, and the CPU device runs every test too)
const SHAPES: readonly (readonly number[])[] = [
  [1],
  [2],
  [13],
  [1535],
  [1_000_000],
  [140, 3],
  [13, 598],
  [5, 15, 19],
  [134, 25, 23],
  [45, 56, 178],
];

for (const shape of SHAPES) {
  for (const axis of [undefined, 0, 1, 2]) {
    if (axis !== undefined && axis >= shape.length) continue;
    test(`test_reduce.py::test_normal[${shape.join('x')},${axis ?? 'None'}]`, async () => {
      const a = testIntegers(Int32Array, sizeOf(shape), shape.length * 7 + (axis ?? 9));
      const axes = axis === undefined ? shape.map((_, k) => k) : [axis];
      const expected = reduceRef(a, shape, axes, (x, y) => x + y, 0);
      const comp = reduce({ dtype: 'int32', shape }, predicateSum('int32'), axis === undefined ? undefined : [axis]);
      for (const device of testDevices()) {
        const { output } = await (await comp.compile(device))(undefined, a);
        assert.equal([...(output as Int32Array)], expected, device.name);
      }
    });
  }
}

test('test_reduce.py::test_nondefault_function', async () => {
  const shape = [100, 100];
  const a = testIntegers(Int32Array, sizeOf(shape), 3);
  const comp = reduce({ dtype: 'int32', shape }, predicate('a + b', 0), [0]);
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal(
      [...(output as Int32Array)],
      reduceRef(a, shape, [0], (x, y) => x + y, 0),
      device.name,
    );
  }
});

test('test_reduce.py::test_nonsequential_axes', async () => {
  const shape = [50, 40, 30, 20];
  const a = testIntegers(Int32Array, sizeOf(shape), 4);
  const comp = reduce({ dtype: 'int32', shape }, predicateSum('int32'), [0, 2]);
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal(
      [...(output as Int32Array)],
      reduceRef(a, shape, [0, 2], (x, y) => x + y, 0),
      device.name,
    );
  }
});

test('max over the middle axis, floats (any associative operation)', async () => {
  const shape = [7, 3001, 5];
  const a = Float32Array.from(testIntegers(Int32Array, sizeOf(shape), 5), (x, k) => x * 0.5 + (k % 11) * 0.25);
  const comp = reduce({ dtype: 'float32', shape }, predicateMax('float32'), [1]);
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal([...(output as Float32Array)], reduceRef(a, shape, [1], Math.max, -Infinity), device.name);
  }
});

test('a long reduce: more than the least number of elements per work-item (2 rows of 600 000)', async () => {
  // two rows share the ~1024 work-groups of a tree pass: 512 each, so 5 elements per work-item
  const shape = [2, 600_000];
  const a = testIntegers(Int32Array, sizeOf(shape), 11);
  const comp = reduce({ dtype: 'int32', shape }, predicateSum('int32'), [1]);
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal(
      [...(output as Int32Array)],
      reduceRef(a, shape, [1], (x, y) => x + y, 0),
      device.name,
    );
  }
});

test('test_reduce.py::test_summation', async () => {
  // Reikna's int64 sum of 2**22 elements, timed there; here 2**18 of them, checked (the timing
  // is bench/computations.ts's 'reduce all'), on each device with int64 (WGSL has none)
  const n = 2 ** 18;
  const a = toHost('int64', testValues('int64', n, 22)) as BigInt64Array;
  const expected = a.reduce((x, y) => x + y, 0n);
  const comp = reduce({ dtype: 'int64', shape: [n] }, predicateSum('int64'));
  assert.equal(comp.signature[0].shape, [1]);
  const devices = testDevices().filter((d) => supportsDType(d, 'int64'));
  assert.ok(devices.length > 0, 'a device with int64');
  for (const device of devices) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal([...(output as BigInt64Array)], [expected], device.name);
  }
});

// Reikna's struct of uint32, a nested uint64 and uint32 (where the device has uint64), and its
// 32-bit twin everywhere; reduced over axis 0 by the fieldwise sum Reikna's predicate writes out
test('test_reduce.py::test_structure_type', async () => {
  const shape = [100, 100];
  for (const wide of [true, false]) {
    const dtype = structureType(wide);
    const layout = structLayout(dtype);
    const a = structureValues(100 * 100, wide, wide ? 3 : 4);
    const expected = Array.from({ length: 100 }, (_, j) =>
      a.filter((_, k) => k % 100 === j).reduce((x, y) => addStructures(x, y, wide), zeroStructure(wide)),
    );
    const comp = reduce({ dtype, shape }, predicateSum(), [0]);
    for (const device of testDevices()) {
      if (wide && !supportsDType(device, 'uint64')) continue;
      const { output } = await (await comp.compile(device))(undefined, packStructs(layout, a));
      assert.equal(unpackStructs(layout, output as Uint8Array), expected, `${device.name}, ${dtype.name}`);
    }
  }
});

test.run();
