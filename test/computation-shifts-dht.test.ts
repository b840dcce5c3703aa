/**
 * fftShift, rollInplace and dht beyond Reikna's tests: every dtype (complex128 and float64
 * where the device has float64), in place and out of place, axes of one element, negative and
 * unordered axes; dht in double precision, its quadrature (the mode functions orthonormal on
 * the grid) and its refusals. Every device, against plain JS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, type DType } from '@loom/core';
import {
  dht,
  fftShift,
  getSpatialGrid,
  getSpatialGridAndWeights,
  getSpatialPoints,
  getTransformationMatrix,
  harmonic,
  hRoots,
  rollInplace,
} from '@loom/computation';
import { assertClose, supportsDType, testDevices } from './support/devices.ts';
import { sizeOf } from './support/ndarray.ts';
import { fftshiftRef, rollRef } from './support/shift.ts';

const LANES: Partial<Record<DType, number>> = { complex64: 2, complex128: 2 };
const hostOf = (dtype: DType, values: readonly number[]) =>
  dtype === 'float64' || dtype === 'complex128'
    ? Float64Array.from(values)
    : dtype === 'int8'
      ? Int8Array.from(values)
      : dtype === 'int32'
        ? Int32Array.from(values)
        : Float32Array.from(values);
const realOf = (dtype: DType): DType =>
  dtype === 'complex128' ? 'float64' : dtype === 'complex64' ? 'float32' : dtype;

test('fftShift: every dtype, in place and out of place, forward and inverse', async () => {
  const cases: [number[], number[] | undefined][] = [
    [[5, 6], undefined],
    [
      [7, 1, 4],
      [-1, 0],
    ],
    [[3, 3], []],
  ];
  for (const device of testDevices()) {
    for (const dtype of ['float64', 'complex64', 'complex128', 'int8'] as const) {
      if (!supportsDType(device, realOf(dtype))) continue;
      const lanes = LANES[dtype] ?? 1;
      for (const [shape, axes] of cases) {
        const data = Array.from({ length: sizeOf(shape) * lanes }, (_, k) => (k % 2 ? -(k % 50) : k % 50));
        const shift = await fftShift({ dtype, shape }, axes).compile(device);
        for (const inverse of [false, true]) {
          const what = `${device.name}, ${dtype}, (${shape}) over ${axes ?? 'all'}, ${inverse ? 'inverse' : 'forward'}`;
          const expected = fftshiftRef(data, shape, axes, inverse, lanes);
          const { output } = await shift(undefined, hostOf(dtype, data) as never, inverse ? 1 : 0);
          assert.equal(Array.from(output as ArrayLike<number>), expected, `${what}: out of place`);
          const array = await DeviceArray.from(device, data, dtype, shape);
          await shift(array, array, inverse ? 1 : 0);
          assert.equal(Array.from((await array.toHost()) as ArrayLike<number>), expected, `${what}: in place`);
          array.release();
        }
      }
    }
  }
});

test('fftShift then the inverse shift gives the array back (odd lengths)', async () => {
  const shape = [5, 3, 7];
  const data = Float32Array.from({ length: 2 * sizeOf(shape) }, (_, k) => k);
  for (const device of testDevices()) {
    const shift = await fftShift({ dtype: 'complex64', shape }, [0, 2]).compile(device);
    const array = await DeviceArray.from(device, data, 'complex64', shape);
    await shift(array, array, 0);
    assert.not.equal([...(await array.toHost())], [...data], device.name);
    await shift(array, array, 1);
    assert.equal([...(await array.toHost())], [...data], device.name);
    array.release();
  }
});

test('rollInplace: a complex array, along its first axis', async () => {
  const shape = [6, 5];
  const data = Array.from({ length: 2 * sizeOf(shape) }, (_, k) => k - 20);
  for (const device of testDevices()) {
    const roll = await rollInplace({ dtype: 'complex64', shape }, 0).compile(device);
    const host = Float32Array.from(data);
    await roll(host, -8);
    assert.equal([...host], rollRef(data, shape, -8, 0, 2), device.name);
  }
});

test('dht-grid: the mode functions are orthonormal on the grid (order 1: Gauss-Hermite quadrature, exact)', () => {
  for (const [modes, add] of [
    [12, 0],
    [9, 3],
    [30, 1],
  ]) {
    const [xs, ws] = getSpatialGridAndWeights(modes, 1, add);
    assert.is(xs.length, modes + add);
    const p = getTransformationMatrix(modes, 1, add);
    for (let m = 0; m < modes; m++) {
      assert.ok(Math.abs(p[m * xs.length + 3] - harmonic(m)(xs[3])) < 1e-15);
      for (let n = 0; n < modes; n++) {
        let s = 0;
        for (let k = 0; k < xs.length; k++) s += ws[k] * p[m * xs.length + k] * p[n * xs.length + k];
        assert.ok(Math.abs(s - (m === n ? 1 : 0)) < 1e-12, `modes ${modes}: <${m}|${n}> = ${s}`);
      }
    }
  }
  // higher orders: more points, on a grid narrowed by sqrt(2 / (order + 1))
  assert.is(getSpatialPoints(10, 2, 1), 15);
  assert.is(getSpatialPoints(20, 3), 39);
  assert.ok(Math.abs(getSpatialGrid(10, 3).at(-1)! - hRoots(19)[0].at(-1)! * Math.sqrt(0.5)) < 1e-15);
});

test('dht: double precision, unordered axes, an inverse then a forward transform gives the modes back', async () => {
  const shape = [4, 3, 6];
  for (const device of testDevices()) {
    for (const dtype of ['float32', 'float64', 'complex64', 'complex128'] as const) {
      if (!supportsDType(device, realOf(dtype))) continue;
      const lanes = LANES[dtype] ?? 1;
      const modes = Array.from({ length: sizeOf(shape) * lanes }, (_, k) => Math.cos(k) / (1 + (k % 7)));
      const options = { axes: [2, 0], addPoints: [1, 0, 2] };
      const inverse = await dht({ dtype, shape }, { ...options, inverse: true }).compile(device);
      const forward = await dht({ dtype, shape }, options).compile(device);
      const { coords } = await inverse(undefined, hostOf(dtype, modes) as never);
      assert.is(coords.length, (4 + 1) * 3 * (6 + 2) * lanes);
      // the coordinates: along axis 0 and axis 2, sums of mode functions on the grid
      const back = (await forward(undefined, coords as never)).modes as ArrayLike<number>;
      const tol = dtype === 'float64' || dtype === 'complex128' ? 1e-12 : 1e-5;
      assertClose(back, modes, `${device.name}, ${dtype}`, tol, tol);
    }
  }
});

test('dht: the inverse transform of one mode is its function on the grid', async () => {
  // mode (1, 2) of a 3 x 4 mode space: phi_1(x) phi_2(y) on the 3 x 4 grid
  const modes = new Float32Array(12);
  modes[1 * 4 + 2] = 1;
  const [xs, ys] = [getSpatialGrid(3, 1), getSpatialGrid(4, 1)];
  const expected = [...xs].flatMap((x) => [...ys].map((y) => harmonic(1)(x) * harmonic(2)(y)));
  for (const device of testDevices()) {
    const inverse = await dht({ dtype: 'float32', shape: [3, 4] }, { inverse: true }).compile(device);
    const { coords } = await inverse(undefined, modes);
    assertClose(coords as Float32Array, expected, device.name, 1e-5, 1e-6);
  }
});

test('dht over no axes copies its input', async () => {
  const data = Float32Array.from({ length: 12 }, (_, k) => k / 4 - 1);
  for (const device of testDevices()) {
    const none = await dht({ dtype: 'float32', shape: [3, 4] }, { axes: [] }).compile(device);
    assert.equal([...((await none(undefined, data)).modes as Float32Array)], [...data], device.name);
  }
});

test('dht refuses dtypes it has no transform for, and options that do not fit the array', () => {
  assert.throws(() => dht({ dtype: 'int32', shape: [4] }), /takes float32, float64, complex64 or complex128/);
  assert.throws(() => dht({ dtype: 'float32', shape: [4, 4] }, { addPoints: [1] }), /one per axis/);
  assert.throws(() => dht({ dtype: 'float32', shape: [4] }, { axes: [1] }), /out of bounds/);
  assert.throws(() => dht({ dtype: 'float32', shape: [4] }, { order: 0 }), /order must be an integer >= 1/);
  assert.throws(() => dht({ dtype: 'float32', shape: [4] }, { inverse: true, mode: 1 } as never), /mode/);
});

test.run();
