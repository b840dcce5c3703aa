/**
 * Ports of loopy's tests of global temporaries given base storages (issue 28, test_loopy.py
 * batch B; loopy's issues 737 and 748): temporaries in global memory, each in a base storage
 * of its own, written in one device kernel and read in a later one, across global barriers.
 * Each kernel runs on every test device against plain JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  allocateTemporariesForBaseStorage,
  generateCode,
  inferUnknownTypes,
  makeKernel,
  preprocessKernel,
  run,
  splitIname,
  temporaryVariable,
  type LoopKernel,
} from '@loom/core';
import { testDevices } from '../support/devices.ts';

function multipleBaseStorages(): LoopKernel {
  const knl = makeKernel(
    '{[r0, r1]: 0<=r0,r1< 10}',
    `
    tmp0 = sum(r0, r0**2)
    ... gbarrier
    tmp1 = sum(r1, r1**3)
    ... gbarrier
    out = tmp0 + tmp1
    `,
    [
      temporaryVariable('tmp0', { shape: 'auto', addressSpace: 'global', baseStorage: 'base1' }),
      temporaryVariable('tmp1', { shape: 'auto', addressSpace: 'global', baseStorage: 'base2' }),
      '...',
    ],
    { seqDependencies: true },
  );
  return allocateTemporariesForBaseStorage(inferUnknownTypes(knl));
}

function baseStoragesAcrossBarrier(): LoopKernel {
  let knl = makeKernel(
    '{[i,j]: 0<=i, j<16}',
    `
    for i
      tmp1[i] = i
      tmp2[i] = tmp1[i] + 2
    end
    ... gbarrier
    for j
      out[j] = tmp1[j] + tmp2[j]
    end
    `,
    [
      temporaryVariable('tmp1', { addressSpace: 'global', baseStorage: 'base1', shape: 'auto' }),
      temporaryVariable('tmp2', { addressSpace: 'global', baseStorage: 'base2', shape: 'auto' }),
      '...',
    ],
    { seqDependencies: true },
  );
  knl = splitIname(knl, 'i', 4, { innerTag: 'l.0', outerTag: 'g.0' });
  knl = splitIname(knl, 'j', 4, { innerTag: 'l.0', outerTag: 'g.0' });
  return allocateTemporariesForBaseStorage(preprocessKernel(knl));
}

test('test_global_temps_with_multiple_base_storages: one global allocation per base storage, three device kernels', () => {
  const code = generateCode(multipleBaseStorages(), testDevices()[0].target);
  assert.equal(
    code.host.temporaries.map((t) => [t.name, t.dtype, t.shape.length]),
    [
      ['tmp0', 'int32', 0],
      ['tmp1', 'int32', 0],
    ],
  );
  assert.is(code.kernels.length, 3);
});

for (const device of testDevices()) {
  test(`${device.name}: test_global_temps_with_multiple_base_storages`, async () => {
    const { out } = await run(multipleBaseStorages(), device, {});
    let expected = 0;
    for (let i = 0; i < 10; i++) expected += i ** 2 + i ** 3;
    assert.equal(Array.from(out as Int32Array), [expected]);
  });

  test(`${device.name}: test_no_barrier_err_for_global_temps_with_base_storage`, async () => {
    const { out } = await run(baseStoragesAcrossBarrier(), device, {});
    assert.equal(
      Array.from(out as Int32Array),
      Array.from({ length: 16 }, (_, i) => 2 * i + 2),
    );
  });
}

test.run();
