/**
 * float16 in kernels: stored as float16 (host arrays are the Uint16Array of their bits), and
 * every operation's result rounded to float16 — what a device with native half arithmetic
 * computes, and what the CPU device computes in doubles (`+ - * /` of float16 values are exact
 * or innocuously rounded in a double, then rounded once to float16). Checked bit for bit against
 * a plain JavaScript reference that rounds the same way, on every device: natively (WGSL's
 * f16, OpenCL's half with cl_khr_fp16), and in float or double arithmetic rounded at every
 * operation (the CPU device; an OpenCL device without cl_khr_fp16, such as PoCL). A WebGPU
 * adapter without shader-f16 has no float16, and the test says so.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, float16Bits, float16Value, makeKernel, roundToFloat16, run } from '@loom/core';
import { supportsDType, testDevices } from './support/devices.ts';

const h = roundToFloat16;
const bits = (xs: readonly number[]) => Uint16Array.from(xs, float16Bits);
const values = (a: Uint16Array) => Array.from(a, float16Value);

const A = [1.5, 1000, 0.1, -7, 65504, 2 ** -20, 3, -0.25];
const B = [2, 70, 3, 0.333, 2, 0.5, -3, 4096];

for (const device of testDevices()) {
  test(`${device.name}: float16 arithmetic rounds every operation to float16`, async () => {
    if (!supportsDType(device, 'float16')) {
      console.log(`${device.name}: float16 skipped: ${device.target.unsupportedDType?.('float16')}`);
      return;
    }
    const knl = addDtypes(
      makeKernel('{ [i]: 0<=i<n }', [
        '<float16> t = a[i] * b[i]',
        'sum[i] = t + a[i]',
        'quot[i] = a[i] / b[i]',
        'diff[i] = (a[i] - b[i]) * 0.5',
        '<float32> w = float32(a[i]) / 3',
        'wide[i] = w',
        'back[i] = float16(w*3)',
        'big[i] = if(a[i] > 1000, a[i] + a[i], -a[i])',
      ]),
      { a: 'float16', b: 'float16' },
    );
    const a = bits(A);
    const b = bits(B);
    const out = await run(knl, device, { a, b });
    const [x, y] = [A.map(h), B.map(h)];
    assert.equal(
      values(out.sum as Uint16Array),
      x.map((v, k) => h(h(v * y[k]) + v)),
    );
    assert.equal(
      values(out.quot as Uint16Array),
      x.map((v, k) => h(v / y[k])),
    );
    assert.equal(
      values(out.diff as Uint16Array),
      x.map((v, k) => h(h(v - y[k]) * 0.5)),
    );
    assert.equal(
      Array.from(out.wide as Float32Array),
      x.map((v) => Math.fround(v / 3)),
    );
    assert.equal(
      values(out.back as Uint16Array),
      x.map((v) => h(Math.fround(Math.fround(v / 3) * 3))),
    );
    // 65504 + 65504 overflows float16 to Infinity
    assert.equal(
      values(out.big as Uint16Array),
      x.map((v) => (v > 1000 ? h(v + v) : -v)),
    );
    assert.instance(out.sum, Uint16Array);
  });
}

for (const device of testDevices())
  if (supportsDType(device, 'float16'))
    test(`${device.name}: a float16 scalar argument is the float16 nearest the number passed`, async () => {
      // CUDA's parameter is the float holding the half (half-storage.ts): the device passes that float
      const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * s'), { a: 'float16', s: 'float16' });
      const { out } = await run(knl, device, { a: bits([1, 3, -2]), s: 0.1 });
      assert.equal(values(out as Uint16Array), [h(h(0.1)), h(3 * h(0.1)), h(-2 * h(0.1))]);
    });

test('the CPU device holds float16 (it did not before): a float16 scalar argument rounds to float16', async () => {
  const { cpuDevice } = await import('@loom/codegen-js');
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + s'), { a: 'float16', s: 'float16' });
  const { out } = await run(knl, cpuDevice(), { a: bits([1, 2]), s: 0.1 });
  assert.equal(values(out as Uint16Array), [h(1 + h(0.1)), h(2 + h(0.1))]);
});

test.run();
