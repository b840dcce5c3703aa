/**
 * One DeviceArray passed as two arguments of a kernel, one of them written (issue 24 follow-up:
 * WebGPU refused the launch, CPU and OpenCL ran it). Where the aliasing is well defined (each
 * element read, then written, by one work-item at one index) every device runs it in place and
 * gives what plain JS gives; otherwise it is a LoomError before anything runs, on every device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, makeKernel, prepareLaunch, run, splitIname } from '@loom/core';
import { testDevices } from './support/devices.ts';
import { refused } from './support/refusals.ts';

const values = (n: number) => Array.from({ length: n }, (_, k) => ((k * 7) % 11) - 5);
const f32 = [
  { name: 'y', dtype: 'float32', shape: ['n'] } as const,
  { name: 'x', dtype: 'float32', shape: ['n'] } as const,
  '...' as const,
];

test('in place where each element is read, then written, by one work-item: every device agrees with JS', async () => {
  const n = 37;
  const x = values(n);
  const kernels = {
    'one instruction': makeKernel('{ [i]: 0 <= i < n }', 'y[i] = 2 * x[i] + 1', f32),
    'a temporary first': makeKernel(
      '{ [i]: 0 <= i < n }',
      ['<float32> t = x[i] * 2 {id=first}', 'y[i] = t + 1 {dep=first}'],
      f32,
    ),
  };
  for (const device of testDevices()) {
    for (const [what, knl] of Object.entries(kernels)) {
      const at = `${device.name}, ${what}`;
      const a = await DeviceArray.from(device, x, 'float32');
      await run(knl, device, { y: a, x: a });
      assert.equal(
        [...(await a.toHost())],
        x.map((v) => 2 * v + 1),
        `${at}: run`,
      );
      const prepared = await prepareLaunch(knl, device, { y: a, x: a });
      await prepared.launch();
      await prepared.launch();
      assert.equal(
        [...(await a.toHost())],
        x.map((v) => 2 * (2 * (2 * v + 1) + 1) + 1),
        `${at}: prepared, launched twice`,
      );
      await refused(async () => prepared.launch({ x: a }), "launch: 'x' was prepared as the same array as 'y'");
      prepared.release();
      // the same kernel with separate arrays still computes from x
      const [b, c] = await Promise.all([
        DeviceArray.from(device, x, 'float32'),
        DeviceArray.from(device, new Array(n).fill(0), 'float32'),
      ]);
      const separate = await prepareLaunch(knl, device, { y: c, x: b });
      await separate.launch();
      assert.equal(
        [...(await c.toHost())],
        x.map((v) => 2 * v + 1),
        `${at}: separate`,
      );
      await refused(async () => separate.launch({ x: c }), "launch: 'y' and 'x' would be the same buffer");
      separate.release();
      for (const d of [a, b, c]) d.release();
    }
  }
});

test('in place over a split loop (each element one work-item of a work-group): every device agrees with JS', async () => {
  const n = 37;
  const x = values(n);
  const knl = splitIname(makeKernel('{ [i]: 0 <= i < n }', 'y[i] = 2 * x[i] + 1', f32), 'i', 8, {
    outerTag: 'g.0',
    innerTag: 'l.0',
  });
  for (const device of testDevices()) {
    const a = await DeviceArray.from(device, x, 'float32');
    await run(knl, device, { y: a, x: a });
    assert.equal(
      [...(await a.toHost())],
      x.map((v) => 2 * v + 1),
      device.name,
    );
    a.release();
  }
});

test('aliasing whose result would depend on the device is a LoomError before anything runs, on every device', async () => {
  const n = 8;
  const cases: [string, ReturnType<typeof makeKernel>, string][] = [
    ['reversed', makeKernel('{ [i]: 0 <= i < n }', 'y[i] = x[n - 1 - i]', f32), 'may be different elements'],
    ['a neighbour', makeKernel('{ [i]: 0 <= i < n - 1 }', 'y[i] = x[i + 1]', f32), 'may be different elements'],
    [
      'two inames on one element',
      makeKernel('{ [i, j]: 0 <= i < 4 and 0 <= j < 2 }', 'y[2*i + 2*j] = x[2*i + 2*j] + 1', f32),
      'is not indexed by distinct inames',
    ],
    [
      'a sum over the array',
      makeKernel('{ [i, j]: 0 <= i, j < n }', 'y[i] = sum(j, x[j])', f32),
      'may be different elements',
    ],
    [
      'a loop around',
      makeKernel('{ [i, j]: 0 <= i, j < n }', 'y[i] = y[i] + x[i] * j {id=acc}', f32),
      "instruction 'acc' reaches",
    ],
    ['both written', makeKernel('{ [i]: 0 <= i < n }', ['y[i] = 1', 'x[i] = 2'], f32), 'and the kernel writes both'],
  ];
  for (const device of testDevices()) {
    for (const [what, knl, message] of cases) {
      const a = await DeviceArray.from(device, values(n), 'float32');
      await refused(() => run(knl, device, { y: a, x: a }), message);
      await refused(() => prepareLaunch(knl, device, { y: a, x: a }), message);
      assert.equal([...(await a.toHost())], values(n), `${device.name}, ${what}: nothing ran`);
      a.release();
    }
    // two views of one buffer with different shapes
    const a = await DeviceArray.from(device, values(n), 'float32');
    const knl = makeKernel('{ [i]: 0 <= i < n }', 'y[i] = x[i]', [
      { name: 'y', dtype: 'float32', shape: ['n'] },
      { name: 'x', dtype: 'float32', shape: ['m', 4] },
      '...',
    ]);
    await refused(
      () => run(knl, device, { y: a, x: a.reshape([2, 4]) }),
      'seen as different arrays (float32 (8) and float32 (2, 4))',
    );
    a.release();
  }
});

test.run();
