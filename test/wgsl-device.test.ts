/**
 * The kernels of the tutorial and `run` tests on WebGPU (lavapipe on the CPU machines), checked
 * against the CPU device: exactly for integer and copy kernels, within 1e-5 relative for float
 * arithmetic (a GPU may contract a*b + c into one fused operation). What only WebGPU has (pooled
 * bindings, barriers under guards, atomics, folded grids, large bindings, errors, a lost device)
 * is wgsl-device-limits.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DeviceArray,
  globalArg,
  LoomError,
  makeKernel,
  prioritizeLoops,
  run,
  valueArg,
  type Device,
  type GeneratedCode,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { webgpuDeviceOrSkip } from './support/backends.ts';
import { randomFloat32 } from './support/devices.ts';
import { sameAsCpu } from './support/same-as-cpu.ts';

const device = await webgpuDeviceOrSkip();
const cpu = cpuDevice();

const FLOAT_TOLERANCE = 1e-5;

if (device) {
  const SIZES = [1, 2, 7, 13, 64, 257];

  // --- the tutorial's kernels (test/tutorial-kernels.test.ts) -----------------------------------

  test('out = 2*a (double a vector)', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
    for (const n of SIZES) await sameAsCpu(device, knl, { a: randomFloat32(n, n) });
  });

  test('the wrong transpose-and-double computes what the tutorial says', async () => {
    let knl = makeKernel(
      '{ [i,j]: 0<=i,j<n }',
      `
      out[j,i] = a[i,j] {id=transpose}
      out[i,j] = 2*out[i,j] {dep=transpose}
    `,
      [globalArg('out', { shape: 'auto', isInput: false }), '...'],
      { name: 'transpose_and_dbl' },
    );
    knl = prioritizeLoops(knl, 'i,j');
    await sameAsCpu(device, knl, { a: randomFloat32(25, 3) });
  });

  test('the corrected transpose-and-double', async () => {
    let knl = makeKernel(
      '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
      `
      out[j,i] = a[i,j] {id=transpose}
      out[ii,jj] = 2*out[ii,jj] {dep=transpose}
    `,
      [globalArg('out', { shape: 'auto', isInput: false }), '...'],
    );
    knl = prioritizeLoops(prioritizeLoops(knl, 'i,j'), 'ii,jj');
    for (const n of [1, 3, 16, 31]) await sameAsCpu(device, knl, { a: randomFloat32(n * n, n) });
  });

  test('zero fill with prioritizeLoops(knl, "j,i"), written in place', async () => {
    const knl = prioritizeLoops(makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0'), 'j,i');
    const a = randomFloat32(81, 9);
    const { a: result } = await run(knl, device, { a });
    assert.is(result, a);
    assert.ok(a.every((v) => v === 0));
  });

  test('a reduction (matrix-vector product)', async () => {
    const knl = makeKernel('{ [i,k]: 0<=i<n and 0<=k<m }', 'y[i] = sum(k, A[i,k]*x[k])');
    await sameAsCpu(device, knl, { A: randomFloat32(7 * 13, 5), x: randomFloat32(13, 6), n: 7 }, FLOAT_TOLERANCE);
  });

  test('product, max and min reductions on int32', async () => {
    const knl = makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<4 }',
      `
      pr[i] = product(k, a[i,k])
      mx[i] = max(k, a[i,k])
      mn[i] = min(k, a[i,k])
    `,
    );
    const res = await sameAsCpu(device, knl, { a: Int32Array.from([1, -2, 3, 4, 5, 6, -7, 8, 0, 1, 2, 3]) });
    assert.equal(Array.from(res.pr), [-24, -1680, 0]);
  });

  test('<> temporaries', async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      <> t = a[i] * a[i]
      <float32> u = t + 1
      out[i] = u / 2
    `,
    );
    await sameAsCpu(device, knl, { a: randomFloat32(11, 4) }, FLOAT_TOLERANCE);
  });

  test('a triangular domain 0 <= j <= i < n', async () => {
    const knl = prioritizeLoops(
      makeKernel('{ [i,j]: 0<=j<=i<n }', 'out[i,j] = a[i] + j', [
        globalArg('out', { shape: ['n', 'n'], isInput: false, dtype: 'float32' }),
        '...',
      ]),
      'i,j',
    );
    await sameAsCpu(device, knl, { a: randomFloat32(6, 8), out: new Float32Array(36).fill(-100) }, FLOAT_TOLERANCE);
  });

  test('mod and exists domains', async () => {
    const everyThird = makeKernel('{ [i]: 0<=i<n and i mod 3 = 0 }', 'out[i] = 1', [
      globalArg('out', { shape: ['n'], dtype: 'int32', isInput: false }),
      '...',
    ]);
    const res = await sameAsCpu(device, everyThird, { out: new Int32Array(10) });
    assert.equal(Array.from(res.out), [1, 0, 0, 1, 0, 0, 1, 0, 0, 1]);
    const evens = makeKernel('{ [i]: 0<=i<n and (exists l: i = 2*l) }', 'out[i] = i', [
      globalArg('out', { shape: ['n'], dtype: 'int32', isInput: false }),
      '...',
    ]);
    await sameAsCpu(device, evens, { out: new Int32Array(7).fill(-1) });
  });

  test('int32 data exactly; float64 data is a LoomError naming the argument', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 3*a[i] - b[i] // 2 + b[i] % 3');
    await sameAsCpu(device, knl, {
      a: Int32Array.from([1, -2, 3, 1000000, -7]),
      b: Int32Array.from([5, -5, 0, 7, -1]),
    });
    const d = makeKernel('{ [i]: 0<=i<n }', 'out[i] = sqrt(a[i]) * 0.1');
    try {
      await run(d, device, { a: Float64Array.from([0, 1, 2]) });
      assert.unreachable('float64 ran');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, /argument 'a' has dtype float64: WGSL has no 64-bit floats.*OpenCL or CPU/);
    }
  });

  // --- run (test/run.test.ts) --------------------------------------------------------------------

  test('one compiled variant per dtype combination', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + 1');
    let compiles = 0;
    const plain: Device = device;
    const counting: Device = Object.create(plain);
    counting.compile = (code: GeneratedCode, options?: { buildOptions?: readonly string[] }) => {
      compiles++;
      return plain.compile(code, options);
    };
    await run(knl, counting, { a: new Float32Array([1, 2]) });
    await run(knl, counting, { a: new Float32Array([3, 4, 5]) });
    assert.is(compiles, 1);
    const { out } = await run(knl, counting, { a: new Int32Array([7, 8]) });
    assert.equal(Array.from(out as Int32Array), [8, 9]);
    assert.is(compiles, 2);
  });

  test('sizes come from shaped arrays and from flat lengths', async () => {
    const knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i,j] = a[i,j] * 2');
    const a = randomFloat32(12, 2);
    await sameAsCpu(device, knl, { a: { data: a, shape: [3, 4] } });
    await sameAsCpu(device, knl, { a, m: 4 });
    await sameAsCpu(device, makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]'), {
      a: Float32Array.from({ length: 9 }, (_, k) => k),
    });
  });

  test('device arrays in and out stay on the device', async () => {
    // b as float32: a JavaScript number would make it float64, which WGSL lacks
    const knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i] + b', [
      globalArg('out', { shape: 'auto', isInput: false }),
      valueArg('b', 'float32'),
      '...',
    ]);
    const a = await DeviceArray.from(
      device,
      Float32Array.from({ length: 4 }, (_, k) => k),
      'float32',
      [2, 2],
    );
    const out = await DeviceArray.from(device, new Float32Array(4), 'float32', [2, 2]);
    const result = await run(knl, device, { a, out, b: 0.5 });
    assert.is(result.out, out);
    assert.equal(Array.from((await out.toHost()) as Float32Array), [0.5, 2.5, 1.5, 3.5]);
    a.release();
    out.release();
  });

  test('an output passed in keeps the entries the kernel does not write', async () => {
    const knl = makeKernel('{ [i]: 1<=i<n-1 }', 'out[i] = a[i-1] + a[i+1]', [
      globalArg('out', { shape: ['n'], isInput: false }),
      '...',
    ]);
    const res = await sameAsCpu(device, knl, {
      a: Float32Array.from([1, 2, 3, 4, 5]),
      out: new Float32Array(5).fill(-1),
    });
    assert.equal(Array.from(res.out), [-1, 4, 6, 8, -1]);
  });

  test('a domain tree: j ranges up to the outer i', async () => {
    const knl = makeKernel(['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }'], 'out[i] = sum(j, a[j])');
    await sameAsCpu(device, knl, { a: Float32Array.from([1, 2, 3, 4]) });
  });

  test('a data-dependent write index is guarded, never out of bounds', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[idx[i]] = a[i]', [
      globalArg('out', { shape: ['m'], dtype: 'float32', isInput: false }),
      '...',
    ]);
    // the drop semantics, not the report (security-bounds.test.ts checks the LoomError)
    const args = { idx: Int32Array.from([2, -1, 0, 99]), a: Float32Array.from([10, 20, 30, 40]), m: 3 };
    for (const d of [cpu, device]) {
      const res = await run(knl, d, { ...args, out: new Float32Array(3) }, { checkBounds: false });
      assert.equal(Array.from(res.out as Float32Array), [30, 0, 10], d.name);
    }
  });

  test('value arguments of float type and zero-size launches', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = alpha*a[i]', [valueArg('alpha', 'float32'), '...']);
    await sameAsCpu(device, knl, { a: Float32Array.from([1, 2]), alpha: 0.25 });
    const empty = await run(knl, device, { a: new Float32Array(0), alpha: 1 });
    assert.is((empty.out as Float32Array).length, 0);
  });

  // --- WGSL's own concerns ------------------------------------------------------------------------

  test('Python semantics of //, % and ** on negative numbers, and C conversions', async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      q[i] = a[i] // b[i]
      r[i] = a[i] % b[i]
      p[i] = b[i] ** 3
      f[i] = x[i] % 0.75 + x[i] // 0.5 + int32(x[i] * 3) + round(x[i] * 4)
    `,
      [globalArg('f', { shape: ['n'], dtype: 'float32', isInput: false }), '...'],
    );
    const a = Int32Array.from([7, -7, 7, -7, 0, 5, -2147483648]);
    const b = Int32Array.from([2, 2, -2, -2, 3, 0, -1]);
    const x = Float32Array.from([0.3, -0.3, 1.875, -1.875, 0.125, -2.5, 2.5]);
    await sameAsCpu(device, knl, { a, b, x }, FLOAT_TOLERANCE);
  });

  test('8- and 16-bit arrays and bools: packed, unpacked and wrapped exactly as on the CPU', async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      s8[i] = a[i] + b[i]
      u8[i] = a[i] * 3
      s16[i] = c[i] * 300
      u16[i] = c[i] - 1
      flag[i] = a[i] > b[i]
      both[i] = flag[i] and c[i] > 0
    `,
      [
        globalArg('s8', { shape: ['n'], dtype: 'int8', isInput: false }),
        globalArg('u8', { shape: ['n'], dtype: 'uint8', isInput: false }),
        globalArg('s16', { shape: ['n'], dtype: 'int16', isInput: false }),
        globalArg('u16', { shape: ['n'], dtype: 'uint16', isInput: false }),
        globalArg('flag', { shape: ['n'], dtype: 'bool', isInput: false }),
        globalArg('both', { shape: ['n'], dtype: 'bool', isInput: false }),
        '...',
      ],
    );
    for (const n of [1, 3, 5, 9]) {
      const a = Int8Array.from({ length: n }, (_, k) => [100, -100, 7, -128, 127, 0, 1, -1, 55][k]);
      const b = Int8Array.from({ length: n }, (_, k) => [100, -100, -7, -1, 1, 0, 2, -2, 3][k]);
      const c = Int16Array.from({ length: n }, (_, k) => [1000, -1000, 0, 32767, -32768, 5, 6, 7, 8][k]);
      const res = await sameAsCpu(device, knl, { a, b, c });
      assert.equal(Array.from(res.s8).slice(0, 2), [-56, 56].slice(0, n), `n=${n}`);
    }
  });

  test('value arguments of every kind travel in the uniform struct', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = if(flag, a[i] * s, -a[i]) + u + h', [
      valueArg('flag', 'bool'),
      valueArg('s', 'int8'),
      valueArg('u', 'uint32'),
      valueArg('h', 'uint16'),
      globalArg('out', { shape: ['n'], dtype: 'float32', isInput: false }),
      '...',
    ]);
    const a = Float32Array.from([1, 2, 3]);
    await sameAsCpu(device, knl, { a, flag: 1, s: -3, u: 7, h: 65535 });
    await sameAsCpu(device, knl, { a, flag: 0, s: 5, u: 4000000000, h: 2 }, FLOAT_TOLERANCE);
  });

  test('names WGSL reserves are renamed, and the shader compiles', async () => {
    const knl = makeKernel(
      '{ [ref]: 0<=ref<n }',
      `
      <float32> sample = 2*active[ref]
      filter[ref] = sample + select[ref]
    `,
      ['...'],
      { name: 'target' },
    );
    await sameAsCpu(device, knl, { active: randomFloat32(5, 1), select: randomFloat32(5, 2) }, FLOAT_TOLERANCE);
  });
}

test.run();
