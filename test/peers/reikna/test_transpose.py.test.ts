/**
 * Ports of Reikna's tests/test_algorithms/test_transpose.py (test_errors: numpy.transpose's
 * result for each shape and permutation), on every test device against plain JS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transpose } from '@loom/computation';
import { testDevices } from '../../support/devices.ts';
import { sizeOf, testIntegers, transposeRef } from '../../support/ndarray.ts';

const SHAPES: Record<number, readonly (readonly number[])[]> = {
  2: [
    [13, 11],
    [511, 134],
    [77, 2049],
  ],
  3: [
    [13, 33, 1029],
    [77, 55, 33],
  ],
  4: [
    [11, 13, 19, 31],
    [35, 4, 57, 8],
  ],
};
const AXES: readonly (readonly number[] | undefined)[] = [
  undefined,
  [1, 0],
  [1, 0, 2],
  [2, 0, 1],
  [2, 3, 0, 1],
  [0, 3, 1, 2],
];

for (const [rank, shapes] of Object.entries(SHAPES)) {
  for (const shape of shapes) {
    for (const axes of AXES.filter((a) => a === undefined || a.length === Number(rank))) {
      test(`test_transpose.py::test_errors[${shape.join('x')},${axes?.join('') ?? 'None'}]`, async () => {
        const a = testIntegers(Int32Array, sizeOf(shape), sizeOf(shape));
        const perm = axes ?? shape.map((_, k) => shape.length - 1 - k);
        const expected = transposeRef(a, shape, perm);
        const comp = transpose({ dtype: 'int32', shape }, axes);
        for (const device of testDevices()) {
          const { output } = await (await comp.compile(device))(undefined, a);
          assert.equal([...(output as Int32Array)], expected, device.name);
        }
      });
    }
  }
}

test('a 2-D transpose goes through local memory in tiles; a permutation keeping the last axis copies directly', async () => {
  const device = testDevices()[0];
  const tiled = await transpose({ dtype: 'float32', shape: [70, 90] }).compile(device);
  assert.ok(tiled.kernels[0].temporaries.has('inp_fetch'), 'a local tile');
  assert.is(tiled.kernels[0].temporaries.get('inp_fetch')?.addressSpace, 'local');
  const direct = await transpose({ dtype: 'float32', shape: [3, 4, 5] }, [1, 0, 2]).compile(device);
  assert.is(direct.kernels[0].temporaries.size, 0, 'no tile');
});

test.run();
