/**
 * The host side of a pointwise() call, on every device present: a call whose storages have
 * nothing queued launches before it returns (no promise hop between the call and the
 * device's launch), while calls that are not awaited still run in the order they were made
 * (in place, one after another, mixed with reads), with the results checked against plain JS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Device } from '@loom/core';
import { pointwise, tensor } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';
import { assertNumbers, numbers } from './support/elementwise-reference.ts';

const add = pointwise({ name: 'add' }, (x: number, y: number) => x + y);

/** `device` with its launches counted (the calls still reach it). */
function countingLaunches(device: Device): { device: Device; launches: () => number } {
  let count = 0;
  const wrapped: Device = Object.create(device);
  wrapped.launch = (compiled, kernel, args, groupCount, localSize) => {
    count++;
    return device.launch(compiled, kernel, args, groupCount, localSize);
  };
  return { device: wrapped, launches: () => count };
}

for (const base of testDevices()) {
  test(`${base.name}: a call on idle storages launches before it returns`, async () => {
    const { device, launches } = countingLaunches(base);
    const x = tensor([1, 2, 3, 4, 5], [5], { device, dtype: 'float32' });
    const out = tensor([0, 0, 0, 0, 0], [5], { device, dtype: 'float32' });
    await add(x, x, { out0: out }); // the first call prepares the kernel
    await out.toArray(); // nothing queued on either storage now
    const before = launches();
    const pending = add(x, x, { out0: out });
    assert.is(launches(), before + 1, 'launched inside the call');
    await pending;
    assertNumbers(numbers(await out.toArray()), [2, 4, 6, 8, 10], 'x + x');
  });

  test(`${base.name}: calls not awaited run in the order they were made`, async () => {
    const x = tensor([0, 1, 2, 3, 4, 5, 6, 7], [8], { device: base, dtype: 'float32' });
    const one = tensor([1, 1, 1, 1, 1, 1, 1, 1], [8], { device: base, dtype: 'float32' });
    const reads: Promise<unknown>[] = [];
    for (let k = 0; k < 12; k++) {
      void add(x, one, { out0: x }); // in place: each call must see the last one's result
      if (k === 5) reads.push(x.toArray());
    }
    const y = add(x, x); // a new output from the final x
    assertNumbers(numbers((await reads[0]) as Float32Array), [6, 7, 8, 9, 10, 11, 12, 13], 'read between the calls');
    assertNumbers(numbers(await x.toArray()), [12, 13, 14, 15, 16, 17, 18, 19], 'twelve additions');
    assertNumbers(numbers(await (await y).toArray()), [24, 26, 28, 30, 32, 34, 36, 38], 'then doubled');
  });
}

test.run();
