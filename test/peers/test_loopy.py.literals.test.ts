/**
 * Port of loopy's test_loopy.py::test_sized_and_complex_literals: a literal's suffix sizes it
 * (`5f` float32, `5jf` complex64, `5j` complex128), checked against loopy's values on every
 * device (complex128 where the device has float64).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globalArg, makeKernel, run } from '@loom/core';
import { supportsDType, testDevices } from '../support/devices.ts';

for (const device of testDevices()) {
  test(`${device.name}: test_sized_and_complex_literals`, async () => {
    // complex128 needs float64, which WGSL lacks: there `5j` is left out, the other literals checked
    const wide = supportsDType(device, 'float64');
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      ['<> aa = 5jf', ...(wide ? ['<> bb = 5j', 'b[i] = imag(bb)'] : []), 'a[i] = imag(aa)', 'c[i] = 5f'],
      [
        globalArg('a', { dtype: 'float32', shape: ['n'] }),
        globalArg('b', { dtype: 'float32', shape: ['n'] }),
        globalArg('c', { dtype: 'float32', shape: ['n'] }),
        '...',
      ],
      { assumptions: 'n>=1' },
    );
    const { a, b, c } = await run(knl, device, { n: 5 });
    assert.equal(Array.from(a as Float32Array), [5, 5, 5, 5, 5]);
    if (wide) assert.equal(Array.from(b as Float32Array), [5, 5, 5, 5, 5]);
    assert.equal(Array.from(c as Float32Array), [5, 5, 5, 5, 5]);
  });
}

test.run();
