/** `vec` and `sep` array axes: vector types in OpenCL, separate arrays everywhere. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  generateCode,
  makeKernel,
  prioritizeLoops,
  run,
  tagArrayAxes,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from './support/devices.ts';

function vectorKernel(unrolled: boolean): LoopKernel {
  let knl = makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = 2*a[i, k] + a[i, 3 - k]');
  knl = prioritizeLoops(tagArrayAxes(tagArrayAxes(knl, 'a', 'c,vec'), 'out', 'c,vec'), 'i,k');
  return unrolled ? tagInames(knl, { k: 'unr' }) : knl;
}

function separateKernel(): LoopKernel {
  const knl = makeKernel(
    '{ [i,j]: 0<=i<n and 0<=j<2 }',
    `
    out[i, 0] = a[0, i] + a[1, i]
    out[i, 1] = a[0, i] - a[1, i]
    swapped[j, i] = a[1 - j, i]
  `,
  );
  return tagArrayAxes(tagArrayAxes(tagArrayAxes(knl, 'a', 'sep,c'), 'out', 'c,sep'), 'swapped', 'sep,c');
}

test('vec axes become OpenCL vector types with lane access', () => {
  const code = generateCode(addDtypes(vectorKernel(true), { a: 'float32' }), openclTarget()).code;
  assert.match(code, '__global float4 const *__restrict__ a');
  // a lane is read as a member, written through a pointer to the elements (laneWritesWholeVector)
  assert.match(code, '((__global float *) out)[4 * i + 1] = 2.0f * a[i].s1 + a[i].s2;');
  // a lane that varies at run time reads the vectors as elements
  const loop = generateCode(addDtypes(vectorKernel(false), { a: 'float32' }), openclTarget()).code;
  assert.match(loop, '((__global float *) a)[4 * i + k]');
});

test('sep axes become one array per index', () => {
  const code = generateCode(addDtypes(separateKernel(), { a: 'float32' }), openclTarget()).code;
  assert.match(code, '__global float const *__restrict__ a_s0, __global float const *__restrict__ a_s1');
  assert.match(code, 'out_s1[i] = a_s0[i] - a_s1[i];');
});

for (const device of testDevices()) {
  test(`${device.name}: vec arrays compute as plain ones`, async () => {
    const a = Float32Array.from({ length: 12 }, (_, j) => j * 1.5);
    const expected = Array.from(a, (_, j) => Math.fround(2 * a[j] + a[j - (j % 4) + 3 - (j % 4)]));
    for (const unrolled of [true, false]) {
      const { out } = await run(vectorKernel(unrolled), device, { a });
      assert.equal(Array.from(out as Float32Array), expected, unrolled ? 'unrolled lanes' : 'looped lanes');
    }
  });

  test(`${device.name}: sep arrays are split from and scattered back into the caller's arrays`, async () => {
    const a = Float32Array.from([1, 2, 3, 10, 20, 30]);
    const { out, swapped } = await run(separateKernel(), device, { a });
    assert.equal(Array.from(out as Float32Array), [11, -9, 22, -18, 33, -27]);
    assert.equal(Array.from(swapped as Float32Array), [10, 20, 30, 1, 2, 3]);
  });
}

test.run();
