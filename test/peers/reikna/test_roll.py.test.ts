/**
 * Ports of Reikna's tests/test_algorithms/test_roll.py (test_roll; RollInplace is not built),
 * on every test device against plain JS, with shifts of both signs and larger than the axis.
 * The compiled roll is reused for every shift: the shift is a parameter.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { roll } from '@loom/computation';
import { testDevices } from '../../support/devices.ts';
import { flatten, sizeOf, testIntegers, unflatten } from '../../support/ndarray.ts';

/** numpy.roll(a, shift, axis). */
function rollRef(a: ArrayLike<number>, shape: readonly number[], shift: number, axis: number): number[] {
  const ax = axis < 0 ? axis + shape.length : axis;
  const out = new Array(a.length);
  for (let f = 0; f < a.length; f++) {
    const idx = unflatten(f, shape);
    idx[ax] = (((idx[ax] + shift) % shape[ax]) + shape[ax]) % shape[ax];
    out[flatten(idx, shape)] = a[f];
  }
  return out;
}

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

test.run();
