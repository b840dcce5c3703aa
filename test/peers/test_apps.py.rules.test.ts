/**
 * loopy's test/test_apps.py::test_stencil_with_overfetch (issue 27, "Typing, rules, tags"):
 * `l.auto` fits the 20-value fetch axes of a 16x16 work-group by splitting them
 * (`a_dim_0_outer`, `a_dim_0_inner`...), which `prioritizeLoops` then orders. On every test
 * device against plain JavaScript (loopy's `auto_test_vs_ref`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addAndInferDtypes,
  addPrefetch,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  type LoopKernel,
} from '@loom/core';
import { assertClose, testDevices } from '../support/devices.ts';

function overfetch(): LoopKernel {
  return addAndInferDtypes(
    makeKernel(
      '{[i,j]: 0<= i,j < n}',
      [
        'a_offset(ii, jj) := a[ii+2, jj+2]',
        'z[i,j] = -2*a_offset(i,j)' +
          ' + a_offset(i,j-1)' +
          ' + a_offset(i,j+1)' +
          ' + a_offset(i-1,j)' +
          ' + a_offset(i+1,j)' +
          ' + a_offset(i,j-2)' +
          ' + a_offset(i,j+2)' +
          ' + a_offset(i-2,j)' +
          ' + a_offset(i+2,j)',
      ],
      undefined,
      { assumptions: 'n>=1' },
    ),
    { a: 'float32' },
  );
}

function variantOverfetch(knl: LoopKernel): LoopKernel {
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1', slabs: [1, 1] });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0', slabs: [1, 1] });
  knl = addPrefetch(knl, 'a', ['i_inner', 'j_inner'], { fetchBoundingBox: true, defaultTag: 'l.auto' });
  return prioritizeLoops(knl, ['a_dim_0_outer', 'a_dim_1_outer']);
}

/** loopy's reference: the same kernel, untransformed, sequentially; here in plain JavaScript. */
function reference(a: Float32Array, n: number, w: number): Float32Array {
  const at = (x: number, y: number) => a[(x + 2) * w + y + 2];
  const z = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = -2 * at(i, j);
      for (const [di, dj] of [
        [0, -1],
        [0, 1],
        [-1, 0],
        [1, 0],
        [0, -2],
        [0, 2],
        [-2, 0],
        [2, 0],
      ])
        s = Math.fround(s + at(i + di, j + dj));
      z[i * n + j] = s;
    }
  return z;
}

test('test_stencil_with_overfetch: l.auto splits the fetch axes to the work-group', () => {
  const knl = variantOverfetch(overfetch());
  const tags = Object.fromEntries(
    ['a_dim_0_outer', 'a_dim_0_inner', 'a_dim_1_outer', 'a_dim_1_inner'].map((n) => {
      const tag = knl.inameTags.get(n);
      return [n, tag?.kind === 'local' ? `l.${tag.axis}` : (tag?.kind ?? 'for')];
    }),
  );
  assert.equal(tags, { a_dim_0_outer: 'for', a_dim_0_inner: 'l.1', a_dim_1_outer: 'for', a_dim_1_inner: 'l.0' });
});

for (const device of testDevices()) {
  test(`${device.name}: test_stencil_with_overfetch`, async () => {
    // loopy runs n = 200 (and skips PoCL, which compiles it slowly); 40 keeps it quick here
    const n = 40;
    const w = n + 4;
    const a = Float32Array.from({ length: w * w }, (_, k) => ((k * 7) % 13) - 6);
    const { z } = await run(variantOverfetch(overfetch()), device, { a, n, z: new Float32Array(n * n) });
    assertClose(z as Float32Array, reference(a, n, w), 'z', 0, 0);
  });
}

test.run();
