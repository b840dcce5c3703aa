/**
 * Port of loopy's test/test_target.py::test_random123: a kernel calls Random123's
 * `philox4x32_f32(ctr, key)` and `threefry4x32_f32` (and the `_f64` ones) on vectors made by
 * `make_uint2`/`make_uint4`, carrying the counter from one call to the next. loopy asserts the
 * values are in [0, 1); here they are also held, bit for bit, against the plain-JS Philox and
 * Threefry (test/support/cbrng-ref.ts) on every device (`_f64` where the device has float64).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeKernel, run, splitIname } from '@loom/core';
import { philoxRef, threefryRef } from '../support/cbrng-ref.ts';
import { supportsDType, testDevices } from '../support/devices.ts';

const n = 1000;

/** loopy's kernel, TYPE replaced by f32 or f64. */
function kernelOf(tp: 'f32' | 'f64') {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    <> key2 = make_uint2(i, 324830944) {inames=i}
    <> key4 = make_uint4(i, 324830944, 234181, 2233) {inames=i}
    <> ctr = make_uint4(0, 1, 2, 3)  {inames=i,id=init_ctr}
    <> real, ctr = philox4x32_TYPE(ctr, key2)  {id=realpart,dep=init_ctr}
    <> imag, ctr = threefry4x32_TYPE(ctr, key4)  {dep=init_ctr:realpart}

    out[i, 0] = real.s0 + 1j * imag.s0
    out[i, 1] = real.s1 + 1j * imag.s1
    out[i, 2] = real.s2 + 1j * imag.s2
    out[i, 3] = real.s3 + 1j * imag.s3
    `.replaceAll('TYPE', tp),
  );
  return splitIname(knl, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
}

/** loopy's counter bump: the first word incremented, carrying into the second and third. */
function bump(c: readonly bigint[]): bigint[] {
  const x = (c[0] + 1n) & 0xffffffffn;
  const y = x === 0n ? (c[1] + 1n) & 0xffffffffn : c[1];
  const z = x === 0n && y === 0n ? (c[2] + 1n) & 0xffffffffn : c[2];
  return [x, y, z, c[3]];
}

/** The four values one call gives from counter `c` (and the counter after it), as loopy's `_f32`/`_f64`. */
function draw(tp: 'f32' | 'f64', gen: (c: readonly bigint[]) => bigint[], c: readonly bigint[]): [number[], bigint[]] {
  const first = gen(c);
  if (tp === 'f32') return [first.map((w) => Math.fround(Math.fround(Number(w)) * 2 ** -32)), bump(c)];
  const second = gen(bump(c));
  return [first.map((w, k) => Number(w) * 2 ** -32 + Number(second[k]) * 2 ** -64), bump(bump(c))];
}

function reference(tp: 'f32' | 'f64'): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const [real, ctr] = draw(tp, (c) => philoxRef(32, 4, c, [BigInt(i), 324830944n]), [0n, 1n, 2n, 3n]);
    const [imag] = draw(tp, (c) => threefryRef(32, 4, c, [BigInt(i), 324830944n, 234181n, 2233n]), ctr);
    for (let j = 0; j < 4; j++) out.push(real[j], imag[j]);
  }
  return out;
}

for (const device of testDevices()) {
  test(`${device.name}: test_random123`, async () => {
    for (const tp of ['f32', 'f64'] as const) {
      if (tp === 'f64' && !supportsDType(device, 'float64')) continue;
      const { out } = await run(kernelOf(tp), device, { n });
      const got = Array.from(out as Float32Array | Float64Array);
      // loopy's assertions: every part in [0, 1)
      assert.ok(
        got.every((v) => v >= 0 && v < 1),
        `${tp}: a value outside [0, 1)`,
      );
      assert.equal(got, reference(tp), `${tp}: the values of Philox-4x32-10 and Threefry-4x32-20`);
    }
  });
}

test.run();
