/**
 * loopy's test/test_nbody.py, variant_gpu, with the rules kept (issue 27, "Typing, rules,
 * tags"): the prefetches of `x` read through the rules `axdist` and `invdist`, which stay
 * rules, as after loopy's add_prefetch (loopy's variant expands them first; this one does
 * not, so the prefetch must follow the calls). On every test device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  expr,
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
