/**
 * Ports of loopy's test/test_loopy.py (issue 28, batch A): `autoTestVsRef`, which checks a
 * transformed kernel against its reference on made-up data (loopy's `auto_test_vs_ref`), on
 * every test device. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, AutomaticTestFailure, autoTestVsRef, LoomError, makeKernel, splitIname } from '@loom/core';
import { testDevices } from '../support/devices.ts';

const everyElement = () => addDtypes(makeKernel('{[i,j]: 0<=i,j<n}', 'a[i,j] = 25'), { a: 'float32' });

test('test_auto_test_can_detect_problems', async () => {
  // the kernel under test writes the diagonal only: the rest of a keeps the made-up data the
  // reference overwrites
  const ref = everyElement();
  const knl = addDtypes(makeKernel('{[i]: 0<=i<n}', 'a[i,i] = 25'), { a: 'float32' });
  for (const device of testDevices()) {
    await autoTestVsRef(ref, device, knl, { parameters: { n: 12 } }).then(
      () => assert.unreachable(`${device.name}: the difference was not found`),
      (e: unknown) =>
        assert.ok(
          e instanceof AutomaticTestFailure && /output 'a' differs from the reference at element 1: /.test(String(e)),
          String(e),
        ),
    );
    // a transformation that keeps the values passes
    const split = splitIname(ref, 'i', 4, { outerTag: 'g.0', innerTag: 'l.0' });
    const { compared } = await autoTestVsRef(ref, device, split, { parameters: { n: 12 } });
    assert.equal(compared, ['a'], device.name);
  }
});

test('test_auto_test_zero_warmup_rounds', async () => {
  const ref = everyElement();
  for (const device of testDevices()) {
    const { compared, seconds } = await autoTestVsRef(ref, device, ref, { parameters: { n: 12 }, warmupRounds: 0 });
    assert.equal(compared, ['a'], device.name);
    assert.ok(seconds >= 0 && Number.isFinite(seconds), `${device.name}: ${seconds}`);
  }
  const [device] = testDevices();
  for (const [options, message] of [
    [{ parameters: { n: 12 }, warmupRounds: -1 }, /warmupRounds must be an integer of at least 0/],
    [{ parameters: { n: 12 }, timingRounds: 0 }, /timingRounds must be an integer of at least 1/],
    [{}, /give the value of 'n' in parameters/],
    [{ parameters: { n: 12 }, warmup: 0 }, /unknown option 'warmup'/],
  ] as const)
    await autoTestVsRef(ref, device, ref, options as never).then(
      () => assert.unreachable(JSON.stringify(options)),
      (e: unknown) => assert.ok(e instanceof LoomError && message.test(String(e)), String(e)),
    );
});

test.run();
