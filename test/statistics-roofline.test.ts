// The roofline: estimateTime's work (flops, bytes, launches) from the exact counts, the time
// and bound it gives for a profile, and device profiles measured once per device.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  estimateTime,
  globalArg,
  kernelWork,
  LoomError,
  makeKernel,
  measureDeviceProfile,
  prioritizeLoops,
  splitIname,
  type DeviceProfile,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { DEFAULT_MATMUL, matmulKernel } from '../examples/matmul.ts';

const profile: DeviceProfile = { device: 'paper', bandwidth: 1e12, flopRate: 1e13, launchOverhead: 1e-5 };

const add = () =>
  addDtypes(
    splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = x[i] + y[i]'), 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' }),
    { x: 'float32', y: 'float32' },
  );

test('pointwise add: n flops, 12n bytes, memory bound', () => {
  const n = 1 << 20;
  const e = estimateTime(add(), profile, { n });
  assert.equal([e.flops, e.bytes, e.launches, e.traffic, e.bound], [n, 12 * n, 1, 'footprint', 'memory']);
  assert.is(e.arithmeticIntensity, 1 / 12);
  assert.is(e.seconds, 1e-5 + (12 * n) / 1e12);
});

test('the tuned SGEMM: 2n³ flops, 3n² floats moved once each, compute bound', () => {
  const n = 1024;
  const e = estimateTime(addDtypes(matmulKernel(DEFAULT_MATMUL), { a: 'float32', b: 'float32' }), profile, { n });
  assert.equal([e.flops, e.bytes, e.bound], [2 * n ** 3, 12 * n ** 2, 'compute']);
  assert.is(e.computeSeconds, (2 * n ** 3) / 1e13);
});

test('a transpose: no flops, bytes only', () => {
  const knl = addDtypes(prioritizeLoops(makeKernel('{ [i, j]: 0<=i,j<n }', 'out[i, j] = a[j, i]'), 'i,j'), {
    a: 'float32',
  });
  const w = kernelWork(knl, { n: 100 });
  assert.equal(w, { flops: 0, bytes: 8 * 100 * 100, launches: 1, traffic: 'footprint' });
  assert.is(estimateTime(knl, profile, { n: 100 }).bound, 'memory');
});

test('an index that is not affine: every global access is counted instead of the footprint', () => {
  const knl = addDtypes(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[(i*i) % n]', [globalArg('a', { shape: ['n'] }), '...']),
    { a: 'float64' },
  );
  assert.equal(kernelWork(knl, { n: 10 }), { flops: 0, bytes: 10 * (8 + 8), launches: 1, traffic: 'accesses' });
});

test('a profile must have positive rates', () => {
  assert.throws(
    () => estimateTime(add(), { ...profile, bandwidth: 0 }, { n: 4 }),
    (e: unknown) => e instanceof LoomError && /bandwidth 0/.test((e as Error).message),
  );
});

test('a device profile is measured once per device: positive, finite rates', async () => {
  const device = cpuDevice();
  const options = { minSeconds: 0.0002, maxBytes: 1 << 18 };
  const first = measureDeviceProfile(device, options);
  assert.is(measureDeviceProfile(device, options), first);
  const p = await first;
  assert.is(p.device, device.name);
  for (const x of [p.bandwidth, p.flopRate, p.launchOverhead])
    assert.ok(x > 0 && Number.isFinite(x), JSON.stringify(p));
});

test.run();
