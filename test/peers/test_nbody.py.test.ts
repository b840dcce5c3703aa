/**
 * Port of loopy's test/test_nbody.py: the potential of N particles, with the GPU variant's
 * prefetches, on every test device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  expandSubst,
  globalArg,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  tagInames,
  valueArg,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';
import { nbodyPotential } from '../support/nbody.ts';

function nbody() {
  // Loom calls a rule without parameters as invdist() (loopy also allows the bare name)
  return makeKernel(
    '[N] -> {[i,j,k]: 0<=i,j<N and 0<=k<3 }',
    [
      'axdist(k) := x[i,k]-x[j,k]',
      'invdist := rsqrt(sum(k, axdist(k)**2))',
      'pot[i] = sum(j, if(i != j, invdist(), 0))',
    ],
    [
      globalArg('x', { dtype: 'float32', shape: ['N', 3] }),
      globalArg('pot', { dtype: 'float32', shape: ['N'] }),
      valueArg('N', 'int32'),
    ],
    { name: 'nbody', assumptions: 'N>=1' },
  );
}

for (const device of testDevices()) {
  test(`${device.name}: test_nbody (variant_gpu)`, async () => {
    let knl = expandSubst(nbody());
    knl = splitIname(knl, 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'j', 256);
    // loopy writes the footprint x[j,k] and rewrites j as split; Loom takes it as it is now
    knl = addPrefetch(knl, 'x[256*j_outer + j_inner, k]', ['j_inner', 'k'], {
      dimArgNames: ['x_fetch_j', 'x_fetch_k'],
      fetchOuterInames: ['i_outer', 'j_outer'],
      defaultTag: null,
    });
    knl = tagInames(knl, { x_fetch_k: 'unr', x_fetch_j: 'l.0' });
    knl = addPrefetch(knl, 'x[256*i_outer + i_inner, k]', ['k'], { defaultTag: null });
    knl = prioritizeLoops(knl, ['j_outer', 'j_inner']);
    assert.equal(
      knl.temporaries.get('x_fetch')!.shape.map((e) => (e as { value: number }).value),
      [256, 3],
    );
    // loopy runs N = 3000
    const N = 600;
    const x = randomFloat32(3 * N, 11);
    const expected = nbodyPotential(x, N);
    // rsqrt is approximate on devices (a few ulp) and the sum's order differs: compared within 1e-4
    assertClose((await run(knl, device, { x, N })).pot as Float32Array, expected, 'pot', 1e-4, 1e-4);
  });
}

test.run();
