/**
 * A complex DeviceArray passed for an array argument of no declared dtype makes that argument
 * complex (issue 24 follow-up): the kernel computes on complex values whether or not another
 * argument is declared complex, through run, prepareLaunch and launch with other arrays in its
 * place. A complex array is never read as a real array of its parts: passed where a real array
 * is declared it is refused by its dtype, and passed with fewer axes than the argument has it is
 * a shape error. Host data has no complex typed array: a Float32Array for an undeclared argument
 * is float32; for a declared complex one it is the parts, flat or as { data, shape } with the
 * elements' shape. Pointwise tensors are made from host data: a DeviceArray given to tensor() or a
 * pointwise function is a LoomError that says so (it failed converting it before). Every device, against plain JS complex arithmetic.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, makeKernel, prepareLaunch, run, type DType } from '@loom/core';
import { pointwise, tensor } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';
import { refused } from './support/refusals.ts';

/** n complex values' parts, interleaved: small halves, exact in float32. */
const parts = (n: number, seed: number) =>
  Array.from({ length: 2 * n }, (_, k) => (((k + 3) * (seed + 5) * 31) % 17) / 2 - 4);
/** The complex products of two arrays of parts. */
const product = (x: readonly number[], w: readonly number[]) =>
  Array.from({ length: x.length }, (_, k) => {
    const j = k - (k % 2);
    return k % 2 === 0 ? x[j] * w[j] - x[j + 1] * w[j + 1] : x[j] * w[j + 1] + x[j + 1] * w[j];
  });

/** y = x * w with the dtypes given (undefined: inferred from the data). */
const multiply = (y?: DType, x?: DType, w?: DType) =>
  makeKernel('{ [i]: 0 <= i < n }', 'y[i] = x[i] * w[i]', [
    { name: 'y', shape: ['n'], ...(y ? { dtype: y } : {}) },
    { name: 'x', shape: ['n'], ...(x ? { dtype: x } : {}) },
    { name: 'w', shape: ['n'], ...(w ? { dtype: w } : {}) },
    '...',
  ]);

test('complex DeviceArrays type the arguments of no declared dtype, beside declared complex ones or not', async () => {
  const n = 13;
  const x = parts(n, 1);
  const w = parts(n, 2);
  const kernels = {
    'nothing declared': multiply(),
    'the output declared': multiply('complex64'),
    'an input declared': multiply(undefined, 'complex64'),
  };
  for (const device of testDevices()) {
    for (const [what, knl] of Object.entries(kernels)) {
      const at = `${device.name}, ${what}`;
      const [dx, dw, dy, other] = await Promise.all(
        [x, w, new Array(2 * n).fill(0), new Array(2 * n).fill(0)].map((v) => DeviceArray.from(device, v, 'complex64')),
      );
      await run(knl, device, { y: dy, x: dx, w: dw });
      assert.equal([...(await dy.toHost())], product(x, w), `${at}: run`);
      // the output left out: inferred complex64, returned as its parts
      const { y } = await run(knl, device, { x: dw, w: dx });
      assert.instance(y, Float32Array, at);
      assert.equal([...(y as Float32Array)], product(w, x), `${at}: run, the output inferred`);
      const prepared = await prepareLaunch(knl, device, { y: dy, x: dx, w: dx });
      await prepared.launch();
      assert.equal([...(await dy.toHost())], product(x, x), `${at}: prepareLaunch`);
      await prepared.launch({ y: other, w: dw });
      assert.equal([...(await other.toHost())], product(x, w), `${at}: launch with other arrays`);
      prepared.release();
      for (const a of [dx, dw, dy, other]) a.release();
    }
  }
});

test('a complex DeviceArray is never read as a real array of its parts', async () => {
  // x has two axes: a complex array of one axis must not pass as its (n, 2) parts
  const rowSums = makeKernel('{ [i, j]: 0 <= i < n and 0 <= j < m }', 'y[i] = sum(j, x[i, j])', [
    { name: 'y', dtype: 'complex64', shape: ['n'] },
    { name: 'x', shape: ['n', 'm'] },
    '...',
  ]);
  for (const device of testDevices()) {
    const x = await DeviceArray.from(device, parts(4, 3), 'complex64');
    const y = await DeviceArray.from(device, new Array(8).fill(0), 'complex64');
    await refused(
      () => run(rowSums, device, { y, x }),
      "argument 'x' has shape (4), but the kernel needs 2 axes: (n, m)",
    );
    // where a real array is declared, a complex one is refused by its dtype
    await refused(
      () => run(multiply('complex64', 'float32'), device, { y, x, w: x }),
      "argument 'x' is float32, but a DeviceArray of complex64",
    );
    await refused(
      () => run(multiply(undefined, 'float32'), device, { y, x, w: x }),
      "argument 'x' is float32, but a DeviceArray of complex64",
    );
    // two axes given as two axes: the row sums
    const m = await DeviceArray.from(device, parts(6, 4), 'complex64', [3, 2]);
    const sums = await DeviceArray.from(device, new Array(6).fill(0), 'complex64');
    await run(rowSums, device, { y: sums, x: m });
    const p = parts(6, 4);
    const expected = [0, 1, 2].flatMap((i) => [p[4 * i] + p[4 * i + 2], p[4 * i + 1] + p[4 * i + 3]]);
    assert.equal([...(await sums.toHost())], expected, `${device.name}: row sums`);
    for (const a of [x, y, m, sums]) a.release();
  }
});

test('complex host data: the parts of a declared complex argument (flat, or shaped as its elements); an undeclared one is real', async () => {
  const n = 9;
  const x = parts(n, 5);
  const w = parts(n, 6);
  for (const device of testDevices()) {
    const knl = multiply(undefined, 'complex64', 'complex64');
    const flat = await run(knl, device, { x: Float32Array.from(x), w: Float32Array.from(w) });
    assert.equal([...(flat.y as Float32Array)], product(x, w), `${device.name}: flat parts`);
    const shaped = await run(knl, device, {
      x: { data: Float32Array.from(x), shape: [n] },
      w: { data: Float32Array.from(w), shape: [n, 2] },
    });
    assert.equal(
      [...(shaped.y as Float32Array)],
      product(x, w),
      `${device.name}: { data, shape } of the elements or of the parts`,
    );
    // no declared dtype: a Float32Array is float32, its numbers multiplied one by one
    const real = await run(multiply(), device, { x: Float32Array.from(x), w: Float32Array.from(w) });
    assert.equal(
      [...(real.y as Float32Array)],
      x.map((v, k) => Math.fround(v * w[k])),
      `${device.name}: real`,
    );
  }
});

test('pointwise: a DeviceArray is refused, saying how to make a tensor of it; that tensor is complex', async () => {
  const x = parts(5, 7);
  const twice = pointwise({}, (a: number) => a * 2);
  for (const device of testDevices()) {
    const d = await DeviceArray.from(device, x, 'complex64');
    await refused(
      async () => tensor(d as never),
      'tensor(): got a DeviceArray of complex64; make a tensor of its elements with tensor(await array.toHost(), array.shape',
    );
    await refused(async () => twice(d as never), 'a DeviceArray of complex64 (pointwise functions take Tensors');
    const t = tensor(await d.toHost(), d.shape, { device, dtype: d.dtype as 'complex64' });
    const out = await twice(t);
    assert.is(out.dtype, 'complex64', device.name);
    assert.equal(
      [...((await out.toArray()) as unknown as Float32Array)].flat(),
      x.map((v) => 2 * v),
      `${device.name}: pointwise over the tensor`,
    );
    d.release();
  }
});

test.run();
