/**
 * Ports of loopy's tests of vector types and `vec` tags, from test/test_loopy.py and
 * test/test_target.py (names are the originals'). Each kernel runs on every test device
 * against plain JavaScript; where loopy compares with a reference kernel (auto_test_vs_ref),
 * both are run and checked.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  assume,
  duplicateInames,
  fixParameters,
  generateCode,
  globalArg,
  makeKernel,
  run,
  splitArrayAxis,
  splitIname,
  tagArrayAxes,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { assertClose, randomFloat32, supportsDType, testDevices } from '../support/devices.ts';

const clCode = (knl: LoopKernel) => generateCode(knl, openclTarget()).code;

for (const device of testDevices()) {
  for (const vecLen of [2, 3, 4, 8, 16]) {
    test(`${device.name}: test_loopy.py::test_vector_types[${vecLen}]`, async () => {
      let knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<vec_len }', 'out[i,j] = 2*a[i,j]', [
        globalArg('a', { dtype: 'float32', shape: 'auto' }),
        globalArg('out', { dtype: 'float32', shape: 'auto' }),
        '...',
      ]);
      knl = fixParameters(knl, { vec_len: vecLen });
      const ref = knl;
      knl = tagArrayAxes(knl, 'out', 'c,vec');
      knl = tagInames(knl, { j: 'unr' });
      knl = splitIname(knl, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
      const n = 20000;
      const a = randomFloat32(n * vecLen, vecLen);
      const expected = Array.from(a, (x) => 2 * x);
      for (const k of [ref, knl])
        assert.equal(Array.from((await run(k, device, { a, n })).out as Float32Array), expected);
    });
  }

  test(`${device.name}: test_loopy.py::test_vector_ilp_with_prefetch`, async () => {
    // loopy declares `GlobalArg("out,a", ...)`: one declaration per name here
    const f32 = (name: string) => globalArg(name, { dtype: 'float32', shape: 'auto' });
    let knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', [f32('out'), f32('a'), '...']);
    const ref = knl;
    knl = splitIname(knl, 'i', 128, { innerTag: 'l.0' });
    knl = splitIname(knl, 'i_outer', 4, { outerTag: 'g.0', innerTag: 'ilp' });
    knl = addPrefetch(knl, 'a', ['i_inner', 'i_outer_inner'], { defaultTag: 'l.auto' });
    const a = randomFloat32(1024, 3);
    const expected = Array.from(a, (x) => 2 * x);
    for (const k of [ref, knl])
      assert.equal(Array.from((await run(k, device, { a, n: 1024 })).out as Float32Array), expected);
  });

  test(`${device.name}: test_loopy.py::test_vec_inames_can_reenter`, async () => {
    let knl = makeKernel(
      '{[i, j]: 0<=i,j<4}',
      `
      for i
        <> tmp0[i] = 1
        for j
          <> tmp1[i] = 2
        end
        <> tmp2[i] = 3
        out[i] = tmp0[i] + tmp1[i] + tmp2[i]
      end
      `,
      ['...'],
      { seqDependencies: true },
    );
    knl = tagInames(knl, { i: 'vec' });
    knl = tagArrayAxes(knl, 'tmp0,tmp1,tmp2', 'vec');
    knl = duplicateInames(knl, 'i', { within: 'writes:tmp1', tags: { i: 'vec' } });
    const { out } = await run(knl, device, {});
    assert.equal(Array.from(out as ArrayLike<number>, Number), [6, 6, 6, 6]);
  });

  test(`${device.name}: test_transform.py::test_vectorize`, async () => {
    let knl = makeKernel('{[i]: 0<=i<n}', '<> temp = 2*b[i]\na[i] = temp');
    knl = addDtypes(knl, { b: 'float32' });
    // loopy's split_array_dim splits the array axis and the iname together; here, one after the other
    knl = splitArrayAxis(knl, 'a,b', 0, 4);
    knl = splitIname(knl, 'i', 4, { slabs: [0, 1] });
    knl = tagArrayAxes(knl, 'a,b', 'c,vec');
    const ref = tagInames(knl, { i_inner: 'unr' });
    knl = tagInames(knl, { i_inner: 'vec' });
    // the bulk slab is vector code, the last (partial) vector is unrolled with its guards
    assert.match(clCode(knl), 'a[i_outer] = temp[0];');
    const n = 30;
    const b = randomFloat32(32, 4);
    const expected = Array.from(b, (x, k) => (k < n ? 2 * x : 0));
    for (const k of [ref, knl]) assert.equal(Array.from((await run(k, device, { b, n })).a as Float32Array), expected);
  });

  test(`${device.name}: test_target.py::test_cl_vectorize_ternary`, async () => {
    const dtype = supportsDType(device, 'float64') ? 'float64' : 'float32';
    if (dtype === 'float32') console.log(`  ${device.name} has no float64: test_cl_vectorize_ternary runs in float32`);
    let knl = makeKernel('{ [i]: 0<=i<n }', 'b[i] = a[i]*3 if a[i] < 0 else sin(a[i])');
    knl = addDtypes(knl, { a: dtype });
    knl = splitArrayAxis(knl, 'a,b', 0, 4);
    knl = splitIname(knl, 'i', 4);
    knl = tagInames(knl, { i_inner: 'vec' });
    knl = tagArrayAxes(knl, 'a,b', 'c,vec');
    knl = assume(knl, 'n mod 4 = 0 and n > 0');
    const a = dtype === 'float64' ? Float64Array.from(randomFloat32(64, 12)) : randomFloat32(64, 12);
    const round = dtype === 'float32' ? Math.fround : (x: number) => x;
    const { b } = await run(knl, device, { a, n: a.length });
    assertClose(
      b as Float64Array,
      Array.from(a, (x) => (x < 0 ? round(x * 3) : round(Math.sin(x)))),
      'b',
      1e-6,
      1e-7,
    );
  });

  test(`${device.name}: test_target.py::test_float3`, async () => {
    // loopy only checks that float3 appears in the code (issue 922: a float3 * steps over 4
    // floats); Loom keeps three lanes packed, so the kernel is run instead
    let knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a if i == 0 else b');
    knl = splitArrayAxis(knl, 'out', 0, 3);
    knl = splitIname(knl, 'i', 3);
    knl = tagInames(knl, { i_inner: 'vec' });
    knl = tagArrayAxes(knl, 'out', 'c,vec');
    knl = assume(knl, 'n mod 3 = 0 and n > 0');
    knl = addDtypes(knl, { a: 'float32', b: 'float32' });
    assert.not.match(clCode(knl), 'float3 *');
    const { out } = await run(knl, device, { a: 1.5, b: -2, n: 9 });
    assert.equal(Array.from(out as Float32Array), [1.5, -2, -2, -2, -2, -2, -2, -2, -2]);
  });
}

test.run();
