/**
 * Plans (@loom/computation): temporaries whose lifetimes do not overlap share a buffer, as
 * Reikna's temporary-memory manager arranges, and the results stay right; compile() builds
 * once per device; a compiled computation checks what it is called with.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, LoomError, makeKernel, splitIname } from '@loom/core';
import { computation, deviceParameters } from '@loom/computation';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

const N = 300;
const step = (k: number) =>
  splitIname(makeKernel('{ [i]: 0<=i<n }', `out[i] = inp[i] * ${k} + 1`), 'i', 64, {
    outerTag: 'g.0',
    innerTag: 'l.0',
  });

/** input -> t1 -> t2 -> t3 -> output: t1 and t3 never live at once, nor t2 and output's kernel's inputs. */
const chain = computation({
  name: 'chain',
  params: [
    { name: 'output', dtype: 'float32', shape: [N], role: 'o' },
    { name: 'input', dtype: 'float32', shape: [N], role: 'i' },
  ],
  buildPlan(plan, _device, output, input) {
    const t1 = plan.tempArrayLike(input);
    const t2 = plan.tempArrayLike(input);
    const t3 = plan.tempArray('float32', [N]);
    plan.kernelCall(step(2), { out: t1, inp: input });
    plan.kernelCall(step(3), { out: t2, inp: t1 });
    plan.kernelCall(step(4), { out: t3, inp: t2 });
    plan.kernelCall(step(5), { out: output, inp: t3 });
  },
});

test('temporaries with disjoint lifetimes share buffers, and the chain computes what it says', async () => {
  const a = randomFloat32(N, 1);
  const expected = Array.from(a, (x) => [2, 3, 4, 5].reduce((v, k) => Math.fround(Math.fround(v * k) + 1), x));
  for (const device of testDevices()) {
    const compiled = await chain.compile(device);
    assert.is(compiled.temporaryBuffers, 2, 't1 and t3 share one buffer, t2 has the other');
    const { output } = await compiled(undefined, a);
    assertClose(output as Float32Array, expected, device.name);
    // and again, with the same buffers
    assertClose((await compiled(undefined, a)).output as Float32Array, expected, device.name);
  }
});

test('compile builds once per device', async () => {
  const device = testDevices()[0];
  assert.is(await chain.compile(device), await chain.compile(device));
  const params = deviceParameters(device);
  assert.ok(params.maxWorkGroupSize >= 1 && params.localMemoryBytes > 0 && params.subgroupSize >= 1);
});

test('a compiled computation refuses wrong arguments before running anything', async () => {
  const compiled = await chain.compile(testDevices()[0]);
  const refused = async (call: () => Promise<unknown>, message: string) => {
    try {
      await call();
      assert.unreachable('accepted');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, message);
    }
  };
  await refused(() => compiled(undefined, new Float64Array(N) as never), 'got a Float64Array (float64)');
  await refused(() => compiled(undefined, new Float32Array(N + 1)), `got ${N + 1} elements`);
  await refused(
    () => compiled(undefined, undefined as never),
    "parameter 'input' (float32, shape (300)) is an input: pass it",
  );
  await refused(() => compiled.byName({ input: new Float32Array(N), other: 1 } as never), "has no parameter 'other'");
  await refused(
    async () => (compiled as unknown as (...a: unknown[]) => unknown)(new Float32Array(N)),
    'takes 2 arguments (output, input), got 1',
  );
});

test('prepare binds a call to DeviceArrays once; each launch runs every kernel again', async () => {
  const a = randomFloat32(N, 2);
  const once = (x: number) => [2, 3, 4, 5].reduce((v, k) => Math.fround(Math.fround(v * k) + 1), x);
  for (const device of testDevices()) {
    const compiled = await chain.compile(device);
    const input = await DeviceArray.from(device, a, 'float32', [N]);
    const output = await DeviceArray.from(device, new Float32Array(N), 'float32', [N]);
    const prepared = await compiled.prepare(output, input);
    try {
      assert.is(prepared.launches.length, 4, 'one prepared launch per kernel');
      await prepared.launch();
      assertClose((await output.toHost()) as Float32Array, Array.from(a, once), device.name);
      // the output fed back as the input: a second launch sees the new data
      await device.write(input.buffer, await output.toHost());
      await prepared.launch();
      assertClose(
        (await output.toHost()) as Float32Array,
        Array.from(a, (x) => once(once(x))),
        device.name,
      );
    } finally {
      prepared.release();
      input.release();
      output.release();
    }
  }
});

test('prepare refuses host arrays and arrays of another shape', async () => {
  const device = testDevices()[0];
  const compiled = await chain.compile(device);
  const input = await DeviceArray.from(device, new Float32Array(N + 1), 'float32', [N + 1]);
  const output = await DeviceArray.from(device, new Float32Array(N), 'float32', [N]);
  try {
    const refused = async (call: () => Promise<unknown>, message: string) => {
      try {
        await call();
        assert.unreachable('accepted');
      } catch (e) {
        assert.instance(e, LoomError);
        assert.match((e as Error).message, message);
      }
    };
    await refused(
      () => compiled.prepare(output, new Float32Array(N) as never),
      "parameter 'input' takes a DeviceArray, not a Float32Array",
    );
    await refused(() => compiled.prepare(output, input), 'got a DeviceArray of float32, shape (301)');
  } finally {
    input.release();
    output.release();
  }
});

test.run();
