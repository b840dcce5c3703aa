/**
 * Ports of Reikna's tests/test_algorithms/test_roll.py (test_roll, test_roll_inplace), on
 * every test device against plain JS, with shifts of both signs and larger than the axis.
 * The compiled roll is reused for every shift: the shift is a parameter.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray } from '@loom/core';
import { roll, rollInplace } from '@loom/computation';
import { testDevices } from '../../support/devices.ts';
import { sizeOf, testIntegers } from '../../support/ndarray.ts';
import { rollRef } from '../../support/shift.ts';

for (const shape of [[10], [10, 20], [10, 20, 30]]) {
  for (const axis of [-1, 0, 1, 2]) {
    if (axis >= shape.length) continue;
    test(`test_roll.py::test_roll[(${shape}),${axis}]`, async () => {
      const a = testIntegers(Int32Array, sizeOf(shape), sizeOf(shape));
      const comp = roll({ dtype: 'int32', shape }, axis);
      for (const device of testDevices()) {
        const compiled = await comp.compile(device);
        for (const shift of [4, -3, 0, 27]) {
          const { output } = await compiled(undefined, a, shift);
          assert.equal([...(output as Int32Array)], rollRef(a, shape, shift, axis), `${device.name}, shift ${shift}`);
        }
      }
    });
  }
}

for (const shape of [[10], [10, 20], [10, 20, 30]]) {
  for (const axis of [-1, 0, 1, 2]) {
    if (axis >= shape.length) continue;
    test(`test_roll.py::test_roll_inplace[(${shape}),${axis}]`, async () => {
      const a = testIntegers(Int32Array, sizeOf(shape), sizeOf(shape));
      const comp = rollInplace({ dtype: 'int32', shape }, axis);
      for (const device of testDevices()) {
        const compiled = await comp.compile(device);
        // a DeviceArray rolled where it lies, again and again: each roll starts from the last one
        const array = await DeviceArray.from(device, a, 'int32', shape);
        let expected: ArrayLike<number> = a;
        for (const shift of [4, -3, 0, 27]) {
          await compiled(array, shift);
          expected = rollRef(expected, shape, shift, axis);
          assert.equal([...(await array.toHost())], expected, `${device.name}, shift ${shift}`);
        }
        array.release();
        // a host array is updated in place too
        const host = Int32Array.from(a);
        await compiled(host, 4);
        assert.equal([...host], rollRef(a, shape, 4, axis), `${device.name}, a host array`);
      }
    });
  }
}

test.run();
