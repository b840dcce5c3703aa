/**
 * Vector types: arrays with a `vec` axis (arguments and temporaries), their lanes read
 * one by one (component access), and loops over `vec` inames, which become vector code
 * on OpenCL (`float4`) and are unrolled elsewhere, as loopy falls back to unrolling.
 * Every kernel runs on every device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, assume, generateCode, LoomError, makeKernel, run, splitArrayAxis, splitIname, tagArrayAxes, tagInames, type LoopKernel } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { jsTarget } from '@loom/codegen-js';
import { assertClose, randomFloat32, supportsDType, testDevices } from './support/devices.ts';

/** `out[i, k] = body` over n vectors of `lanes` lanes, `k` the lane iname tagged `vec`. */
function laneKernel(body: string, lanes: number, arrays = 'a,out', extra = '', dtype: 'float32' | 'float64' = 'float32'): LoopKernel {
  let knl = makeKernel(`{ [i,k]: 0<=i<n and 0<=k<${lanes} }`, `${extra}out[i, k] = ${body}`);
  knl = addDtypes(knl, { a: dtype });
  knl = tagArrayAxes(knl, arrays, 'c,vec');
  return tagInames(knl, { k: 'vec' });
}

const clCode = (knl: LoopKernel) => generateCode(knl, openclTarget()).code;

test('a vec loop over vec axes is one vector statement in OpenCL', () => {
  const code = clCode(laneKernel('2*a[i, k] + 1', 4));
  assert.match(code, '__global float4 const *__restrict__ a');
  assert.match(code, 'out[i] = 2.0f * a[i] + 1.0f;');
  assert.not.match(code, 'for (int k');
});

test('a scalar meets a vector: OpenCL broadcasts it', () => {
  const knl = addDtypes(laneKernel('a[i, k] * s - i', 4), { s: 'float32' });
  assert.match(clCode(knl), 'out[i] = a[i] * s - (float) i;');
});

test('a temporary written in a vec loop becomes a vector (loopy privatizes over vec inames)', () => {
  const code = clCode(laneKernel('t + a[i, 3 - k]', 4, 'a,out', '<> t = 3*a[i, k]\n'));
  // each instruction is vector code or not on its own: t is written whole, then read lane by lane
  assert.match(code, 'float4 t[1];');
  assert.match(code, 't[0] = 3.0f * a[i];');
  assert.match(code, 'out[i].s0 = t[0].s0 + a[i].s3;');
  const vector = clCode(laneKernel('t*t', 4, 'a,out', '<> t = 3*a[i, k]\n'));
  assert.match(vector, 't[0] = 3.0f * a[i];');
  assert.match(vector, 'out[i] = t[0] * t[0];');
});

test('a vector conditional is a select; a call on a vector unrolls the loop', () => {
  const select = clCode(laneKernel('a[i, k]*3 if a[i, k] < 0 else a[i, k]*0.5', 4));
  assert.match(select, 'out[i] = select((float4)(a[i] * 0.5f), (float4)(a[i] * 3.0f), a[i] < 0.0f);');
  const call = clCode(laneKernel('sin(a[i, k])', 4));
  assert.match(call, 'out[i].s2 = sin(a[i].s2);');
});

test('the lane used as a value unrolls the loop (loopy: unvectorizable)', () => {
  const code = clCode(laneKernel('a[i, k] + k', 2));
  assert.match(code, 'out[i].s1 = a[i].s1 + 1.0f;');
});

test('three lanes: packed elements, read and written with vload3/vstore3', () => {
  const code = clCode(laneKernel('2*a[i, k]', 3));
  assert.match(code, '__global float const *__restrict__ a');
  assert.match(code, 'vstore3(2.0f * vload3(i, a), i, out);');
  // a single lane of a packed array is an element
  assert.match(clCode(laneKernel('a[i, 2]', 3)), 'a[3 * i + 2]');
});

test('targets without vector types unroll a vec loop', () => {
  const code = generateCode(laneKernel('2*a[i, k]', 4), jsTarget()).code;
  assert.not.match(code, 'for (let k');
  assert.match(code, 'out[Math.imul(4, i) + 3] =');
});

test('a vec axis needs the lane count of a vector type', () => {
  const knl = laneKernel('a[i, k]', 5);
  assert.throws(
    () => generateCode(knl, jsTarget()),
    (e: unknown) => e instanceof LoomError && /'(a|out)': a 'vec' axis needs 2, 3, 4, 8, 16 lanes .*not 5/.test((e as Error).message),
  );
});

/** n vectors of `lanes` floats: out[i, k] computed per element by `f(a, i, k)`. */
function reference(a: Float32Array, lanes: number, f: (x: (i: number, k: number) => number, i: number, k: number) => number): number[] {
  const at = (i: number, k: number) => a[lanes * i + k];
  return Array.from(a, (_, j) => Math.fround(f(at, Math.floor(j / lanes), j % lanes)));
}

for (const device of testDevices()) {
  for (const lanes of [2, 3, 4, 8, 16]) {
    test(`${device.name}: vector arithmetic with a scalar, ${lanes} lanes`, async () => {
      const a = randomFloat32(7 * lanes, lanes);
      const knl = addDtypes(laneKernel('a[i, k] * s - 1.5', lanes), { s: 'float32' });
      const { out } = await run(knl, device, { a, s: 2.5 });
      assertClose(
        out as Float32Array,
        reference(a, lanes, (x, i, k) => Math.fround(x(i, k) * 2.5) - 1.5),
        'out',
      );
    });
  }

  test(`${device.name}: vector temporaries, component access and conditionals`, async () => {
    const a = randomFloat32(40, 3);
    const cases: [LoopKernel, (x: (i: number, k: number) => number, i: number, k: number) => number][] = [
      [laneKernel('t + a[i, 3 - k]', 4, 'a,out', '<> t = 3*a[i, k]\n'), (x, i, k) => Math.fround(3 * x(i, k)) + x(i, 3 - k)],
      [laneKernel('t*t', 4, 'a,out', '<> t = 3*a[i, k]\n'), (x, i, k) => Math.fround(3 * x(i, k)) ** 2],
      [laneKernel('a[i, k]*3 if a[i, k] < 0 else a[i, k]*0.5', 4), (x, i, k) => (x(i, k) < 0 ? Math.fround(x(i, k) * 3) : x(i, k) * 0.5)],
      [laneKernel('a[i, 1] - a[i, k]', 4), (x, i, k) => x(i, 1) - x(i, k)],
      [laneKernel('a[i, k] + k', 4), (x, i, k) => x(i, k) + k],
    ];
    for (const [knl, f] of cases) {
      const { out } = await run(knl, device, { a });
      assertClose(out as Float32Array, reference(a, 4, f), 'out', 1e-6, 1e-6);
    }
  });

  test(`${device.name}: float64 vectors`, async () => {
    if (!supportsDType(device, 'float64')) {
      console.log(`  (${device.name} has no float64: skipped)`);
      return;
    }
    const a = Float64Array.from(randomFloat32(16, 5), (x) => x / 3);
    const knl = laneKernel('2*a[i, k] + 1', 4, 'a,out', '', 'float64');
    const { out } = await run(knl, device, { a });
    assert.equal(
      Array.from(out as Float64Array),
      Array.from(a, (x) => 2 * x + 1),
    );
  });

  test(`${device.name}: a split iname over a split array axis (loopy's test_vectorize)`, async () => {
    let knl = makeKernel('{ [i]: 0<=i<n }', '<> temp = 2*b[i]\na[i] = temp');
    knl = addDtypes(knl, { b: 'float32' });
    knl = splitArrayAxis(knl, 'a,b', 0, 4);
    knl = splitIname(knl, 'i', 4);
    knl = tagArrayAxes(knl, 'a,b', 'c,vec');
    knl = assume(tagInames(knl, { i_inner: 'vec' }), 'n mod 4 = 0 and n > 0');
    assert.match(clCode(knl), 'a[i_outer] = temp[0];');
    const b = randomFloat32(32, 9);
    const { a } = await run(knl, device, { b, n: 32 });
    assert.equal(
      Array.from(a as Float32Array),
      Array.from(b, (x) => 2 * x),
    );
  });
}

test.run();
