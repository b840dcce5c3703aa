/**
 * Complex arrays held whole (issue 24): a complex64 element is 8 bytes, a complex128 one 16,
 * two numbers on the host (its parts, interleaved). DeviceArrays of complex dtypes round-trip
 * every number; a computation with complex parameters allocates, copies and reads back all of
 * them (host arrays, DeviceArrays, an output left out, a prepared call); a kernel takes
 * complex DeviceArrays through run and prepareLaunch. Complex scalar parameters (a number,
 * `{ re, im }` or `[re, im]`), of a computation and of transformations attached to it. Every
 * device, against plain JS complex arithmetic; complex128 where the device has float64.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, makeKernel, prepareLaunch, run, type Device } from '@loom/core';
import { addParam, mulParam, pureParallel } from '@loom/computation';
import { supportsDType, testDevices } from './support/devices.ts';
import { refused } from './support/refusals.ts';

type Complex = 'complex64' | 'complex128';
const complexDtypes = (device: Device): Complex[] =>
  (['complex64', 'complex128'] as const).filter((t) =>
    supportsDType(device, t === 'complex64' ? 'float32' : 'float64'),
  );
const hostOf = (t: Complex, values: readonly number[]) =>
  (t === 'complex64' ? Float32Array : Float64Array).from(values);
/** n complex values' parts, interleaved: small halves and quarters, exact in float32. */
const parts = (n: number, seed: number) =>
  Array.from({ length: 2 * n }, (_, k) => (((k + 1) * (seed + 7) * 37) % 19) / 4 - 2);

test('DeviceArray.from and toHost round-trip every number of a complex array', async () => {
  for (const device of testDevices()) {
    for (const t of complexDtypes(device)) {
      const what = `${device.name}, ${t}`;
      const small = await DeviceArray.from(device, [1, 2, 3, 4], t, [2]);
      assert.equal([...(await small.toHost())], [1, 2, 3, 4], what);
      assert.instance(await small.toHost(), t === 'complex64' ? Float32Array : Float64Array, what);
      assert.is(small.byteLength, t === 'complex64' ? 16 : 32, what);
      small.release();
      // a typed array, the shape by default (its numbers, two per element), and a reshape
      const values = parts(35, 3);
      const a = await DeviceArray.from(device, hostOf(t, values), t);
      assert.equal(a.shape, [35], what);
      assert.equal([...(await a.toHost())], values, what);
      assert.equal([...(await a.reshape([5, 7]).toHost())], values, what);
      assert.equal(a.partsView().shape, [35, 2], what);
      a.release();
      await refused(() => DeviceArray.from(device, [1, 2, 3], t), 'no whole number of');
      await refused(() => DeviceArray.from(device, hostOf(t, [1, 2, 3, 4]), t, [3]), 'two numbers, its parts, per');
    }
  }
});

/** y = x * w + 1j: complex multiply and add. */
const mulAdd = (x: readonly number[], w: readonly number[]) =>
  Array.from({ length: x.length }, (_, k) => {
    const j = k - (k % 2);
    return k % 2 === 0 ? x[j] * w[j] - x[j + 1] * w[j + 1] : x[j] * w[j + 1] + x[j + 1] * w[j] + 1;
  });

function complexComputation(t: Complex, shape: readonly number[]) {
  return pureParallel({
    params: [
      { name: 'y', dtype: t, shape, role: 'o' },
      { name: 'x', dtype: t, shape, role: 'i' },
      { name: 'w', dtype: t, shape, role: 'i' },
    ] as const,
    body: (idx) => `y[${idx.join(', ')}] = x[${idx.join(', ')}] * w[${idx.join(', ')}] + 1j`,
  });
}

test('a computation with complex parameters: the output allocated, copied and read back whole', async () => {
  const shape = [6, 13];
  const n = 78;
  for (const device of testDevices()) {
    for (const t of complexDtypes(device)) {
      const what = `${device.name}, ${t}`;
      const x = parts(n, 1);
      const w = parts(n, 2);
      const expected = mulAdd(x, w);
      const compiled = await complexComputation(t, shape).compile(device);
      // host arrays in, the output left out: allocated by the call and read back
      const { y } = await compiled(undefined, hostOf(t, x), hostOf(t, w));
      assert.equal([...(y as Float32Array)], expected, `${what}: host arrays`);
      // a host array given for the output is filled
      const into = hostOf(t, new Array(2 * n).fill(0));
      await compiled(into, hostOf(t, x), hostOf(t, w));
      assert.equal([...into], expected, `${what}: output given`);
      // DeviceArrays in place, and a prepared call
      const [dx, dw, dy] = await Promise.all([
        DeviceArray.from(device, x, t, shape),
        DeviceArray.from(device, w, t, shape),
        DeviceArray.from(device, new Array(2 * n).fill(0), t, shape),
      ]);
      const out = (await compiled(dy, dx, dw)).y as DeviceArray;
      assert.equal([...(await out.toHost())], expected, `${what}: DeviceArrays`);
      const again = await DeviceArray.from(device, new Array(2 * n).fill(0), t, shape);
      const prepared = await compiled.prepare(again, dx, dw);
      await prepared.launch();
      assert.equal([...(await again.toHost())], expected, `${what}: prepared`);
      prepared.release();
      for (const a of [dx, dw, dy, again]) a.release();
      await refused(() => compiled(undefined, hostOf(t, x.slice(0, n)), hostOf(t, w)), 'two per element, its parts');
      await refused(() => compiled(undefined, Int32Array.from(x) as never, hostOf(t, w)), 'pass its parts interleaved');
    }
  }
});

/** y = a * x: each element times one complex number. */
const scaled = (x: readonly number[], [re, im]: readonly [number, number]) =>
  Array.from({ length: x.length }, (_, k) => {
    const j = k - (k % 2);
    return k % 2 === 0 ? x[j] * re - x[j + 1] * im : x[j] * im + x[j + 1] * re;
  });

test('complex scalar parameters: a number, { re, im } or [re, im], in a call, by name and prepared', async () => {
  const n = 9;
  for (const device of testDevices()) {
    for (const t of complexDtypes(device)) {
      const what = `${device.name}, ${t}`;
      const comp = pureParallel({
        params: [
          { name: 'y', dtype: t, shape: [n], role: 'o' },
          { name: 'x', dtype: t, shape: [n], role: 'i' },
          { name: 'a', dtype: t, role: 's' },
        ] as const,
        body: 'y[idx0] = a * x[idx0]',
      });
      const compiled = await comp.compile(device);
      const x = parts(n, 6);
      const call = async (a: number | { re: number; im: number } | [number, number]) => [
        ...((await compiled(undefined, hostOf(t, x), a)).y as Float32Array),
      ];
      assert.equal(await call({ re: 0.5, im: -2 }), scaled(x, [0.5, -2]), `${what}: { re, im }`);
      assert.equal(await call([-1.5, 0.25]), scaled(x, [-1.5, 0.25]), `${what}: [re, im]`);
      assert.equal(await call(3), scaled(x, [3, 0]), `${what}: a number is real`);
      const byName = await compiled.byName({ x: hostOf(t, x), a: [0, 1] });
      assert.equal([...(byName.y as Float32Array)], scaled(x, [0, 1]), `${what}: by name`);
      const [dx, dy] = await Promise.all([DeviceArray.from(device, x, t), DeviceArray.from(device, parts(n, 0), t)]);
      const prepared = await compiled.prepare(dy, dx, { re: 2, im: 2 });
      await prepared.launch();
      assert.equal([...(await dy.toHost())], scaled(x, [2, 2]), `${what}: prepared`);
      prepared.release();
      dx.release();
      dy.release();
      await refused(() => compiled(undefined, hostOf(t, x), [1, 2, 3] as never), "parameter 'a' is a scalar");
      await refused(() => compiled(undefined, hostOf(t, x), { re: 1 } as never), 'pass a number, { re, im } or');
    }
  }
  // a real scalar takes no complex value
  const real = pureParallel({
    params: [
      { name: 'y', dtype: 'float32', shape: [2], role: 'o' },
      { name: 'a', dtype: 'float32', role: 's' },
    ] as const,
    body: 'y[idx0] = a',
  });
  const compiled = await real.compile(testDevices()[0]);
  await refused(
    () => compiled(undefined, { re: 1, im: 0 } as never),
    "parameter 'a' is a scalar (float32); pass a number,",
  );
});

test('transformations with complex parameters on complex arrays: addParam and mulParam', async () => {
  const n = 12;
  for (const device of testDevices()) {
    for (const t of complexDtypes(device)) {
      const comp = complexComputation(t, [n])
        .attach('x', mulParam({ dtype: t }), 'output', { input: 'x_in', param: 'scale' })
        .attach('y', addParam({ dtype: t }), 'input', { output: 'y_out', param: 'shift' });
      const compiled = await comp.compile(device);
      const x = parts(n, 7);
      const w = parts(n, 8);
      const { y_out } = await compiled(undefined, [0.25, 0], hostOf(t, x), { re: -1, im: 0.5 }, hostOf(t, w));
      // y = (x * scale) * w + 1j, then + shift
      const expected = mulAdd(scaled(x, [-1, 0.5]), w).map((v, k) => v + (k % 2 === 0 ? 0.25 : 0));
      assert.equal([...(y_out as Float32Array)], expected, `${device.name}, ${t}`);
    }
  }
});

test('a kernel takes complex DeviceArrays through run and prepareLaunch (and launch with others in their place)', async () => {
  const knl = makeKernel('{ [i]: 0 <= i < n }', 'y[i] = x[i] * w[i] + 1j', [
    { name: 'y', dtype: 'complex64', shape: ['n'] },
    { name: 'x', dtype: 'complex64', shape: ['n'] },
    { name: 'w', dtype: 'complex64', shape: ['n'] },
    '...',
  ]);
  const n = 21;
  const x = parts(n, 4);
  const w = parts(n, 5);
  for (const device of testDevices()) {
    const [dx, dw, dy, other] = await Promise.all(
      [x, w, new Array(2 * n).fill(0), new Array(2 * n).fill(0)].map((v) => DeviceArray.from(device, v, 'complex64')),
    );
    await run(knl, device, { y: dy, x: dx, w: dw });
    assert.equal([...(await dy.toHost())], mulAdd(x, w), `${device.name}: run`);
    const prepared = await prepareLaunch(knl, device, { y: dy, x: dw, w: dx });
    await prepared.launch({ y: other });
    assert.equal([...(await other.toHost())], mulAdd(w, x), `${device.name}: prepareLaunch, another output`);
    prepared.release();
    await refused(
      async () =>
        (await prepareLaunch(knl, device, { y: dy, x: dx, w: dw })).launch({
          y: await DeviceArray.from(device, new Array(4 * n).fill(0), 'complex64'),
        }),
      'prepared for (21)',
    );
    for (const a of [dx, dw, dy, other]) a.release();
  }
});

test.run();
