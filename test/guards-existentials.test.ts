/**
 * Guards whose domain keeps an existential (codegen/conditions.ts): an accumulator's
 * initialization over a split reduction bounded by data, `exists s_outer: start <= 3*s_outer
 * + l < stop`, is guarded as ceil((start - l)/3) <= floor((stop - l - 1)/3); before, code
 * generation refused it ("cannot generate a guard").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, globalArg, makeKernel, run, splitIname } from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { testDevices } from './support/devices.ts';

const segmentSums = () =>
  splitIname(
    makeKernel(
      ['{ [b]: 0<=b<nb }', '{ [s]: start<=s<stop }'],
      ['<> start = ptr[b]', '<> stop = ptr[b + 1]', 'out[b] = sum(s, x[s])'],
      [globalArg('x', { dtype: 'float32' }), globalArg('ptr', { dtype: 'int32', shape: ['nb + 1'] }), '...'],
    ),
    's',
    3,
    { innerTag: 'l.0' },
  );

test('an existential bounded on both sides becomes floor divisions in the guard', () => {
  // floor((stop - l - 1)/3) >= ceil((start - l)/3), the ceiling written floor((start - l + 2)/3)
  assert.match(
    generateCode(segmentSums(), jsTarget()).code,
    'if ((Math.floor(((stop - lid0 - 1) | 0) / 3) | 0) >= (Math.floor(((start - lid0 + 2) | 0) / 3) | 0))',
  );
});

for (const device of testDevices()) {
  test(`${device.name}: segment sums over a split bounded by data (empty segments too)`, async () => {
    const x = Float32Array.from({ length: 20 }, (_, k) => k - 5);
    const ptr = Int32Array.from([0, 4, 4, 11, 19, 19, 20]);
    const { out } = await run(segmentSums(), device, { x, ptr, nb: ptr.length - 1 });
    const expected = Array.from({ length: ptr.length - 1 }, (_, b) =>
      Array.from(x.subarray(ptr[b], ptr[b + 1])).reduce((s, v) => s + v, 0),
    );
    assert.equal(Array.from(out as Float32Array), expected);
  });
}

test.run();
