/**
 * Ports of loopy's test/test_transform.py: the layout of an array's axes (`tagArrayAxes` with
 * explicit nesting levels) and renaming an argument whose strides are taken from the array
 * passed. Each transformed kernel runs on every test device and is compared with the same
 * computation in plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  generateCode,
  globalArg,
  makeKernel,
  printExpr,
  renameArgument,
  run,
  stridesOf,
  tagArrayAxes,
  tagInames,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { randomFloat32, supportsDType, testDevices } from '../../support/devices.ts';
import { throwsLoom } from './helpers.ts';

test('test_tag_data_axes (refusals and the layout)', () => {
  const knl = makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'out[i,j,k] = 15');
  throwsLoom(
    () => tagArrayAxes(knl, 'out', 'N1,N0,N5'),
    /the nesting levels of 'out' \(N1, N0, N5\) are not contiguous/,
  );
  throwsLoom(() => tagArrayAxes(knl, 'out', 'N1,N0,c'), /'out' mixes explicit nesting levels/);
  const out = tagArrayAxes(knl, 'out', 'N1,N0,N2').arg('out')!;
  // N0 varies fastest: j, then i, then k
  assert.equal(
    stridesOf(out.shape!, out.dimTags).map((s) => printExpr(s)),
    ['n', '1', 'n*n'],
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_tag_data_axes`, async () => {
    const n = 20;
    const ref = makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'out[i,j,k] = 15');
    const knl = tagInames(tagArrayAxes(ref, 'out', 'N1,N0,N2'), { j: 'g.0', i: 'g.1' });
    // loopy's auto_test_vs_ref: every element is 15 in either layout
    const expected = new Array(n * n * n).fill(15);
    assert.equal(Array.from((await run(ref, device, { n })).out as Int32Array), expected);
    assert.equal(Array.from((await run(knl, device, { n })).out as Int32Array), expected);
    // and each element lands where the layout puts it
    const placed = tagInames(
      tagArrayAxes(makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'out[i,j,k] = 100*i + 10*j + k'), 'out', 'N1,N0,N2'),
      { j: 'g.0', i: 'g.1' },
    );
    const m = 4;
    const got = (await run(placed, device, { n: m })).out as Int32Array;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < m; j++)
        for (let k = 0; k < m; k++) assert.is(got[i * m + j + k * m * m], 100 * i + 10 * j + k, `out[${i},${j},${k}]`);
  });
}

test('test_rename_argument_with_auto_stride (the code)', () => {
  const knl = renameArgument(
    tagArrayAxes(
      makeKernel('{[i]: 0<=i<10}', 'y[i] = x[i]', [globalArg('x', { dtype: 'float64', shape: 'auto' }), '...']),
      'x',
      'stride:auto',
    ),
    'x',
    'x_new',
  );
  const code = generateCode(knl, openclTarget()).code;
  assert.ok(code.includes('double const *__restrict__ x_new,'), code);
  assert.not.ok(code.includes('double const *__restrict__ x,'), code);
});

for (const device of testDevices()) {
  test(`${device.name}: test_rename_argument_with_auto_stride`, async () => {
    const t = supportsDType(device, 'float64') ? 'float64' : 'float32';
    if (t === 'float32')
      console.log(`${device.name}: test_rename_argument_with_auto_stride in float32: WGSL has no float64`);
    const knl = renameArgument(
      tagArrayAxes(
        makeKernel('{[i]: 0<=i<10}', 'y[i] = x[i]', [globalArg('x', { dtype: t, shape: 'auto' }), '...']),
        'x',
        'stride:auto',
      ),
      'x',
      'x_new',
    );
    const Host = t === 'float64' ? Float64Array : Float32Array;
    const data = Host.from(randomFloat32(20, 42));
    // a plain array: its stride is 1
    const plain = data.slice(0, 10);
    assert.equal(Array.from((await run(knl, device, { x_new: plain })).y as ArrayLike<number>), Array.from(plain));
    // every other element: the stride the kernel takes from the array passed
    const { y } = await run(knl, device, { x_new: { data, shape: [10], strides: [2] } });
    assert.equal(
      Array.from(y as ArrayLike<number>),
      Array.from({ length: 10 }, (_, i) => data[2 * i]),
    );
  });
}

test.run();
