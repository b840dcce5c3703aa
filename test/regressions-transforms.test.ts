/**
 * Issue 10, "No silent wrong results": transformations that produced wrong results
 * (or crashed late) where loopy computes the right thing, each pinned on every device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addPrefetch, globalArg, LoomError, makeKernel, run, splitIname, valueArg, type LoopKernel } from '@loom/core';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

const throwsLoom = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof LoomError && message.test((e as Error).message));

// {{{ 3: a local prefetch swept over an iname that is also an outer iname of the fetch

function rankOneSplit(): LoopKernel {
  let knl = makeKernel('[n] -> {[i,j]: 0<=i,j<n}', 'c[i, j] = a[i]*b[j]', [
    globalArg('a', { dtype: 'float32', shape: ['n'] }),
    globalArg('b', { dtype: 'float32', shape: ['n'] }),
    globalArg('c', { dtype: 'float32', shape: ['n', 'n'] }),
    valueArg('n', 'int32'),
  ], { assumptions: 'n >= 16' });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  return splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.1' });
}

for (const device of testDevices()) {
  test(`${device.name}: 3. a local prefetch over j_inner, inside j_inner, holds all 16 values`, async () => {
    const outer = ['i_outer', 'j_outer', 'j_inner'];
    const knl = addPrefetch(rankOneSplit(), 'b', ['j_inner'], { fetchOuterInames: outer, temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
    const n = 32;
    const a = randomFloat32(n, 3);
    const b = randomFloat32(n, 4);
    const { c } = await run(knl, device, { a, b, n });
    assertClose(c as Float32Array, Array.from({ length: n * n }, (_, k) => Math.fround(a[Math.floor(k / n)] * b[k % n])), 'c', 0, 0);
  });
}

test('3. a local box that moves with an unswept local iname is refused', () => {
  throwsLoom(
    () => addPrefetch(rankOneSplit(), 'b', [], { fetchOuterInames: ['i_outer', 'j_outer', 'j_inner'], temporaryAddressSpace: 'local' }),
    /addPrefetch: the local temporary for 'b' would hold a different part for each work-item along the local iname\(s\) 'j_inner'/,
  );
  throwsLoom(() => addPrefetch(rankOneSplit(), 'b', ['j_inner'], { fetchOuterInames: ['j_middle'] }), /unknown iname 'j_middle' in fetchOuterInames/);
});

// }}}

test.run();
