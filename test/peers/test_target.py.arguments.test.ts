/**
 * Ports of loopy's test/test_target.py, the parts about what a call passes and gets back: host
 * arrays written in place, input arrays that must be passed, global temporaries sharing one
 * buffer, the strides of empty arrays, and many arguments at once. loopy checks them through
 * PyOpenCL's invoker (numpy and pyopencl arrays, an allocator, SVM); Loom's counterpart is
 * `run` with typed arrays, `{ data, shape, strides }` views and DeviceArrays, checked on every
 * test device against plain JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  allocateTemporariesForBaseStorage,
  DeviceArray,
  globalArg,
  LoomError,
  makeKernel,
  preprocessKernel,
  prioritizeLoops,
  run,
  tagInames,
  temporaryVariable,
  type Device,
  type HostArray,
} from '@loom/core';
import { supportsDType, testDevices } from '../support/devices.ts';

/** float64 (numpy's default, as loopy's tests pass), or float32 where WGSL has no float64 (said once per test). */
function numpyFloat(device: Device, test: string): 'float32' | 'float64' {
  if (supportsDType(device, 'float64')) return 'float64';
  console.log(`${device.name}: ${test} in float32: WGSL has no float64`);
  return 'float32';
}

const hostArray = (dtype: 'float32' | 'float64', values: readonly number[]): Float32Array | Float64Array =>
  dtype === 'float64' ? Float64Array.from(values) : Float32Array.from(values);

async function throwsLoom(f: () => Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await f();
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, message);
    return;
  }
  assert.unreachable(`expected a LoomError matching ${message}`);
}

for (const device of testDevices()) {
  test(`${device.name}: test_pyopencl_execution_numpy_handling`, async () => {
    const t = numpyFloat(device, 'test_pyopencl_execution_numpy_handling');
    // a host array passed for an array the kernel reads and writes is written in place and returned
    const knl = makeKernel('{:}', 'x[0] = y[0] + x[0]');
    let x = hostArray(t, [4]);
    let out = await run(knl, device, { y: hostArray(t, [3]), x });
    assert.is(out.x, x);
    assert.is(x[0], 7);

    // ... also beside an array already on the device (loopy's pyopencl array for y)
    const y = await DeviceArray.from(device, hostArray(t, [3]), t);
    try {
      x = hostArray(t, [4]);
      out = await run(knl, device, { y, x });
      assert.is(out.x, x);
      assert.is(x[0], 7);
    } finally {
      y.release();
    }

    // ... and when the kernel only writes it
    const writeOnly = makeKernel('{:}', 'x[0] = y[0] + 2');
    x = hostArray(t, [4]);
    out = await run(writeOnly, device, { y: hostArray(t, [3]), x });
    assert.is(out.x, x);
    assert.is(x[0], 5);
  });

  test(`${device.name}: test_input_args_are_required`, async () => {
    const t = numpyFloat(device, 'test_input_args_are_required');
    const knl1 = makeKernel('{ [i]: 0<=i<2 }', 'g[i] = f[i] + 1.5', [
      globalArg('f, g', { shape: 'auto', dtype: t }),
      '...',
    ]);
    const knl2 = makeKernel('{ [i]: 0<=i<n }', 'g[i] = 3 * f[i] + g[i]');
    const f = hostArray(t, [0.5, -2]);
    for (const knl of [knl1, knl2]) {
      await throwsLoom(() => run(knl, device, {}), /missing (input array 'f'|value for argument 'n')/);
      await throwsLoom(() => run(knl, device, { g: hostArray(t, [0, 0]) }), /missing input array 'f'/);
    }
    assert.equal(Array.from((await run(knl1, device, { f })).g as ArrayLike<number>), [2, -0.5]);
    const g = hostArray(t, [7, 7]);
    assert.is((await run(knl1, device, { f, g })).g, g);
    assert.equal(Array.from(g), [2, -0.5]);

    // loopy's FIXME (inducer/loopy#450): f is written before it is read, yet it counts as an
    // input, so a call without it is refused; Loom, like loopy, reads an argument any instruction
    // reads as an input
    const writesFirst = makeKernel('{ [i]: 0<=i<2 }', 'f[i] = 3.\ng[i] = f[i] + 1.5', [
      globalArg('f, g', { shape: 'auto', dtype: t }),
      '...',
    ]);
    await throwsLoom(() => run(writesFirst, device, {}), /missing input array 'f'/);
  });

  test(`${device.name}: test_pyopencl_target_with_global_temps_with_base_storage`, async () => {
    let knl = makeKernel(
      '{[i, j]: 0<=i, j<10}',
      `
      tmp1[i] = 2*i    {id=w_tmp1}
      y[i] = tmp1[i] {nosync=w_tmp1}
      ... gbarrier
      tmp2[j] = 3*j    {id=w_tmp2}
      z[j] = tmp2[j] {nosync=w_tmp2}
      `,
      [
        temporaryVariable('tmp1', { baseStorage: 'base', addressSpace: 'global' }),
        temporaryVariable('tmp2', { baseStorage: 'base', addressSpace: 'global' }),
        '...',
      ],
      { seqDependencies: true },
    );
    knl = tagInames(knl, { i: 'g.0', j: 'g.0' });
    knl = allocateTemporariesForBaseStorage(preprocessKernel(knl));
    // loopy's RecordingAllocator: the device's allocations, counted
    const allocated: number[] = [];
    const recording: Device = Object.create(device);
    recording.allocate = (byteLength: number) => {
      allocated.push(byteLength);
      return device.allocate(byteLength);
    };
    const out = await run(knl, recording, {});
    assert.equal(
      Array.from(out.y as Int32Array),
      Array.from({ length: 10 }, (_, i) => 2 * i),
    );
    assert.equal(
      Array.from(out.z as Int32Array),
      Array.from({ length: 10 }, (_, j) => 3 * j),
    );
    // one buffer of 40 bytes for tmp1 and tmp2 together, 40 for y, 40 for z
    assert.is(
      allocated.reduce((a, b) => a + b, 0),
      40 + 40 + 40,
    );
  });

  test(`${device.name}: test_empty_array_stride_check`, async () => {
    const t = numpyFloat(device, 'test_empty_array_stride_check');
    // loopy's make_einsum("mij,j->mi", ["a", "x"]), written out (Loom has no einsum front end)
    const einsum = prioritizeLoops(
      makeKernel(
        '{[m,i,j]: 0<=m<M and 0<=i<I and 0<=j<J}',
        'out[m,i] = sum(j, a[m,i,j]*x[j])',
        [globalArg('a, x', { dtype: t, shape: 'auto' }), '...'],
        { name: 'einsum' },
      ),
      'm,i',
    );
    const x = hostArray(t, [1, 2, 3, 4, 5]);
    const empty = await run(einsum, device, { a: { data: hostArray(t, []), shape: [3, 0, 5] }, x });
    assert.is((empty.out as HostArray).length, 0);
    // an empty array reaches no element: numpy's Fortran-order strides of it are no mismatch
    const emptyF = await run(einsum, device, {
      a: { data: hostArray(t, []), shape: [3, 0, 5], strides: [1, 3, 0] },
      x,
    });
    assert.is((emptyF.out as HostArray).length, 0);

    // a Fortran-order array with elements is read with other strides than the kernel's: refused
    const a = hostArray(
      t,
      Array.from({ length: 30 }, (_, k) => k),
    );
    await throwsLoom(
      () => run(einsum, device, { a: { data: a, shape: [3, 2, 5], strides: [1, 3, 6] }, x }),
      /argument 'a': strides mismatch: the array passed has strides \(1, 3, 6\), the kernel's layout of it \(10, 5, 1\)/,
    );
    // the same data in the kernel's order runs
    const { out } = await run(einsum, device, { a: { data: a, shape: [3, 2, 5] }, x });
    assert.equal(
      Array.from(out as ArrayLike<number>),
      Array.from({ length: 6 }, (_, mi) => [1, 2, 3, 4, 5].reduce((s, xj, j) => s + (5 * mi + j) * xj, 0)),
    );
  });

  test(`${device.name}: test_empty_array_stride_check_fortran`, async () => {
    const t = numpyFloat(device, 'test_empty_array_stride_check_fortran');
    const knl = prioritizeLoops(
      makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'output[i,j] = sqrt(input[i,j])', [
        globalArg('input', { dtype: t, shape: 'auto' }),
        '...',
      ]),
      'i,j',
    );
    // loopy's cla.Array(queue, (0, 2), np.float64, order="F"): strides (1, 0) in elements
    const fromHost = await run(knl, device, { input: { data: hostArray(t, []), shape: [0, 2], strides: [1, 0] } });
    assert.is((fromHost.output as HostArray).length, 0);
    const base = await DeviceArray.from(device, hostArray(t, []), t);
    try {
      const onDevice = await run(knl, device, { input: base.view([0, 2], { strides: [1, 0] }) });
      assert.is((onDevice.output as HostArray).length, 0);
    } finally {
      base.release();
    }
  });

  test(`${device.name}: test_passing_bajillions_of_svm_args`, async () => {
    // loopy passes 900 arrays; 48 here keep the test fast, still six times WebGPU's 8 storage
    // buffers per shader stage (the arrays past them are pooled: codegen-wgsl's bindings.ts)
    const nargsets = 16;
    const multiplier = 10_000;
    for (const withGbarrier of [false, true]) {
      // several device kernels: each declares the arguments it uses
      const gbarrierPart = withGbarrier ? ['z[j] = 0 {id=init_z}', '... gbarrier {dep=init_z,id=gb}'] : [];
      const dep = withGbarrier ? ' {dep=gb}' : '';
      const knl = makeKernel(
        '{[i,j]: 0<=i,j<n}',
        [...gbarrierPart, ...Array.from({ length: nargsets }, (_, k) => `c${k}[i] = a${k}[i]+b${k}[i]${dep}`)],
        [
          ...['a', 'b', 'c'].flatMap((name) =>
            Array.from({ length: nargsets }, (_, k) => globalArg(`${name}${k}`, { shape: 'auto', dtype: 'float32' })),
          ),
          '...',
        ],
      );
      const args: Record<string, Float32Array> = {};
      for (let k = 0; k < nargsets; k++) {
        args[`a${k}`] = new Float32Array(20).fill(multiplier * k);
        args[`b${k}`] = new Float32Array(20).fill(k);
      }
      const res = await run(knl, device, args);
      for (let k = 0; k < nargsets; k++)
        assert.equal(Array.from(res[`c${k}`] as Float32Array), new Array(20).fill(k * multiplier + k), `c${k}`);
      if (withGbarrier) assert.equal(Array.from(res.z as ArrayLike<number>), new Array(20).fill(0));
    }
  });
}

test.run();
