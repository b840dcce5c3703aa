/**
 * loopy's test/test_nbody.py, variant_gpu, with the rules kept (issue 27, "Typing, rules,
 * tags"): the prefetches of `x` read through the rules `axdist` and `invdist`, which stay
 * rules, as after loopy's add_prefetch (loopy's variant expands them first; this one does
 * not, so the prefetch must follow the calls). On every test device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addPrefetch, expr, prioritizeLoops, run, splitIname, tagInames } from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';
import { nbodyKernel, nbodyPotential } from '../support/nbody.ts';

const nbody = nbodyKernel;

/** loopy's variant_gpu, without its expand_subst. */
function variantGpuKeepingRules() {
  let knl = nbody();
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

test('test_nbody (rules kept): the prefetches leave the rules, reading the copies', () => {
  const knl = variantGpuKeepingRules();
  assert.equal([...knl.substitutions.keys()].sort(), ['axdist', 'invdist']);
  const read = expr.arraysAccessed(knl.substitutions.get('axdist')!.expression);
  assert.equal([...read.keys()].sort(), ['x_fetch', 'x_fetch_0']);
  // no instruction but the fetches reads x itself
  for (const insn of knl.instructions)
    if (insn.expression && expr.arraysAccessed(insn.expression).has('x'))
      assert.ok(insn.id.startsWith('x_fetch_rule'), insn.id);
});

for (const device of testDevices()) {
  test(`${device.name}: test_nbody (variant_gpu, rules kept)`, async () => {
    const knl = variantGpuKeepingRules();
    const N = 600; // loopy runs 3000
    const x = randomFloat32(3 * N, 11);
    const expected = nbodyPotential(x, N);
    // rsqrt is approximate on devices (a few ulp) and the sum's order differs
    assertClose((await run(knl, device, { x, N })).pot as Float32Array, expected, 'pot', 1e-4, 1e-4);
  });
}

test.run();
