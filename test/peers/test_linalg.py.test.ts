/**
 * Ports of loopy's test/test_linalg.py. Each variant is run on every test device and
 * compared with the same computation in plain JavaScript (loopy's auto_test_vs_ref
 * compares with the untransformed kernel; the plain-JS result is that kernel's meaning).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addInamesToInsn,
  addPrefetch,
  globalArg,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  tagArrayAxes,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/** `c[i, j] = a[i]*b[j]`, column-major like the original (order="F"). */
function rankOne(): LoopKernel {
  const knl = makeKernel(
    '[n] -> {[i,j]: 0<=i,j<n}',
    'c[i, j] = a[i]*b[j] {id=mylabel, priority=5}',
    [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      globalArg('b', { dtype: 'float32', shape: ['n'] }),
      globalArg('c', { dtype: 'float32', shape: ['n', 'n'] }),
      valueArg('n', 'int32'),
    ],
    { name: 'rank_one', assumptions: 'n >= 16' },
  );
  return tagArrayAxes(knl, 'c', 'f,f');
}

const rankOneVariants: Record<string, (knl: LoopKernel) => LoopKernel> = {
  variant_1(knl) {
    knl = addPrefetch(knl, 'a', [], { defaultTag: 'l.auto' });
    knl = addPrefetch(knl, 'b', [], { defaultTag: 'l.auto' });
    knl = prioritizeLoops(knl, ['i', 'j']);
    return addInamesToInsn(knl, 'i', 'writes:b_fetch');
  },
  variant_2(knl) {
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.1' });
    knl = addPrefetch(knl, 'a', [], { fetchOuterInames: ['i_outer', 'i_inner', 'j_outer', 'j_inner'] });
    return addPrefetch(knl, 'b', [], { fetchOuterInames: ['i_outer', 'i_inner', 'j_outer', 'j_inner'] });
  },
  variant_3(knl) {
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.1' });
    knl = addPrefetch(knl, 'a', ['i_inner'], {
      fetchOuterInames: ['i_outer', 'j_outer', 'j_inner'],
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
    });
    return addPrefetch(knl, 'b', ['j_inner'], {
      fetchOuterInames: ['i_outer', 'j_outer', 'j_inner'],
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
    });
  },
  variant_4(knl) {
    knl = splitIname(knl, 'i', 256, { outerTag: 'g.0', slabs: [0, 1] });
    knl = splitIname(knl, 'j', 256, { outerTag: 'g.1', slabs: [0, 1] });
    knl = addPrefetch(knl, 'a', ['i_inner'], { fetchOuterInames: ['i_outer', 'j_outer'], defaultTag: null });
    knl = addPrefetch(knl, 'b', ['j_inner'], { fetchOuterInames: ['i_outer', 'j_outer'], defaultTag: null });
    knl = splitIname(knl, 'i_inner', 16, { innerTag: 'l.0' });
    knl = splitIname(knl, 'j_inner', 16, { innerTag: 'l.1' });
    knl = splitIname(knl, 'a_dim_0', 16, { outerTag: 'l.1', innerTag: 'l.0' });
    return splitIname(knl, 'b_dim_0', 16, { outerTag: 'l.1', innerTag: 'l.0' });
  },
};

for (const device of testDevices()) {
  test(`${device.name}: test_rank_one`, async () => {
    // loopy runs n = 16**3; sizes here cover a whole number of groups and a ragged last one
    for (const n of [32, 40, 300]) {
      const a = randomFloat32(n, n);
      const b = randomFloat32(n, n + 1);
      const expected = new Float32Array(n * n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expected[i + n * j] = a[i] * b[j];
      for (const [name, variant] of Object.entries(rankOneVariants)) {
        const { c } = await run(variant(rankOne()), device, { a, b, n });
        assertClose(c as Float32Array, expected, `${name}, n=${n}`, 0, 0);
      }
    }
  });
}

test('test_rank_one: the local fetch of b covers the 16 values j_inner sweeps', () => {
  const knl = rankOneVariants.variant_3(rankOne());
  assert.equal(
    knl.temporaries.get('b_fetch')!.shape.map((s) => (s as { value: number }).value),
    [16],
  );
});

test.run();
