/**
 * `fftShift` of @loom/computation (Reikna's test_even_performance and test_odd_performance):
 * complex64 arrays of 2^22 elements (--full; 2^16 without it), a 1-D or 2-D shift batched
 * before the shifted axes (contiguous) or after them, with even lengths and with each shifted
 * length one less (odd). The call is prepared once and timed as bench/lib/timing.ts times a
 * sequence of kernels; GB/s counts the array read and written once (Reikna's figure), though
 * the shift moves it twice (through a temporary, so that it may run in place).
 *
 * The output of each is checked against plain JS (test/peers/reikna/test_fftshift.py.test.ts
 * checks the same shapes, smaller, on every device).
 *
 *   node --import tsx bench/fftshift.ts [--full] [--json] [--backends=opencl,webgpu,cpu]
 */
import { DeviceArray } from '@loom/core';
import { fftShift } from '@loom/computation';
import { fftshiftRef } from '../test/support/shift.ts';
import { parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { progress, Reporter } from './lib/records.ts';
import { sequenceSeconds } from './lib/timing.ts';

const options = parseOptions();
const reporter = new Reporter(options.json);
const total = options.full ? 2 ** 22 : 2 ** 16;
const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** Reikna's table: each shape batched before (contiguous) or after it; odd: each shifted length one less. */
const cases = [false, true].flatMap((odd) =>
  [true, false].flatMap((contiguous) =>
    (options.full
      ? [[2 ** 4], [2 ** 18], [2 ** 4, 2 ** 4], [2 ** 9, 2 ** 9]]
      : [[2 ** 4], [2 ** 12], [2 ** 6, 2 ** 6]]
    ).map((shape) => {
      const batch = total / size(shape);
      const full = contiguous ? [batch, ...shape] : [...shape, batch];
      const axes = shape.map((_, k) => (contiguous ? k + 1 : k));
      return { odd, shape: full.map((n, k) => (odd && axes.includes(k) ? n - 1 : n)), axes };
    }),
  ),
);

const devices = await openDevices(options.backends);
for (const d of devices) for (const c of cases) await measure(d, c.shape, c.axes, c.odd);
reporter.printTable(`fftShift, complex64, ${total} elements (batched 1-D and 2-D shifts, even and odd lengths)`);

async function measure(d: BenchDevice, shape: readonly number[], axes: readonly number[], odd: boolean): Promise<void> {
  const what = `fftshift ${odd ? 'odd' : 'even'} (${shape.join(', ')}) over (${axes.join(', ')})`;
  const n = size(shape);
  const data = Float32Array.from({ length: 2 * n }, (_, k) => (k % 2 ? -(k % 1000) : k % 1000));
  const arrays: DeviceArray[] = [];
  try {
    const compiled = await fftShift({ dtype: 'complex64', shape }, axes).compile(d.device);
    const input = await DeviceArray.from(d.device, data, 'complex64', shape);
    const output = await DeviceArray.from(d.device, new Float32Array(2 * n), 'complex64', shape);
    arrays.push(input, output);
    const prepared = await compiled.prepare(output, input, 0);
    let seconds: number;
    try {
      seconds = await sequenceSeconds(d, prepared.launches, { maxSeconds: 2 });
    } finally {
      prepared.release();
    }
    const got = await output.toHost();
    const expected = fftshiftRef(data, shape, axes, false, 2);
    for (let k = 0; k < expected.length; k++)
      if (got[k] !== expected[k]) throw new Error(`wrong result at ${k}: ${got[k]} instead of ${expected[k]}`);
    reporter.add({
      bench: 'computations',
      backend: d.backend,
      case: what,
      size: n,
      value: (2 * 8 * n) / seconds / 1e9,
      unit: 'GB/s',
      device: d.device.name,
      note: 'complex64 read and written once; the call gathers into a temporary and copies',
    });
    compiled.release();
  } catch (e) {
    progress(`  ${d.backend} ${what}: FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
  } finally {
    for (const x of arrays) x.release();
  }
}
