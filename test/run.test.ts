/** `run`: binding data to arguments, inferring sizes, caching variants, device arrays. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, globalArg, makeKernel, run } from '@loom/core';
import { countingCompiles as counting, randomFloat32, testDevices } from './support/devices.ts';

for (const device of testDevices()) {
  test(`${device.name}: one compiled variant per dtype combination`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + 1');
    const { device: d, compiles } = counting(device);
    await run(knl, d, { a: new Float32Array([1, 2]) });
    await run(knl, d, { a: new Float32Array([3, 4, 5]) });
    assert.is(compiles(), 1);
    const { out } = await run(knl, d, { a: new Int32Array([7, 8]) });
    assert.instance(out, Int32Array);
    assert.equal(Array.from(out as Int32Array), [8, 9]);
    assert.is(compiles(), 2);
  });

  test(`${device.name}: repeated calls reuse the binding but never the data, and still check every call`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * 3');
    for (let round = 0; round < 3; round++) {
      const a = Float32Array.from({ length: 5 }, (_, k) => k + round);
      const { out } = await run(knl, device, { a });
      assert.equal(
        Array.from(out as Float32Array),
        Array.from(a, (x) => x * 3),
        `round ${round}`,
      );
    }
    await run(knl, device, { a: new Float32Array(5), n: 6 }).then(
      () => assert.unreachable('a short array must be refused'),
      (e) => assert.match(String(e), /has 5 elements/),
    );
    const other = await run(knl, device, { a: new Int32Array([1, 2]) });
    assert.equal(Array.from(other.out as Int32Array), [3, 6]);
  });

  test(`${device.name}: sizes come from shaped arrays and from flat lengths`, async () => {
    const knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i,j] = a[i,j] * 2');
    const a = randomFloat32(12, 2);
    const shaped = await run(knl, device, { a: { data: a, shape: [3, 4] } });
    assert.equal(
      Array.from(shaped.out as Float32Array),
      Array.from(a, (x) => Math.fround(2 * x)),
    );
    // with m given, n follows from the flat length 12 = n*4
    const flat = await run(knl, device, { a, m: 4 });
    assert.equal(
      Array.from(flat.out as Float32Array),
      Array.from(a, (x) => Math.fround(2 * x)),
    );
    const square = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]');
    const sq = await run(square, device, { a: Float32Array.from({ length: 9 }, (_, k) => k) });
    assert.equal(Array.from(sq.out as Float32Array), [0, 3, 6, 1, 4, 7, 2, 5, 8]);
  });

  test(`${device.name}: device arrays in and out stay on the device`, async () => {
    const knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i] + b', [
      globalArg('out', { shape: 'auto', isInput: false }),
      '...',
    ]);
    const a = await DeviceArray.from(
      device,
      Float32Array.from({ length: 4 }, (_, k) => k),
      'float32',
      [2, 2],
    );
    const out = await DeviceArray.from(device, new Float32Array(4), 'float32', [2, 2]);
    const result = await run(knl, device, { a, out, b: 0.5 });
    assert.is(result.out, out);
    assert.equal(Array.from((await out.toHost()) as Float32Array), [0.5, 2.5, 1.5, 3.5]);
    a.release();
    out.release();
  });

  test(`${device.name}: an output passed in keeps the entries the kernel does not write`, async () => {
    const knl = makeKernel('{ [i]: 1<=i<n-1 }', 'out[i] = a[i-1] + a[i+1]', [
      globalArg('out', { shape: ['n'], isInput: false }),
      '...',
    ]);
    const a = Float32Array.from([1, 2, 3, 4, 5]);
    const out = new Float32Array(5).fill(-1);
    await run(knl, device, { a, out });
    assert.equal(Array.from(out), [-1, 4, 6, 8, -1]);
  });

  test(`${device.name}: a domain tree: j ranges up to the outer i`, async () => {
    const knl = makeKernel(['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }'], 'out[i] = sum(j, a[j])');
    const a = Float32Array.from([1, 2, 3, 4]);
    const { out } = await run(knl, device, { a });
    assert.equal(Array.from(out as Float32Array), [1, 3, 6, 10]);
  });

  test(`${device.name}: a data-dependent write index is guarded, never out of bounds`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[idx[i]] = a[i]', [
      globalArg('out', { shape: ['m'], dtype: 'float32', isInput: false }),
      '...',
    ]);
    const idx = Int32Array.from([2, -1, 0, 99]);
    const a = Float32Array.from([10, 20, 30, 40]);
    const out = new Float32Array(3);
    // the drop semantics, not the report (security-bounds.test.ts checks the LoomError)
    await run(knl, device, { idx, a, out, m: 3 }, { checkBounds: false });
    assert.equal(Array.from(out), [30, 0, 10]);
  });

  test(`${device.name}: value arguments of float type and zero-size launches`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = alpha*a[i]');
    const { out } = await run(knl, device, { a: Float32Array.from([1, 2]), alpha: 0.25 });
    assert.equal(Array.from(out as Float32Array), [0.25, 0.5]);
    const empty = await run(knl, device, { a: new Float32Array(0), alpha: 1 });
    assert.is((empty.out as Float32Array).length, 0);
  });
}

test.run();
