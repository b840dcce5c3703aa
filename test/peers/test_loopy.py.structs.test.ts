/**
 * Port of loopy's test of struct dtypes (test_loopy.py::test_struct_assignment): an array of
 * `bbhit` structs, four fields assigned one by one. loopy only runs it; here every field of
 * every element is checked against plain JavaScript, on every test device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globalArg, makeKernel, run, structDType, structLayout, unpackStructs } from '@loom/core';
import { testDevices } from '../support/devices.ts';

// loopy's np.dtype([("tmin", np.float32), ("tmax", np.float32), ("bi", np.int32), ("hit", np.int32)])
const bbhit = structDType('bbhit', [
  ['tmin', 'float32'],
  ['tmax', 'float32'],
  ['bi', 'int32'],
  ['hit', 'int32'],
]);

for (const device of testDevices()) {
  test(`${device.name}: test_struct_assignment`, async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<N }',
      `
      for i
        result[i].hit = i % 2  {nosync_query=writes:result}
        result[i].tmin = i  {nosync_query=writes:result}
        result[i].tmax = i+10  {nosync_query=writes:result}
        result[i].bi = i  {nosync_query=writes:result}
      end
      `,
      [globalArg('result', { dtype: bbhit, shape: ['N'] }), '...'],
    );
    const n = 200;
    const { result } = await run(knl, device, { N: n });
    assert.equal(
      unpackStructs(structLayout(bbhit), result as Uint8Array),
      Array.from({ length: n }, (_, i) => ({ tmin: i, tmax: i + 10, bi: i, hit: i % 2 })),
    );
  });
}

test.run();
