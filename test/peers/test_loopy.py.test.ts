/** Ports of loopy's test/test_loopy.py, run on every test device against plain JavaScript. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globalArg, makeKernel, run, valueArg } from '@loom/core';
import { testDevices } from '../support/devices.ts';

for (const device of testDevices()) {
  test(`${device.name}: test_bare_data_dependency`, async () => {
    // the loop bound is a temporary, read from the argument n when the kernel runs
    const knl = makeKernel(['[znirp] -> {[i]: 0<=i<znirp}'], ['<> znirp = n', 'a[i] = 1'], [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      valueArg('n', 'int32'),
    ]);
    const n = 20000;
    const { a } = await run(knl, device, { n });
    assert.is((a as Float32Array).length, n);
    assert.ok((a as Float32Array).every((x) => x === 1));
  });
}

test.run();
