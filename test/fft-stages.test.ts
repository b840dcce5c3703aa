/**
 * `fft`'s stage kernels (packages/computation/src/library/fft/stages.ts): plans of several
 * stages forced at small sizes by devices that state little local memory, on every device
 * against the float64 reference FFT (strided axes, 3-D arrays, mixed radices 3, 5 and 7, a
 * prime through Bluestein's algorithm, in place, inverse, complex128); and the structure of
 * the issue-29 shapes on the H200's parameters (48 KB of local memory, 1024 work-items): how
 * many kernels, and so round trips through global memory, each takes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, targetFacts, type Device } from '@loom/core';
import { fft, type DeviceParameters } from '@loom/computation';
import { flatten } from '../packages/computation/src/computation/flatten.ts';
import { planAxis } from '../packages/computation/src/library/fft/stages.ts';
import { tableOfStage } from '../packages/computation/src/library/fft/twiddles.ts';
import { butterflyLiveValues, passRadices } from '../packages/computation/src/library/fft/radices.ts';
import { deviceParameters } from '../packages/computation/src/computation/device-parameters.ts';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { supportsDType, testDevices } from './support/devices.ts';
import { assertComplexClose, referenceFft, testComplex } from './support/fft-reference.ts';
import { H200_OPENCL } from './support/h200-parameters.ts';

const sizeOf = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** `device` stating only `bytes` of local memory: every plan on it takes more, smaller stages. */
const withLocalMemory = (device: Device, bytes: number): Device =>
  Object.create(device, { limits: { value: { ...device.limits, maxLocalMemoryBytes: bytes } } });

const H200 = H200_OPENCL;

test('fft stages: multi-stage plans, columns, 3-D, radices 3/5/7 and Bluestein, inverse, on every device', async () => {
  const cases: [number[], number[]][] = [
    [[3, 256], [1]], // powers of two, contiguous: sub-transforms as units
    [[64, 6], [0]], // a strided axis: columns as units
    [
      [4, 5, 9],
      [0, 1, 2],
    ], // 3-D, every axis
    [[2, 3 * 5 * 7 * 4], [1]], // mixed radices
    [[81, 2], [0]], // 3^4 over columns
    [[2, 125], [1]], // 5^3
    [[49, 3], [0]], // 7^2
    [[3, 37], [1]], // a prime: Bluestein around two multi-stage transforms
    [[37, 4], [0]], // a prime along a strided axis
  ];
  // pre-twiddles of more than DIRECT_TWIDDLES points: two tables
  const wide: [number[], number[]] = [[1, 8192], [1]];
  for (const base of testDevices()) {
    const device = withLocalMemory(base, 1024);
    for (const [shape, axes] of cases) {
      const compiled = await fft({ dtype: 'complex64', shape }, { axes }).compile(device);
      const data = testComplex(sizeOf(shape), 5);
      for (const inverse of [0, 1]) {
        const { output } = await compiled(undefined, data, inverse);
        const what = `${base.name}, (${shape.join(', ')}) over ${axes.join(', ')}${inverse ? ', inverse' : ''}`;
        assertComplexClose(output as Float32Array, referenceFft(data, shape, axes, inverse === 1), what, 2e-5, 1e-3);
      }
    }
    const [shape, axes] = wide;
    const data = testComplex(sizeOf(shape), 8);
    const { output } = await (await fft({ dtype: 'complex64', shape }, { axes }).compile(withLocalMemory(base, 4096)))(
      undefined,
      data,
      0,
    );
    assertComplexClose(
      output as Float32Array,
      referenceFft(data, shape, axes),
      `${base.name}: 8192 points`,
      2e-5,
      1e-3,
    );
  }
  const last = planAxis('complex64', { shape: wide[0], axis: 1 }, { ...H200, localMemoryBytes: 4096 }).at(-1)!;
  const table = tableOfStage(last);
  assert.ok(table.split < table.denominator, `8192 points: a two-level table (${table.split} of ${table.denominator})`);
});

test('fft stages: the plans above do take several stages', () => {
  const small = { ...H200, localMemoryBytes: 1024 };
  assert.ok(planAxis('complex64', { shape: [3, 256], axis: 1 }, small).length >= 2);
  assert.ok(planAxis('complex64', { shape: [64, 6], axis: 0 }, small).length >= 2);
  assert.ok(planAxis('complex64', { shape: [2, 420], axis: 1 }, small).length >= 2);
  assert.equal(planAxis('complex64', { shape: [64, 6], axis: 0 }, small)[0].units, 'columns');
});

test('fft stages: in place, and complex128, through several stages', async () => {
  const shape = [6, 96];
  const data = testComplex(sizeOf(shape), 9);
  for (const base of testDevices()) {
    const device = withLocalMemory(base, 2048);
    const compiled = await fft({ dtype: 'complex64', shape }, { axes: [0, 1] }).compile(device);
    const buffer = await DeviceArray.from(device, data, 'complex64', shape);
    await compiled(buffer, buffer, 0);
    assertComplexClose(
      (await buffer.toHost()) as Float32Array,
      referenceFft(data, shape, [0, 1]),
      `${base.name}: in place`,
      2e-5,
      1e-3,
    );
    buffer.release();
    if (!supportsDType(base, 'float64')) continue;
    const wide = await fft({ dtype: 'complex128', shape: [5, 189] }, { axes: [1] }).compile(device);
    const x = Float64Array.from(testComplex(5 * 189, 3));
    for (const inverse of [0, 1]) {
      const { output } = await wide(undefined, x, inverse);
      const expected = referenceFft(x, [5, 189], [1], inverse === 1);
      assertComplexClose(output as Float64Array, expected, `${base.name}: complex128`, 1e-12, 1e-10);
    }
  }
});

test('fft stages: kernels per case of issue 29 on the H200 (48 KB, 1024 work-items)', () => {
  const kernels = (shape: number[], axes: number[]) =>
    flatten(fft({ dtype: 'complex64', shape }, { axes }) as never, H200).map((c) => c.kernel.name);
  const cases: [string, number[], number[], number][] = [
    ['2^10 x 2^14', [2 ** 14, 2 ** 10], [1], 1],
    // three stages with runs of 64 bytes beat two with runs of 32 (6888 against 5993 GFLOP/s, OpenCL)
    ['2^20 x 2^4', [2 ** 4, 2 ** 20], [1], 3],
    ['2^24', [2 ** 24], [0], 3],
    ['4096^2', [4096, 4096], [0, 1], 3],
    ['3^12 x 8', [8, 3 ** 12], [1], 3],
    ['5^8 x 8', [8, 5 ** 8], [1], 3], // three with 64-byte runs: 3596 GFLOP/s against two's 2491 (OpenCL)
    ['1048573 x 4 (Bluestein, 2^21)', [4, 1048573], [1], 6],
  ];
  for (const [what, shape, axes, most] of cases) {
    const names = kernels(shape, axes);
    assert.ok(names.length <= most, `${what}: ${names.length} kernels (${names.join(', ')}), at most ${most}`);
    assert.ok(
      names.every((n) => n.startsWith('fft_stage_')),
      `${what}: every kernel a stage kernel (${names.join(', ')})`,
    );
  }
  // one stage reads a whole row per unit; several read sub-transforms of a cache line's neighbours
  const [row] = planAxis('complex64', { shape: [2 ** 14, 2 ** 10], axis: 1 }, H200);
  assert.equal([row.units, row.radix], ['rows', 1024]);
  assert.is(row.threads, 128, '2^10 rows: 128 work-items a group (two rows of 64 butterflies)');
  for (const stage of planAxis('complex64', { shape: [2 ** 24], axis: 0 }, H200)) {
    assert.equal(stage.radix, 256);
    assert.ok(stage.perGroup * 8 >= 32, `2^24: runs of ${stage.perGroup * 8} bytes`);
  }
  for (const stage of planAxis('complex64', { shape: [4096, 4096], axis: 0 }, H200)) {
    assert.equal(stage.units, 'columns');
    assert.ok(stage.perGroup * 8 >= 128, `4096^2 columns: runs of ${stage.perGroup * 8} bytes`);
  }
  for (const stage of planAxis('complex64', { shape: [2 ** 4, 2 ** 20], axis: 1 }, H200))
    assert.ok(stage.perGroup * 8 >= 64, `2^20: runs of ${stage.perGroup * 8} bytes, at least two sectors`);
});

test('fft stages: butterflies within the live values a target states (radix 8 and 9 within 48, 16 within 80)', () => {
  assert.equal(passRadices(1024), [16, 16, 4]);
  assert.equal(passRadices(1024, 48), [8, 8, 8, 2]);
  assert.equal(passRadices(3 ** 5, 48), [9, 9, 3]);
  assert.equal(passRadices(3 ** 5, 40), [3, 3, 3, 3, 3]);
  assert.equal(passRadices(256, 8), [2, 2, 2, 2, 2, 2, 2, 2], 'at least radix 2, whatever the limit');
  const webgpu: DeviceParameters = { ...H200, target: 'wgsl', livePrivateValues: 48 };
  const [row] = planAxis('complex64', { shape: [2 ** 14, 2 ** 10], axis: 1 }, webgpu);
  assert.equal(row.passes, [8, 8, 8, 2]);
  assert.ok(butterflyLiveValues(Math.max(...row.passes)) <= 48);
  // WGSL's 80: radix 16, as OpenCL and CUDA take it
  const [wgslRow] = planAxis('complex64', { shape: [2 ** 14, 2 ** 10], axis: 1 }, { ...webgpu, livePrivateValues: 80 });
  assert.equal(wgslRow.passes, [16, 16, 4]);
  assert.equal(passRadices(3 ** 5, 80), [9, 9, 3]);
});

test('fft stages: devices whose targets state live values get them in their parameters', () => {
  for (const device of testDevices()) {
    const stated = targetFacts(device.target).livePrivateValues;
    assert.is(deviceParameters(device).livePrivateValues, stated, device.name);
  }
  assert.is(targetFacts(wgslTarget()).livePrivateValues, 80);
  assert.is(targetFacts(openclTarget()).livePrivateValues, undefined);
});

test.run();
