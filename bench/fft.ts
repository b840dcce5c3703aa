/**
 * `fft` of @loom/computation (issue 29), complex64, forward, out of place, each computation
 * compiled once and its call timed on the device (as bench/computations.ts times calls):
 *
 *   batched 1-D   2^14 transforms of 2^10, 2^4 of 2^20, one of 2^24 (powers of two)
 *   2-D           4096 x 4096 over both axes
 *   3^k, 5^k      8 transforms of 3^12, 8 of 5^8 (radices 9, 3 and 5)
 *   prime         4 transforms of 1048573 (Bluestein's algorithm, padded to 2^21)
 *
 * GFLOP/s = 5 N log2 N per transform of N points (Reikna's and cuFFT's convention; over
 * several axes, the size times the sum of log2 of the transformed axes, times 5). On the
 * GPU machine `bench/report.ts` pairs each line with `torch.fft.fftn` over the same axes
 * (bench/torch_side.py, cuFFT). Without `--full` the sizes are small enough for PoCL and
 * lavapipe, where only the ratios mean something.
 *
 * Every result is checked: a few output elements against the DFT's direct sum in float64,
 * within Reikna's performance-test tolerances (atol 1e-2, rtol 1e-4), on pseudo-random input (a
 * periodic or lattice-like input piles the transform into a few huge bins, whose float32 rounding,
 * cuFFT's too, then exceeds that atol on the small ones).
 *
 *   node --import tsx bench/fft.ts [--full] [--json] [--backends=opencl,webgpu,cpu] [--only=2^24,prime]
 */
import { DeviceArray } from '@loom/core';
import { fft } from '@loom/computation';
import { parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { progress, Reporter } from './lib/records.ts';
import { sequenceSeconds } from './lib/timing.ts';

const options = parseOptions();
const reporter = new Reporter(options.json);

interface Case {
  readonly name: string;
  readonly shape: readonly number[];
  readonly axes: readonly number[];
}

/** The shapes (`--full`), or small ones of the same kinds. */
const FFT_CASES: readonly Case[] = options.full
  ? [
      { name: '2^10 x 2^14 batched', shape: [2 ** 14, 2 ** 10], axes: [1] },
      { name: '2^20 x 2^4 batched', shape: [2 ** 4, 2 ** 20], axes: [1] },
      { name: '2^24', shape: [2 ** 24], axes: [0] },
      { name: '4096^2 2-D', shape: [4096, 4096], axes: [0, 1] },
      { name: '3^12 x 8 batched', shape: [8, 3 ** 12], axes: [1] },
      { name: '5^8 x 8 batched', shape: [8, 5 ** 8], axes: [1] },
      { name: 'prime 1048573 x 4 batched', shape: [4, 1048573], axes: [1] },
    ]
  : [
      { name: '2^10 x 2^14 batched', shape: [2 ** 6, 2 ** 10], axes: [1] },
      { name: '2^20 x 2^4 batched', shape: [2 ** 2, 2 ** 14], axes: [1] },
      { name: '2^24', shape: [2 ** 16], axes: [0] },
      { name: '4096^2 2-D', shape: [256, 256], axes: [0, 1] },
      { name: '3^12 x 8 batched', shape: [2, 3 ** 8], axes: [1] },
      { name: '5^8 x 8 batched', shape: [2, 5 ** 6], axes: [1] },
      { name: 'prime 1048573 x 4 batched', shape: [2, 4099], axes: [1] },
    ];

// --only=2^24,prime: the cases whose names contain one of these (a profiler's run of a few)
const only = options.flags.get('only')?.split(',');
const cases = only ? FFT_CASES.filter((c) => only.some((o) => c.name.includes(o))) : FFT_CASES;
if (!cases.length) throw new Error(`--only=${only}: no case is named so (${FFT_CASES.map((c) => c.name).join('; ')})`);

const devices = await openDevices(options.backends);
for (const d of devices) {
  reporter.info('device', { bench: 'fft', backend: d.backend, device: d.device.name, full: options.full });
  for (const c of cases) await measure(d, c);
}
reporter.printTable(`fft, complex64, forward (${options.full ? "the issue's sizes" : 'small sizes'})`);

/** Compiles the FFT, prepares one call on device arrays, times it, checks a sample of its output. */
async function measure(d: BenchDevice, c: Case): Promise<void> {
  const arrays: DeviceArray[] = [];
  const size = c.shape.reduce((a, b) => a * b, 1);
  try {
    const compiled = await fft({ dtype: 'complex64', shape: c.shape }, { axes: c.axes }).compile(d.device);
    const data = new Float32Array(2 * size);
    // pseudo-random parts in [-0.5, 0.5) (murmur3's finalizer of the index): no structure, no large
    // bins, so a float32 transform's error stays near eps * sqrt(log2 N) * |y|, well within the tolerance
    for (let k = 0; k < data.length; k++) data[k] = mix32(k) / 2 ** 32 - 0.5;
    const input = await DeviceArray.from(d.device, data, 'complex64', c.shape);
    const output = await DeviceArray.from(d.device, new Float32Array(2 * size), 'complex64', c.shape);
    arrays.push(input, output);
    const prepared = await compiled.prepare(output, input, 0);
    let seconds: number;
    try {
      seconds = await sequenceSeconds(d, prepared.launches, { maxSeconds: 3 });
    } finally {
      prepared.release();
    }
    check(c, data, (await output.toHost()) as Float32Array);
    const flops = 5 * size * c.axes.reduce((s, a) => s + Math.log2(c.shape[a]), 0);
    const kernels = compiled.kernels.length;
    reporter.add({
      bench: 'fft',
      backend: d.backend,
      case: c.name,
      size,
      value: flops / seconds / 1e9,
      unit: 'GFLOP/s',
      device: d.device.name,
      // each stage kernel reads and writes the array once: kernels are round trips through global memory
      note: `shape (${c.shape.join(', ')}) over (${c.axes.join(', ')}); ${kernels} kernel${kernels > 1 ? 's' : ''} (round trips)`,
    });
    compiled.release();
  } catch (e) {
    progress(`  ${d.backend} fft ${c.name}: FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
  } finally {
    for (const x of arrays) x.release();
  }
}

/** murmur3's 32-bit finalizer: neighbouring integers to unrelated ones. */
function mix32(k: number): number {
  let h = Math.imul(k ^ (k >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A few output elements against the direct sum over the transformed axes, in float64. */
function check(c: Case, x: Float32Array, out: Float32Array): void {
  const { shape, axes } = c;
  const strides = shape.map((_, k) => shape.slice(k + 1).reduce((a, b) => a * b, 1));
  const size = shape.reduce((a, b) => a * b, 1);
  const points = axes.reduce((p, a) => p * shape[a], 1);
  for (const flat of [0, 1, Math.floor(size / 3), size - 1]) {
    const at = shape.map((n, k) => Math.floor(flat / strides[k]) % n);
    let re = 0;
    let im = 0;
    // every combination of indices along the transformed axes, the others as in `at`
    for (let t = 0; t < points; t++) {
      let rest = t;
      let offset = 0;
      let turns = 0;
      for (let m = 0; m < shape.length; m++) {
        if (!axes.includes(m)) offset += at[m] * strides[m];
      }
      for (const a of [...axes].reverse()) {
        const i = rest % shape[a];
        rest = Math.floor(rest / shape[a]);
        offset += i * strides[a];
        turns += ((i * at[a]) % shape[a]) / shape[a];
      }
      const angle = -2 * Math.PI * (turns % 1);
      const [xr, xi] = [x[2 * offset], x[2 * offset + 1]];
      re += xr * Math.cos(angle) - xi * Math.sin(angle);
      im += xr * Math.sin(angle) + xi * Math.cos(angle);
    }
    const diff = Math.hypot(out[2 * flat] - re, out[2 * flat + 1] - im);
    if (!(diff <= 1e-2 + 1e-4 * Math.hypot(re, im)))
      throw new Error(`element ${flat} is ${out[2 * flat]}, ${out[2 * flat + 1]}; the DFT gives ${re}, ${im}`);
  }
}
