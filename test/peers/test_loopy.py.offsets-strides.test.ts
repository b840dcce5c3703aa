/**
 * Ports of loopy's tests of offsets and strides of host arrays (issue 27, "Arrays and
 * arguments"): `offset: 'auto'` and `defaultOffset`, `stride:auto`, views passed from the
 * host (`DeviceArray.view`, `{ data, shape, strides, offset }`), `defaultOrder` and the
 * strides check. Each runs on every test device against plain JavaScript; names are the
 * originals', the file each comes from is in its comment.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, globalArg, LoomError, makeKernel, run, tagArrayAxes, type DeviceArrayView } from '@loom/core';
import { supportsDType, testDevices } from '../support/devices.ts';

/** Distinct values, exact in float32, so results compare exactly. */
const values = (n: number, seed: number) => Array.from({ length: n }, (_, k) => ((k * 7 + seed * 13) % 101) / 4);

for (const device of testDevices()) {
  const dtype = supportsDType(device, 'float64') ? 'float64' : 'float32';

  // test_loopy.py: b[6:13, 9:14] = 2*a[3:10, 5:10] on two 20 x 20 arrays, as views of their buffers
  test(`${device.name}: test_offsets_and_slicing`, async () => {
    const n = 20;
    let knl = makeKernel('{[i,j]: 0<=i<n and 0<=j<m }', 'b[i,j] = 2*a[i,j]', undefined, {
      assumptions: 'n>=1 and m>=1',
      defaultOffset: 'auto',
    });
    knl = tagArrayAxes(knl, 'a,b', 'stride:auto,stride:1');
    const aFull = values(n * n, 1);
    const bFull = values(n * n, 2);
    const expected = [...bFull];
    for (let i = 0; i < 7; i++)
      for (let j = 0; j < 5; j++) expected[(6 + i) * n + 9 + j] = 2 * aFull[(3 + i) * n + 5 + j];

    const a = await DeviceArray.from(device, aFull, dtype, [n, n]);
    const b = await DeviceArray.from(device, bFull, dtype, [n, n]);
    try {
      const out = await run(knl, device, {
        a: a.view([7, 5], { offset: 3 * n + 5, strides: [n, 1] }),
        b: b.view([7, 5], { offset: 6 * n + 9, strides: [n, 1] }),
      });
      assert.equal(
        Array.from((await b.toHost()) as Float64Array),
        expected,
        'the view of b, and nothing else of its buffer, is written',
      );
      assert.equal(
        Array.from((await (out.b as DeviceArrayView).toHost()) as Float64Array),
        expected.filter((_, k) => Math.floor(k / n) >= 6 && Math.floor(k / n) < 13 && k % n >= 9 && k % n < 14),
      );
    } finally {
      a.release();
      b.release();
    }

    // the same slices of host arrays
    const Host = dtype === 'float64' ? Float64Array : Float32Array;
    const bHost = Host.from(bFull);
    await run(knl, device, {
      a: { data: Host.from(aFull), shape: [7, 5], offset: 3 * n + 5, strides: [n, 1] },
      b: { data: bHost, shape: [7, 5], offset: 6 * n + 9, strides: [n, 1] },
    });
    assert.equal(Array.from(bHost), expected);

    // a view reaching past its buffer is refused before anything runs, naming the argument
    const before = Host.from(bFull);
    try {
      await run(knl, device, {
        a: { data: Host.from(aFull), shape: [7, 5], offset: 3 * n + 5, strides: [n, 1] },
        b: { data: before, shape: [7, 5], offset: 15 * n + 9, strides: [n, 1] },
      });
      assert.unreachable('a view past the end of its buffer runs');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match(
        (e as Error).message,
        /array 'b'.*reaches element 394.*holds 400|array 'b'.*reaches element \d+, but its buffer holds 400/,
      );
    }
    assert.equal(
      Array.from(before),
      bFull.map((x) => Host.from([x])[0]),
      'nothing was written',
    );
  });

  // test_target.py: y = 133*x with x the element 13 of arange(42)
  test(`${device.name}: test_scalar_array_take_offset`, async () => {
    const knl = makeKernel('{:}', 'y = 133*x', [globalArg('x', { shape: [], offset: 'auto' }), '...']);
    const base = await DeviceArray.from(
      device,
      Int32Array.from({ length: 42 }, (_, k) => k),
      'int32',
    );
    try {
      const { y } = await run(knl, device, { x: base.view([], { offset: 13 }) });
      assert.equal(Array.from(y as Int32Array), [1729]);
      // and from the host: the 13th element of a host array
      const { y: fromHost } = await run(knl, device, {
        x: { data: Int32Array.from({ length: 42 }, (_, k) => k), shape: [], offset: 13 },
      });
      assert.equal(Array.from(fromHost as Int32Array), [1729]);
    } finally {
      base.release();
    }
  });

  // test_loopy.py: a C-order array passed to a kernel of defaultOrder 'F' is refused ("strides mismatch")
  test(`${device.name}: test_shape_mismatch_check`, async () => {
    const knl = makeKernel('{[i,j]: 0 <= i < n and 0 <= j < m}', 'c[i] = sum(j, a[i,j]*b[j])', undefined, {
      defaultOrder: 'F',
    });
    const a = Float32Array.from(values(100, 3));
    const b = Float32Array.from(values(10, 4));
    try {
      await run(knl, device, { a: { data: a, shape: [10, 10], strides: [10, 1] }, b });
      assert.unreachable('a C-order array runs in an F-order kernel');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, /strides mismatch/);
    }
    // the same data passed in the kernel's order computes c = a b with a column-major
    const { c } = await run(knl, device, { a: { data: a, shape: [10, 10], strides: [1, 10] }, b });
    const expected = Array.from({ length: 10 }, (_, i) =>
      Array.from({ length: 10 }, (_, j) => Math.fround(a[i + 10 * j] * b[j])).reduce((x, y) => Math.fround(x + y), 0),
    );
    Array.from(c as Float32Array).forEach((x, i) =>
      assert.ok(
        Math.abs(x - expected[i]) <= 1e-4 * Math.abs(expected[i]) + 1e-4,
        `c[${i}] = ${x}, expected ${expected[i]}`,
      ),
    );
  });
}

test.run();
