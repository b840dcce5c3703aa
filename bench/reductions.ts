/**
 * Reductions across work-items (issue 14): Loom kernels with local-parallel reductions, GB/s of
 * the data read, on each backend:
 *
 *   row sum     out[i] = sum(j, a[i, j]) over a float32 matrix (8192 x 8192 with --full): a
 *               work-group per row, 256 work-items each summing every 256th element of it, then
 *               a tree in local memory
 *   full sum    out = sum(p, x[p]) over 2^26 float32 (--full) in two steps, one device kernel
 *               each: G work-groups of 256 reduce grid-strided slices into a global temporary of
 *               G partial sums, then one work-group of 256 reduces those
 *
 * On the GPU machine `bench/report.ts` pairs each line with torch.sum on the same sizes
 * (bench/torch_side.py). Every result is checked (the data are small integers: sums are exact).
 *
 *   node --import tsx bench/reductions.ts [--full] [--json] [--backends=opencl,webgpu,cpu]
 */
import { DeviceArray, prepareLaunch, type LoopKernel } from '@loom/core';
import { fullSumKernel, rowSumKernel } from './reductions-kernels.ts';
import { parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { progress, Reporter } from './lib/records.ts';
import { kernelSeconds } from './lib/timing.ts';

const options = parseOptions();
const reporter = new Reporter(options.json);
const [rows, cols] = options.full ? [8192, 8192] : [256, 2048];
const total = options.full ? 2 ** 26 : 2 ** 20;
/** Work-groups of the full sum's first step. */
const GROUPS = options.full ? 1024 : 64;

// small integers, so that every partial sum is exact and the results checkable
const matrix = Float32Array.from({ length: rows * cols }, (_, p) => (p % 17) - 8);
const vector = Float32Array.from({ length: total }, (_, p) => (p % 3) - 1);
const rowSums = Float32Array.from({ length: rows }, (_, i) => {
  let s = 0;
  for (let j = 0; j < cols; j++) s += matrix[i * cols + j];
  return s;
});
const vectorSum = vector.reduce((s, v) => s + v, 0);

for (const d of await openDevices(options.backends)) {
  reporter.info('device', { bench: 'reductions', backend: d.backend, device: d.device.name, rows, cols, total });
  await measure(d, 'row sum', rows * cols, rowSumKernel(rows, cols), { a: matrix }, 'out', rowSums);
  await measure(d, 'full sum', total, fullSumKernel(total, GROUPS), { x: vector }, 'out', Float32Array.of(vectorSum));
}
reporter.printTable(
  `reductions across work-items, float32 (GB/s of the data read): row sum ${rows} x ${cols}, full sum ${total}`,
);

/** Times one kernel on the device (its inputs uploaded once), checks its output, reports GB/s read. */
async function measure(
  d: BenchDevice,
  name: string,
  size: number,
  knl: LoopKernel,
  inputs: Record<string, Float32Array>,
  output: string,
  expected: Float32Array,
): Promise<void> {
  const arrays: DeviceArray[] = [];
  try {
    const args: Record<string, DeviceArray> = {};
    const shapeOf = (arg: string) => knl.arg(arg)!.shape!.map((s) => (s.kind === 'int' ? s.value : NaN));
    for (const [arg, data] of Object.entries(inputs))
      arrays.push((args[arg] = await DeviceArray.from(d.device, data, 'float32', shapeOf(arg))));
    arrays.push(
      (args[output] = await DeviceArray.from(d.device, new Float32Array(expected.length), 'float32', shapeOf(output))),
    );
    const prepared = await prepareLaunch(knl, d.device, args);
    let seconds: number;
    try {
      seconds = await kernelSeconds(d, prepared, { maxSeconds: 3 });
    } finally {
      prepared.release();
    }
    const got = (await args[output].toHost()) as Float32Array;
    const wrong = expected.findIndex((v, k) => got[k] !== v);
    if (wrong >= 0) throw new Error(`wrong result at ${wrong}: ${got[wrong]} instead of ${expected[wrong]}`);
    reporter.add({
      bench: 'reductions',
      backend: d.backend,
      case: name,
      size,
      value: (4 * size) / seconds / 1e9,
      unit: 'GB/s',
      device: d.device.name,
    });
  } catch (e) {
    progress(`  ${d.backend} ${name}: FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
  } finally {
    for (const a of arrays) a.release();
  }
}
