/**
 * loopy's shape guess for an index no set bounds (an index read from data): a one-axis
 * argument stays shape-less (`shape=None`), as long as the array passed, and every access of it
 * is guarded and checked at run time; several axes, or a temporary, still need a declared shape.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globalArg, LoomError, makeKernel, run } from '@loom/core';
import { testDevices } from './support/devices.ts';

test('a one-axis argument read at an index from data is shape-less, its length the array passed', () => {
  const knl = makeKernel(
    '{[i]: 0<=i<n}',
    ['<> k = idx[i]', 'out[i] = a[k] + a[idx[i]]'],
    [globalArg('a', { dtype: 'float32' }), globalArg('idx', { dtype: 'int32', shape: 'auto' }), '...'],
  );
  assert.equal(knl.arg('a')!.shape, [{ kind: 'var', name: 'a_length' }]);
  assert.is(knl.arg('a_length')?.kind, 'value');
});

test('a one-axis argument read over a loop bounded by data is shape-less, not sized by a temporary', () => {
  const knl = makeKernel(
    ['{ [b]: 0<=b<nb }', '{ [s]: start<=s<stop }'],
    ['<> start = ptr[b]', '<> stop = ptr[b + 1]', 'out[b] = sum(s, x[s])'],
    [globalArg('x', { dtype: 'float32' }), globalArg('ptr', { dtype: 'int32', shape: ['nb + 1'] }), '...'],
  );
  assert.equal(knl.arg('x')!.shape, [{ kind: 'var', name: 'x_length' }]);
  assert.throws(
    () =>
      makeKernel(
        ['{ [b]: 0<=b<nb }', '{ [s]: start<=s<stop }'],
        ['<> start = ptr[b]', '<> stop = ptr[b + 1]', 'out[b] = sum(s, x[s, 0])'],
        [globalArg('ptr', { dtype: 'int32', shape: ['nb + 1'] }), '...'],
      ),
    (e: unknown) => e instanceof LoomError && /shape of argument 'x'.*temporary 'stop'/.test(e.message),
  );
});

test('an argument of two axes, or a temporary, read at an index from data needs its shape', () => {
  assert.throws(
    () => makeKernel('{[i]: 0<=i<n}', 'out[i] = a[idx[i], 0]', [globalArg('a', { dtype: 'float32' }), '...']),
    (e: unknown) => e instanceof LoomError && /shape of argument 'a'.*idx\[i\].*declare its shape/.test(e.message),
  );
  assert.throws(
    () =>
      makeKernel(
        '{[i]: 0<=i<n}',
        ['<> t[idx[i]] = 1', 'out[i] = t[idx[i]]'],
        [globalArg('idx', { dtype: 'int32' }), '...'],
      ),
    (e: unknown) => e instanceof LoomError && /shape of temporary 't'.*declare its shape/.test(e.message),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: a shape-less argument written at indices from data (a scatter)`, async () => {
    const knl = makeKernel('{[i]: 0<=i<n}', 'out[idx[i]] = a[i]', [
      globalArg('out', { dtype: 'float32', isInput: false }),
      globalArg('idx', { dtype: 'int32', shape: 'auto' }),
      globalArg('a', { dtype: 'float32', shape: 'auto' }),
      '...',
    ]);
    const a = Float32Array.from([1, 2, 3, 4]);
    const idx = Int32Array.from([3, 0, 2, 1]);
    const { out } = await run(knl, device, { idx, a, out: new Float32Array(4) });
    const expected = new Array(4);
    idx.forEach((k, i) => {
      expected[k] = a[i];
    });
    assert.equal(Array.from(out as Float32Array), expected);
    // an index past the array passed writes nothing outside it, and the bounds check reports it
    const refused = await run(
      knl,
      device,
      { idx: Int32Array.from([0, 1, 2, 7]), a, out: new Float32Array(4) },
      { checkBounds: true },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(
      refused instanceof LoomError && /writes 'out' at index idx\[i\] = 7/.test(refused.message),
      String(refused),
    );
  });
}

test.run();
