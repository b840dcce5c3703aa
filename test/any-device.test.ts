/**
 * anyDevice(): the first of OpenCL, CUDA, WebGPU, compiled C and the CPU that is installed and
 * present (the installed test checks the fall-through when the driver packages are missing).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';
import { anyDevice, f32, kernel } from '@loom/dsl';
import { testDevices } from './support/devices.ts';

const double = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').args({ a: f32('n'), out: f32.out('n') });

test('by default it is the first kind present, in the order OpenCL, CUDA, WebGPU, C, CPU', async () => {
  const order = ['OpenCL', 'CUDA', 'WebGPU', 'C:', 'CPU'];
  const expected = testDevices()
    .map((d) => d.name)
    .filter((name) => order.some((k) => name.startsWith(k)))
    .sort((a, b) => order.findIndex((k) => a.startsWith(k)) - order.findIndex((k) => b.startsWith(k)))[0];
  const device = await anyDevice();
  assert.is(device.name, expected);
  const { out } = await double.run(device, { a: new Float32Array([1, 2, 3]) });
  assert.equal(Array.from(out), [2, 4, 6]);
});

test('prefer picks the order, and each kind present is found', async () => {
  assert.match((await anyDevice({ prefer: ['cpu', 'opencl'] })).name, /^CPU/);
  const kinds = { OpenCL: 'opencl', CUDA: 'cuda', WebGPU: 'webgpu', 'C:': 'c', CPU: 'cpu' } as const;
  for (const device of testDevices()) {
    const kind = Object.entries(kinds).find(([label]) => device.name.startsWith(label))?.[1];
    assert.ok(kind, `anyDevice knows the kind of ${device.name}`);
    const found = await anyDevice({ prefer: [kind] });
    assert.is(found.target.name, device.target.name);
  }
});

test('an unknown kind, an empty list or an unknown option is a LoomError', async () => {
  for (const options of [{ prefer: ['gpu'] }, { prefer: [] }, { prefered: ['cpu'] }]) {
    try {
      await anyDevice(options as never);
      assert.unreachable(JSON.stringify(options));
    } catch (e) {
      assert.instance(e, LoomError);
    }
  }
});

test.run();
