/**
 * loopy's test/test_nbody.py as loopy writes it (issue 27, "Typing, rules, tags"): the bare
 * name `invdist` calls the parameterless rule, and the GPU variant's prefetch footprints are
 * written in the names from before the splits (`x[j,k]` after j was split). On every test
 * device against plain JavaScript; test_nbody.py.test.ts is the same kernel in Loom's spellings.
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

function nbody() {
  return makeKernel(
    '[N] -> {[i,j,k]: 0<=i,j<N and 0<=k<3 }',
    ['axdist(k) := x[i,k]-x[j,k]', 'invdist := rsqrt(sum(k, axdist(k)**2))', 'pot[i] = sum(j, if(i != j, invdist, 0))'],
    [
      globalArg('x', { dtype: 'float32', shape: ['N', 3] }),
      globalArg('pot', { dtype: 'float32', shape: ['N'] }),
      valueArg('N', 'int32'),
    ],
    { name: 'nbody', assumptions: 'N>=1' },
  );
}

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
    const expected = Float32Array.from({ length: N }, (_, i) => {
      let s = 0;
      for (let j = 0; j < N; j++) {
        if (i === j) continue;
        let d = 0;
        for (let k = 0; k < 3; k++) d += (x[3 * i + k] - x[3 * j + k]) ** 2;
        s += 1 / Math.sqrt(d);
      }
      return s;
    });
    // rsqrt is approximate on devices (a few ulp) and the sum's order differs
    assertClose((await run(knl, device, { x, N })).pot as Float32Array, expected, 'pot', 1e-4, 1e-4);
  });
}

test.run();
