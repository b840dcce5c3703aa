/** prepareLaunch: bind and compile once, launch many times on device arrays. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, LoomError, makeKernel, prepareLaunch, run, splitIname } from '@loom/core';
import { randomFloat32, testDevices } from './support/devices.ts';

for (const device of testDevices()) {
  test(`${device.name}: a prepared launch gives run's result, again and again`, async () => {
    const knl = splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = out[i] + 2*a[i]'), 'i', 32, {
      outerTag: 'g.0',
      innerTag: 'l.0',
    });
    const a = randomFloat32(100, 3);
    const expectedOnce = (await run(knl, device, { a, out: new Float32Array(100) })).out as Float32Array;
    const da = await DeviceArray.from(device, a, 'float32');
    const dout = await DeviceArray.from(device, new Float32Array(100), 'float32');
    const prepared = await prepareLaunch(knl, device, { a: da, out: dout });
    await prepared.launch();
    await prepared.launch();
    const twice = (await dout.toHost()) as Float32Array;
    assert.equal(
      Array.from(twice),
      Array.from(expectedOnce, (x) => Math.fround(x + x)),
    );
    prepared.release();
    da.release();
    dout.release();
  });

  test(`${device.name}: launchRounds(n) is n launches, each seeing the last one's writes`, async () => {
    // two kernels a round (a global barrier between them), rounds queued as one submission where the device batches them
    const knl = splitIname(
      makeKernel(
        '{ [i]: 0<=i<n }',
        ['acc[i] = acc[i] + a[i]  {id=add}', '... gbarrier {id=wait, dep=add}', 'out[i] = 2*acc[i]  {dep=wait}'].join(
          '\n',
        ),
      ),
      'i',
      32,
      { outerTag: 'g.0', innerTag: 'l.0' },
    );
    const a = Float32Array.from({ length: 70 }, (_, k) => k % 7);
    const acc = await DeviceArray.from(device, new Float32Array(70), 'float32');
    const out = await DeviceArray.from(device, new Float32Array(70), 'float32');
    const da = await DeviceArray.from(device, a, 'float32');
    const prepared = await prepareLaunch(knl, device, { a: da, acc, out });
    assert.is(prepared.kernels.length, 2);
    await prepared.launchRounds(7);
    await prepared.launchRounds(1);
    assert.equal(
      Array.from((await acc.toHost()) as Float32Array),
      Array.from(a, (x) => 8 * x),
    );
    assert.equal(
      Array.from((await out.toHost()) as Float32Array),
      Array.from(a, (x) => 16 * x),
    );
    prepared.release();
    for (const array of [da, acc, out]) array.release();
  });
}

test('prepareLaunch refuses host arrays: it never copies', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  const device = testDevices()[0];
  try {
    await prepareLaunch(knl, device, { a: new Float32Array(4) } as never);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, LoomError);
  }
});

test.run();
