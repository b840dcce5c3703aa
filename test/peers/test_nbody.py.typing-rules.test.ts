/**
 * loopy's test/test_nbody.py as loopy writes it (issue 27, "Typing, rules, tags"): the bare
 * name `invdist` calls the parameterless rule, and the GPU variant's prefetch footprints are
 * written in the names from before the splits (`x[j,k]` after j was split). On every test
 * device against plain JavaScript; test_nbody.py.test.ts is the same kernel in Loom's spellings.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addPrefetch, expandSubst, prioritizeLoops, run, splitIname, tagInames } from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';
import { nbodyKernel, nbodyPotential } from '../support/nbody.ts';

const nbody = nbodyKernel;

/** loopy's variant_gpu, word for word. */
function variantGpu() {
  let knl = expandSubst(nbody());
  knl = splitIname(knl, 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'j', 256);
  knl = addPrefetch(knl, 'x[j,k]', ['j_inner', 'k'], {
    dimArgNames: ['x_fetch_j', 'x_fetch_k'],
    fetchOuterInames: 'i_outer, j_outer',
    defaultTag: null,
  });
  knl = tagInames(knl, { x_fetch_k: 'unr', x_fetch_j: 'l.0' });
  knl = addPrefetch(knl, 'x[i,k]', ['k'], { defaultTag: null });
  return prioritizeLoops(knl, ['j_outer', 'j_inner']);
}

test('test_nbody: the bare rule name is a call of it', () => {
  const knl = nbody();
  assert.equal(
    knl.args.map((a) => a.name),
    ['x', 'pot', 'N'],
  );
  assert.match(knl.toString(), 'invdist()');
});

for (const device of testDevices()) {
  test(`${device.name}: test_nbody (variant_gpu, loopy's spellings)`, async () => {
    const knl = variantGpu();
    // x[j,k] swept over j_inner and k: 256 particles of 3 coordinates
    assert.equal(
      knl.temporaries.get('x_fetch')!.shape.map((e) => (e as { value: number }).value),
      [256, 3],
    );
    const N = 600; // loopy runs 3000
    const x = randomFloat32(3 * N, 11);
    const expected = nbodyPotential(x, N);
    // rsqrt is approximate on devices (a few ulp) and the sum's order differs
    assertClose((await run(knl, device, { x, N })).pot as Float32Array, expected, 'pot', 1e-4, 1e-4);
  });
}

test.run();
