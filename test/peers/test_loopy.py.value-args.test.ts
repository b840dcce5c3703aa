/**
 * Ports of loopy's tests of value arguments that are not real scalars (issue 27, "Arrays and
 * arguments"): a complex `a` passed by value, and a `float4` one (passed as its lanes, see README.md).
 * Each runs on every test device against plain JavaScript; names are the originals', the
 * file each comes from is in its comment.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  globalArg,
  LoomError,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  valueArg,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/** loopy's axpy, `z = a*x + b*y`, for one dtype (a value dtype and an array dtype alike). */
const axpy = (dtype: DType) =>
  makeKernel(
    '[n] -> {[i]: 0<=i<n}',
    ['z[i] = a*x[i]+b*y[i]'],
    [
      valueArg('a', dtype),
      globalArg('x', { dtype, shape: 'n,' }),
      valueArg('b', dtype),
      globalArg('y', { dtype, shape: 'n,' }),
      globalArg('z', { dtype, shape: 'n,' }),
      valueArg('n', 'int32'),
    ],
    { name: 'axpy', assumptions: 'n>=1' },
  );

// loopy's two variants, with blocks small enough for the n of a test (loopy's n is 3145182)
const variantCpu = (knl: LoopKernel) => {
  knl = splitIname(knl, 'i', 16 * 8, { outerTag: 'g.0', slabs: [0, 1] });
  knl = splitIname(knl, 'i_inner', 16, { innerTag: 'unr' });
  return prioritizeLoops(knl, 'i_outer, i_inner_outer, i_inner_inner');
};
const variantGpu = (knl: LoopKernel) => {
  knl = splitIname(knl, 'i', 4 * 32, { outerTag: 'g.0', slabs: [0, 1] });
  return splitIname(knl, 'i_inner', 32, { outerTag: 'unr', innerTag: 'l.0' });
};

/** `a*x + b*y` on interleaved complex parts, in plain JavaScript. */
function complexAxpy(a: [number, number], x: Float32Array, b: [number, number], y: Float32Array): number[] {
  const z: number[] = [];
  for (let k = 0; k < x.length; k += 2) {
    z.push(a[0] * x[k] - a[1] * x[k + 1] + b[0] * y[k] - b[1] * y[k + 1]);
    z.push(a[0] * x[k + 1] + a[1] * x[k] + b[0] * y[k + 1] + b[1] * y[k]);
  }
  return z;
}

for (const device of testDevices()) {
  // test_linalg.py: loopy's dtypes complex64 and float32 (a = 5, b = 7), plus complex a and b
  // given both parts, through loopy's CPU and GPU variants, n not a multiple of a block
  test(`${device.name}: test_axpy`, async () => {
    const n = 1000;
    const cases: { a: number | [number, number]; b: number | { re: number; im: number } }[] = [
      { a: 5, b: 7 },
      { a: [1.5, -2], b: { re: 0.25, im: 3 } },
    ];
    for (const { a, b } of cases) {
      const x = randomFloat32(2 * n, 1);
      const y = randomFloat32(2 * n, 2);
      const aParts: [number, number] = typeof a === 'number' ? [a, 0] : a;
      const bParts: [number, number] = typeof b === 'number' ? [b, 0] : [b.re, b.im];
      const expected = complexAxpy(aParts, x, bParts, y);
      for (const [label, variant] of [
        ['reference', (k: LoopKernel) => k],
        ['cpu', variantCpu],
        ['gpu', variantGpu],
      ] as const) {
        const out = await run(variant(axpy('complex64')), device, { a, x, b, y, n });
        assertClose(out.z as Float32Array, expected, `complex64 ${label}, a=${JSON.stringify(a)}`);
      }
    }
    const x = randomFloat32(n, 3);
    const y = randomFloat32(n, 4);
    const expected = Array.from(x, (v, k) => 5 * v + 7 * y[k]);
    for (const variant of [(k: LoopKernel) => k, variantCpu, variantGpu]) {
      const out = await run(variant(axpy('float32')), device, { a: 5, x, b: 7, y, n });
      assertClose(out.z as Float32Array, expected, 'float32');
    }
    // loopy's third dtype, float4: `a` and `b` are vectors (loopy's make_float4(1, 2, 3, 4) and
    // (6, 7, 8, 9)), passed as their lanes (README.md); the product works lane by lane
    const a4 = Float32Array.of(1, 2, 3, 4);
    const b4 = Float32Array.of(6, 7, 8, 9);
    const x4 = randomFloat32(4 * n, 5);
    const y4 = randomFloat32(4 * n, 6);
    const expected4 = Array.from(x4, (v, k) => a4[k % 4] * v + b4[k % 4] * y4[k]);
    for (const variant of [(k: LoopKernel) => k, variantCpu, variantGpu]) {
      const out = await run(variant(axpy('float4' as DType)), device, { a: a4, x: x4, b: b4, y: y4, n });
      assertClose(out.z as Float32Array, expected4, 'float4');
    }
  });

  test(`${device.name}: test_axpy: a complex value given as something else is a LoomError`, async () => {
    const x = randomFloat32(8, 1);
    for (const a of [[1, 2, 3], { re: 1 }, 'five', { re: 1, im: 2, extra: 3 }]) {
      await run(axpy('complex64'), device, { a: a as never, x, b: 1, y: x, n: 4 }).then(
        () => assert.unreachable(`a = ${JSON.stringify(a)} was accepted`),
        (e: unknown) =>
          assert.ok(e instanceof LoomError && /argument 'a' is a complex value argument/.test(String(e)), String(e)),
      );
    }
  });

  test(`${device.name}: test_axpy: a complex value argument whose part names are taken is a LoomError`, async () => {
    const knl = makeKernel('{[i]: 0<=i<4}', 'z[i] = a*x[i] + a_re', [
      valueArg('a', 'complex64'),
      valueArg('a_re', 'float32'),
      globalArg('x', { dtype: 'complex64', shape: [4] }),
      globalArg('z', { dtype: 'complex64', shape: [4] }),
    ]);
    const x = randomFloat32(8, 1);
    await run(knl, device, { a: 1, a_re: 2, x }).then(
      () => assert.unreachable('accepted'),
      (e: unknown) => assert.ok(e instanceof LoomError && /already has a 'a_re'/.test(String(e)), String(e)),
    );
  });
}

test.run();
