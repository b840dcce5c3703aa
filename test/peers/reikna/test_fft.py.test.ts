/**
 * Ports of Reikna's tests/test_fft/test_fft.py on every test device, against a float64
 * reference FFT in plain JS (test/support/fft-reference.ts), with Reikna's tolerances. The
 * parametrizations keep Reikna's structure (each code path: sizes that are powers of two and
 * sizes of 2^p / 2 - 1, batches of 1, a non-power-of-two and a power of two, inner batches
 * small and large, several axes) with a smaller memory limit, so that the sizes stay small.
 * The performance tests become correctness tests at a small size; bench/fft.ts measures.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, type Device } from '@loom/core';
import { fft, mulParam } from '@loom/computation';
import { testDevices } from '../../support/devices.ts';
import { assertComplexClose, referenceFft, testComplex } from '../../support/fft-reference.ts';
import { refused } from '../../support/refusals.ts';

const sizeOf = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** check_errors: forward in place, then inverse in place on a fresh copy, against numpy's fftn / ifftn. */
async function checkErrors(
  device: Device,
  shape: readonly number[],
  axes: readonly number[],
  atol = 2e-5,
  rtol = 1e-3,
): Promise<void> {
  const data = testComplex(sizeOf(shape), sizeOf(shape) + shape.length);
  const compiled = await fft({ dtype: 'complex64', shape }, { axes }).compile(device);
  const what = `${device.name}, (${shape.join(', ')}) over (${axes.join(', ')})`;
  for (const inverse of [0, 1]) {
    const arr = await DeviceArray.from(device, data, 'complex64', shape);
    // in place: output and input the same array
    await compiled(arr, arr, inverse);
    assertComplexClose(
      (await arr.toHost()) as Float32Array,
      referenceFft(data, shape, axes, inverse === 1),
      `${what}${inverse ? ', inverse' : ''}`,
      atol,
      rtol,
    );
    arr.release();
  }
}

test('test_fft.py::test_typecheck', async () => {
  await refused(() => fft({ dtype: 'float32', shape: [100] }), 'FFT computation requires an array of a complex dtype');
});

test('test_fft.py::test_trivial', async () => {
  // a problem of size 1 over every transformed axis: the transformations still run
  const shape = [16, 1, 1, 16];
  const data = testComplex(sizeOf(shape), 3);
  const param = 4;
  const transform = fft({ dtype: 'complex64', shape }, { axes: [1, 2] });
  const scale = mulParam({ dtype: 'complex64', shape }, 'int32');
  const scaled = transform.attach('input', scale, 'output', { input: 'input_prime', param: 'param' });
  for (const device of testDevices()) {
    const compiled = await scaled.compile(device);
    // the signature: output, input_prime, param (joined where input was), inverse
    const { output } = await compiled(undefined, data, param, 0);
    assertComplexClose(
      output as Float32Array,
      Array.from(data, (x) => x * param),
      device.name,
      1e-8,
      1e-5,
    );
  }
});

// Reikna's local_shape_and_axes: (batch, size) over axis 1, for sizes 2^p and 2^p / 2 - 1 with
// batches of 1, a non-power-of-two and a power of two (the rows a work-group takes: all of them,
// a divisor, one). Reikna's memory limit of 2^20 points would compile and run dozens of large
// transforms on each device; these take p in (3, 7) under 2^11 points, a few of each kind.
for (const [batch, size] of [
  [1, 8],
  [255, 8],
  [16, 128],
  [15, 128],
  [15, 63],
]) {
  test(`test_fft.py::test_local[${batch}x${size}]`, async () => {
    for (const device of testDevices()) await checkErrors(device, [batch, size], [1]);
  });
}

// Reikna's global_shape_and_axes: (outer, size, inner) over axis 1, inner batches small and
// large, powers of two and not; and a size above what a work-group takes (passes in global
// memory even for contiguous rows).
for (const shape of [
  [1, 8, 3],
  [7, 8, 64],
  [3, 63, 2],
  [1, 127, 3],
  [1, 2 ** 13, 1],
]) {
  test(`test_fft.py::test_global[${shape.join('x')}]`, async () => {
    for (const device of testDevices()) await checkErrors(device, shape, [1]);
  });
}

// Reikna's sequence_shape_and_axes, smaller: several axes, in any order, Bluestein among them
for (const [shape, axes] of [
  [
    [3, 25, 7],
    [2, 0],
  ],
  [
    [17, 20, 13],
    [1, 0],
  ],
  [
    [7, 10, 11],
    [1, 2],
  ],
  [
    [5, 9, 19],
    [2, 0, 1],
  ],
] as const) {
  // this test is particularly sensitive to float32 inaccuracies: Reikna's rtol of 1e-2
  test(`test_fft.py::test_sequence[${shape.join('x')}over${axes.join('')}]`, async () => {
    for (const device of testDevices()) await checkErrors(device, shape, axes, 2e-5, 1e-2);
  });
}

/** check_performance's correctness check: out of place, forward, atol 1e-2 and rtol 1e-4. */
async function checkPerformance(device: Device, shape: readonly number[], axes: readonly number[]): Promise<void> {
  const data = testComplex(sizeOf(shape), 7);
  const compiled = await fft({ dtype: 'complex64', shape }, { axes }).compile(device);
  const { output } = await compiled(undefined, data, 0);
  assertComplexClose(output as Float32Array, referenceFft(data, shape, axes), device.name, 1e-2, 1e-4);
  assert.is(data.length, 2 * sizeOf(shape), 'the input is left as it was');
}

/** Some of Reikna's perf_log_shapes (1-D, 2-D), with a small memory limit. */
const PERF_LOG_SHAPES = [[4], [2, 3]];
const PERF_MEM_LIMIT = 2 ** 9;

test('test_fft.py::test_power_of_2_performance', async () => {
  for (const device of testDevices()) {
    for (const log of PERF_LOG_SHAPES) {
      const shape = log.map((x) => 2 ** x);
      const batch = PERF_MEM_LIMIT / sizeOf(shape);
      await checkPerformance(
        device,
        [batch, ...shape],
        shape.map((_, k) => k + 1),
      );
    }
  }
});

test('test_fft.py::test_non_power_of_2_performance', async () => {
  for (const device of testDevices()) {
    for (const log of PERF_LOG_SHAPES) {
      for (const modifier of [1, -1]) {
        const shape = log.map((x) => 2 ** (x - 1) + modifier);
        const batch = PERF_MEM_LIMIT / 2 ** log.reduce((a, b) => a + b, 0);
        await checkPerformance(
          device,
          [batch, ...shape],
          shape.map((_, k) => k + 1),
        );
      }
    }
  }
});

test.run();
