/**
 * The vector4 variant of rank 1 (packages/elementwise/src/kernel.ts) prints no guard around
 * its loads and stores on WGSL: its index `offset + t` is affine, so the check before launch
 * (runtime/bounds-check.ts) proves it inside each array's declared shape, and every launch
 * refuses a buffer smaller than that shape (call-plan.ts, checkBufferFits). Here, on every
 * device present: results for lengths around multiples of 4 and of the work-group, aligned
 * and unaligned starts (the unaligned ones take the flat variant), nothing outside a view
 * written; and the refusals that the dropped guards rely on, before anything runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DeviceArray,
  globalArg,
  LoomError,
  makeKernel,
  prepareLaunch,
  run,
  splitIname,
  tagArrayAxes,
  tagInames,
  targetFacts,
  valueArg,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { pointwise, tensor } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';
import { assertNumbers, numbers, sample } from './support/elementwise-reference.ts';

const add = pointwise({ name: 'add' }, (x: number, y: number) => x + y);

/** Lengths around multiples of 4 and of a work-group's 256 vectors (1024 numbers). */
const LENGTHS = [
  1,
  2,
  3,
  4,
  5,
  7,
  8,
  9,
  15,
  16,
  17,
  31,
  32,
  33,
  255,
  256,
  257,
  1023,
  1024,
  1025,
  2047,
  2048,
  2049,
  4096 + 4,
];

/** The variant a WGSL or OpenCL device gives `x + y` of `n` numbers starting at `offset` in storages of `length`. */
function expectedVariant(device: Device, n: number, offset: number, length: number): string {
  const facts = targetFacts(device.target);
  if (facts.sequentialWorkItems) return 'flat';
  const aligned = n % 4 === 0 && offset % 4 === 0 && (!facts.wholeVectorStorage || length % 4 === 0);
  return aligned ? 'vector4' : 'flat';
}

for (const device of testDevices()) {
  test(`${device.name}: x + y of every length, aligned and unaligned starts, into a given output; nothing else written`, async () => {
    for (const n of LENGTHS) {
      for (const offset of [0, 1, 3, 4, 8]) {
        // storages with room before and after the views (whole vectors when n and offset are)
        const length = offset + n + (n % 4 === 0 ? 4 : 1);
        const [hx, hy, ho] = [
          sample('float32', length, n + offset),
          sample('float32', length, n + offset + 1),
          sample('float32', length, n + offset + 2),
        ];
        const [sx, sy, so] = [hx, hy, ho].map((h) => tensor(h, [length], { device }));
        const [x, y, out] = [sx, sy, so].map((s) => s.slice(0, offset, offset + n));
        const what = `n = ${n}, offset ${offset}`;
        assert.is(add.plan(x, y, { out0: out }).variant, expectedVariant(device, n, offset, length), what);
        await add(x, y, { out0: out });
        const all = numbers(await so.toArray(), 'float32');
        const expected = ho.map((v, k) => (k >= offset && k < offset + n ? Math.fround(hx[k] + hy[k]) : v));
        assertNumbers(all, expected, what);
        for (const t of [sx, sy, so]) t.release();
      }
    }
  });

  test(`${device.name}: in place, x += y on an aligned window of a longer storage`, async () => {
    const [hx, hy] = [sample('float32', 2064, 5), sample('float32', 2048, 6)];
    const sx = tensor(hx, [2064], { device });
    const x = sx.slice(0, 12, 2060);
    const y = tensor(hy, [2048], { device });
    await add(x, y, { out0: x });
    const expected = hx.map((v, k) => (k >= 12 && k < 2060 ? Math.fround(v + hy[k - 12]) : v));
    assertNumbers(numbers(await sx.toArray(), 'float32'), expected, 'in place');
  });
}

/**
 * The shape of the vector4 kernel on its own: `out[off + t, k] = a[off + t, k] + 1` over
 * (m, 4) arrays, the lanes a `vec` loop on WGSL (unrolled elsewhere), t split over work-groups.
 */
function vectorKernel(device: Device): LoopKernel {
  let knl = makeKernel('{ [t, k]: 0 <= t < n and 0 <= k < 4 }', 'out[off + t, k] = a[off + t, k] + 1', [
    globalArg('a', { shape: ['m', 4], dtype: 'float32' }),
    globalArg('out', { shape: ['m', 4], dtype: 'float32', isInput: false }),
    valueArg('n', 'int32'),
    valueArg('off', 'int32'),
    valueArg('m', 'int32'),
  ]);
  knl = tagArrayAxes(knl, 'a', 'c,vec');
  knl = tagArrayAxes(knl, 'out', 'c,vec');
  knl = tagInames(knl, { k: targetFacts(device.target).preferVectorStatements ? 'vec' : 'ilp' });
  return splitIname(knl, 't', 64, { outerTag: 'g.0', innerTag: 'l.0' });
}

for (const device of testDevices()) {
  test(`${device.name}: the unguarded vector accesses are refused before launch where they would leave an array`, async () => {
    const knl = vectorKernel(device);
    const code = (
      await prepareLaunch(knl, device, {
        a: await DeviceArray.from(device, new Float32Array(40), 'float32', [10, 4]),
        out: await DeviceArray.from(device, new Float32Array(40), 'float32', [10, 4]),
        n: 10,
        off: 0,
        m: 10,
      })
    ).code.code;
    if (device.target.name === 'wgsl') assert.not.match(code, /select|< m\b/, code);
    // in range: runs
    const a = Float32Array.from({ length: 40 }, (_, i) => i);
    const { out } = await run(knl, device, { a, out: new Float32Array(40), n: 8, off: 2, m: 10 });
    assertNumbers(
      [...(out as Float32Array)],
      Array.from({ length: 40 }, (_, i) => (i >= 8 && i < 40 ? i + 1 : 0)),
      'off 2, n 8',
    );
    // one vector past the end of the declared shape: refused before anything runs
    const target = await DeviceArray.from(device, new Float32Array(40), 'float32', [10, 4]);
    for (const [n, off] of [
      [9, 2],
      [11, 0],
      [1, -1],
    ]) {
      try {
        await prepareLaunch(knl, device, {
          a: await DeviceArray.from(device, a, 'float32', [10, 4]),
          out: target,
          n,
          off,
          m: 10,
        });
        assert.unreachable(`n ${n}, off ${off} was let through`);
      } catch (e) {
        assert.instance(e, LoomError);
        assert.match((e as Error).message, /would access '(a|out)'/);
      }
    }
    assert.equal([...((await target.toHost()) as Float32Array)], new Array(40).fill(0), 'nothing written');
    // a buffer smaller than the declared shape: refused when prepared, and when swapped in at a launch
    const small = await DeviceArray.from(device, new Float32Array(36), 'float32', [9, 4]);
    const short = new DeviceArray(device, small.buffer, 'float32', [10, 4]);
    const whole = { a: await DeviceArray.from(device, a, 'float32', [10, 4]), n: 10, off: 0, m: 10 };
    try {
      await prepareLaunch(knl, device, { ...whole, out: short });
      assert.unreachable('a short buffer was bound');
    } catch (e) {
      assert.instance(e, LoomError);
    }
    const prepared = await prepareLaunch(knl, device, { ...whole, out: target });
    try {
      await prepared.launch({ out: short });
      assert.unreachable('a short buffer was swapped in');
    } catch (e) {
      assert.instance(e, LoomError);
    } finally {
      prepared.release();
    }
    assert.equal(
      [...((await small.toHost()) as Float32Array)],
      new Array(36).fill(0),
      'nothing written to the short buffer',
    );
  });
}

test.run();
