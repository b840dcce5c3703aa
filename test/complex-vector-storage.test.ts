/**
 * Complex arrays are held as vectors of their two parts where the target has vector types
 * (`float2` in OpenCL and CUDA, `vec2<f32>` in WGSL), so that reading a complex element is
 * one 8-byte access: the H200's FFT kernels were bound by their L1 traffic with each part
 * read on its own. A lane's index is recovered from indices with divisions and remainders
 * (split and tiled kernels), and OpenCL writes a lane of a global vector through a pointer to
 * its elements, since Clang writes `a[i].s1 = x` as a read-modify-write of the whole vector
 * (slower, and it would lose the other lane written by another work-item).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  expr as E,
  generateCode,
  globalArg,
  laneOf,
  makeKernel,
  run,
  splitIname,
  tagArrayAxes,
  tagInames,
  temporaryVariable,
} from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { testDevices } from './support/devices.ts';

/** `out[i] = x[i] * y[i]` over n complex64 values, split so that its indices divide and take remainders. */
function splitProduct() {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = x[i] * y[i]', [
    globalArg('x', { dtype: 'complex64', shape: ['n'] }),
    globalArg('y', { dtype: 'complex64', shape: ['n'] }),
    globalArg('out', { dtype: 'complex64', shape: ['n'] }),
  ]);
  return splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
}

test('laneOf: the lane of an index with divisions and remainders, each division held whole', () => {
  const index = E.parseExpression('2048 * (g * 2 + l % 2) + 2 * (l // 2 + 64) + 1');
  const split = laneOf(index, 2);
  assert.ok(split, 'every term but the constant is a multiple of 2');
  assert.is(split!.lane, 1);
  assert.is(E.printExpr(split!.vector), '2048*g + 1024*(l % 2) + l // 2 + 64');
  // a term that is not a multiple of the lanes leaves the lane unknown
  assert.is(laneOf(E.parseExpression('2 * g + l % 2'), 2), undefined);
  assert.is(laneOf(E.parseExpression('4 * (g // 3) - 6'), 4)?.lane, 2);
});

test('complex arrays are vectors of their parts on OpenCL, CUDA and WGSL', () => {
  const knl = splitProduct();
  const cl = generateCode(knl, openclTarget()).code;
  assert.match(cl, '__global float2 const *__restrict__ x');
  assert.match(cl, /x\[[^\]]*\]\.s0/, 'a real part is lane 0 of the vector');
  assert.match(cl, /x\[[^\]]*\]\.s1/, 'an imaginary part is lane 1');
  assert.match(cl, /\(\(__global float \*\) out\)\[/, 'OpenCL writes a lane through a pointer to the parts');
  assert.not.match(cl, /out\[[^\]]*\]\.s[01] =/);

  const cuda = generateCode(knl, cudaTarget()).code;
  assert.match(cuda, /float2 const \*__restrict__ x/);
  assert.match(cuda, /out\[[^\]]*\]\.y = /, 'CUDA writes a member of its float2');

  const wgsl = generateCode(knl, wgslTarget()).code;
  assert.match(wgsl, 'var<storage, read> x: array<vec2<f32>>');
  assert.match(wgsl, /out\[[^\]]*\]\.y = /);
});

test('a private vector keeps its lanes in registers: only memory lanes are written through a pointer', () => {
  let knl = makeKernel(
    '{ [i, v]: 0<=i<n and 0<=v<2 }',
    ['t[v] = a[i, v] + 1 {id=fill}', 'out[i, v] = 2 * t[v] {dep=fill}'],
    [
      globalArg('a', { dtype: 'float32', shape: ['n', 2] }),
      globalArg('out', { dtype: 'float32', shape: ['n', 2] }),
      temporaryVariable('t', { dtype: 'float32', shape: [2], addressSpace: 'private' }),
    ],
  );
  knl = tagArrayAxes(tagArrayAxes(tagArrayAxes(knl, 't', 'vec'), 'a', 'c,vec'), 'out', 'c,vec');
  knl = tagInames(splitIname(knl, 'i', 8, { outerTag: 'g.0', innerTag: 'l.0' }), { v: 'unr' });
  const cl = generateCode(knl, openclTarget()).code;
  assert.not.match(cl, /\(float \*\) t\)/, 'no pointer into a private vector');
  assert.match(cl, /\(\(__global float \*\) out\)\[/);
});

for (const device of testDevices()) {
  test(`${device.name}: complex products through vector storage, split indices, against plain JavaScript`, async () => {
    const n = 100;
    const x = Float32Array.from({ length: 2 * n }, (_, k) => ((k * 7) % 13) - 6);
    const y = Float32Array.from({ length: 2 * n }, (_, k) => ((k * 5) % 11) * 0.25 - 1);
    const { out } = await run(splitProduct(), device, { x, y });
    const got = out as Float32Array;
    for (let i = 0; i < n; i++) {
      const [a, b, c, d] = [x[2 * i], x[2 * i + 1], y[2 * i], y[2 * i + 1]];
      assert.ok(Math.abs(got[2 * i] - (a * c - b * d)) < 1e-4, `${device.name}: real part of element ${i}`);
      assert.ok(Math.abs(got[2 * i + 1] - (a * d + b * c)) < 1e-4, `${device.name}: imaginary part of element ${i}`);
    }
  });

  test(`${device.name}: neighbouring work-items write the two lanes of one vector, and neither is lost`, async () => {
    // work-item i writes lane i % 2 of vector i // 2: a read-modify-write of the vector would race
    let knl = makeKernel('{ [i]: 0<=i<2*n }', 'out[i // 2, i % 2] = i + 1', [
      globalArg('out', { dtype: 'float32', shape: ['n', 2] }),
    ]);
    knl = splitIname(tagArrayAxes(knl, 'out', 'c,vec'), 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' });
    const n = 300;
    const { out } = await run(knl, device, { n });
    assert.equal(
      [...(out as Float32Array)],
      Array.from({ length: 2 * n }, (_, i) => i + 1),
    );
  });
}

test.run();
