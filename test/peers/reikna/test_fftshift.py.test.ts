/**
 * Ports of Reikna's tests/test_fft/test_fftshift.py, on every test device against plain JS
 * (numpy.fft.fftshift / ifftshift semantics, test/support/shift.ts). test_errors shifts in place,
 * as Reikna's does (the same DeviceArray as output and input), forward and inverse, over even
 * and odd lengths; its three- and four-axis shapes are scaled down with their parities kept.
 * The performance tests check their kernels on small shapes, out of place, in complex64.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, type Device } from '@loom/core';
import { fftShift, mulParam } from '@loom/computation';
import { testDevices } from '../../support/devices.ts';
import { sizeOf } from '../../support/ndarray.ts';
import { fftshiftRef } from '../../support/shift.ts';

type Case = readonly [shape: readonly number[], axes: readonly number[] | undefined];

const fmt = ([shape, axes]: Case) => `(${shape.join(', ')})_over_${axes ? `(${axes.join(', ')})` : 'None'}`;

/** Reikna's check_errors: numpy.arange shifted in place, int32. */
async function checkErrors(device: Device, [shape, axes]: Case, inverse: boolean): Promise<void> {
  const data = Int32Array.from({ length: sizeOf(shape) }, (_, k) => k);
  const shift = await fftShift({ dtype: 'int32', shape }, axes).compile(device);
  const array = await DeviceArray.from(device, data, 'int32', shape);
  await shift(array, array, inverse ? 1 : 0);
  const got = await array.toHost();
  array.release();
  assert.equal([...got], fftshiftRef(data, shape, axes, inverse), `${device.name}, ${fmt([shape, axes])}`);
}

// Reikna's shapes, but (100, 80, 60) as (10, 8, 6), (101, 80, 61) as (11, 8, 7), (20, 31, 80, 61) as (4, 5, 8, 7)
const ERRORS: readonly Case[] = [
  [[10], [0]],
  [[11], [0]],
  [[9000], [0]],
  [[9001], [0]],
  [
    [128, 60],
    [0, 1],
  ],
  [
    [127, 60],
    [0, 1],
  ],
  [
    [127, 61],
    [0, 1],
  ],
  [
    [10, 8, 6],
    [0, 1, 2],
  ],
  [
    [11, 8, 7],
    [0, 1, 2],
  ],
  [
    [11, 8, 7],
    [0, 2],
  ],
  [
    [4, 5, 8, 7],
    [0, 2],
  ],
];

for (const c of ERRORS) {
  for (const inverse of [false, true]) {
    test(`test_fftshift.py::test_errors[${inverse ? 'inverse' : 'forward'}-${fmt(c)}]`, async () => {
      for (const device of testDevices()) await checkErrors(device, c, inverse);
    });
  }
}

test('test_fftshift.py::test_trivial', async () => {
  // the shifted axes have one element each: nothing moves, but the transformation on the input still runs
  const shape = [128, 1, 1, 128];
  const n = sizeOf(shape);
  const data = Float32Array.from({ length: 2 * n }, (_, k) => ((k * 37) % 101) / 8 - 6);
  const comp = fftShift({ dtype: 'complex64', shape }, [1, 2]).attach(
    'input',
    mulParam({ dtype: 'complex64', shape }, 'int32'),
    'output',
    { input: 'input_prime', param: 'param' },
  );
  for (const device of testDevices()) {
    const compiled = await comp.compile(device);
    const { output } = await compiled(undefined, data, 4, 0);
    assert.equal(
      [...(output as Float32Array)],
      [...data].map((x) => x * 4),
      device.name,
    );
  }
});

test('test_fftshift.py::test_unordered_axes', async () => {
  for (const device of testDevices())
    await checkErrors(
      device,
      [
        [40, 50, 60],
        [2, 0],
      ],
      false,
    );
});

test('test_fftshift.py::test_no_axes', async () => {
  for (const device of testDevices()) await checkErrors(device, [[40, 50, 60], undefined], false);
});

/**
 * Reikna's check_performance, its correctness part: complex64 numpy.arange shifted out of place,
 * over the shapes of its performance table with a memory limit of 2^12 elements instead of 2^22.
 */
async function checkPerformance(device: Device, [shape, axes]: Case): Promise<void> {
  const n = sizeOf(shape);
  // the real parts count up, the imaginary ones down: both must move with their element
  const data = Float32Array.from({ length: 2 * n }, (_, k) => (k % 2 === 0 ? k / 2 : -k));
  const shift = await fftShift({ dtype: 'complex64', shape }, axes).compile(device);
  const { output } = await shift(undefined, data, 0);
  assert.equal(
    [...(output as Float32Array)],
    fftshiftRef(data, shape, axes, false, 2),
    `${device.name}, ${fmt([shape, axes])}`,
  );
}

/** Reikna's perf_even and perf_odd tables: each shape batched before (contiguous) or after it. */
function performanceCases(odd: boolean): Case[] {
  const cases: Case[] = [];
  for (const contiguous of [true, false]) {
    for (const shape of [[2 ** 4], [2 ** 8], [2 ** 2, 2 ** 2], [2 ** 4, 2 ** 4]]) {
      const batch = 2 ** 12 / sizeOf(shape);
      const full = contiguous ? [batch, ...shape] : [...shape, batch];
      const axes = contiguous ? shape.map((_, k) => k + 1) : shape.map((_, k) => k);
      cases.push([full.map((n, k) => (odd && axes.includes(k) ? n - 1 : n)), axes]);
    }
  }
  return cases;
}

for (const [name, odd] of [
  ['test_even_performance', false],
  ['test_odd_performance', true],
] as const) {
  for (const c of performanceCases(odd)) {
    test(`test_fftshift.py::${name}[${fmt(c)}]`, async () => {
      for (const device of testDevices()) await checkPerformance(device, c);
    });
  }
}

test('fftShift refuses axes out of range or repeated', () => {
  assert.throws(() => fftShift({ dtype: 'int32', shape: [4, 4] }, [2]), /axis 2 is out of bounds/);
  assert.throws(() => fftShift({ dtype: 'int32', shape: [4, 4] }, [1, -1]), /repeat an axis/);
});

test.run();
