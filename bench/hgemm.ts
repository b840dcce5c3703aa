/**
 * HGEMM on tensor cores: c = a·b, a and b float16, c float32 (n x n), the plain kernel made to
 * use matrix instructions by `tensorize` (examples/hgemm.ts), each configuration of
 * HGEMM_CONFIGS timed and checked, the fastest reported. TFLOP/s = 2n^3 / time. Only devices
 * with matrix instructions (CUDA) run it; on the others the kernel is refused (a notice).
 * bench/torch_hgemm.py times torch.matmul in half precision (cuBLAS on the tensor cores) in the
 * same run for the reference.
 *
 *   node --import tsx bench/hgemm.ts [--json] [--sizes=1024,4096] [--backends=cuda]
 */
import { DeviceArray, float16Bits, float16Value, LoomError, prepareLaunch } from '@loom/core';
import { hgemmEntry, hgemmKernel, HGEMM_CONFIGS, type HgemmConfig } from '../examples/hgemm.ts';
import { pseudoRandom } from '../examples/matmul.ts';
import { listFlag, parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { kernelSeconds } from './lib/timing.ts';
import { progress, Reporter } from './lib/records.ts';

const options = parseOptions();
const sizes = listFlag(options, 'sizes', options.full ? [1024, 2048, 4096, 8192] : [512]);
const reporter = new Reporter(options.json);

/** n x n values in [-1, 1) rounded to float16: their bits, and their values for the check. */
function halfMatrix(n: number, seed: number): { bits: Uint16Array; values: Float32Array } {
  const random = pseudoRandom(n * n, seed);
  const bits = new Uint16Array(random.length);
  const values = new Float32Array(random.length);
  for (let k = 0; k < random.length; k++) {
    bits[k] = float16Bits(random[k]);
    values[k] = float16Value(bits[k]);
  }
  return { bits, values };
}

/** Seconds per launch of one configuration, after checking 64 entries of c; undefined where refused. */
async function timeConfig(
  d: BenchDevice,
  n: number,
  config: HgemmConfig,
  data: { a: DeviceArray; b: DeviceArray; c: DeviceArray; hostA: Float32Array; hostB: Float32Array },
): Promise<number | undefined> {
  let prepared: Awaited<ReturnType<typeof prepareLaunch>>;
  try {
    prepared = await prepareLaunch(hgemmKernel(n, config), d.device, { a: data.a, b: data.b, c: data.c });
  } catch (e) {
    if (e instanceof LoomError) {
      progress(`  ${d.backend}: ${(e as Error).message}`);
      return undefined;
    }
    throw e;
  }
  try {
    await d.device.write(data.c.buffer, new Float32Array(n * n));
    const seconds = await kernelSeconds(d, prepared, { samples: 9, maxSeconds: 3 });
    const c = (await data.c.toHost()) as Float32Array;
    for (let s = 0; s < 64; s++) {
      const i = s === 0 ? 0 : s === 1 ? n - 1 : (s * 7919) % n;
      const j = s === 0 ? 0 : s === 1 ? n - 1 : (s * 104729 + 13) % n;
      const { value, magnitude } = hgemmEntry(data.hostA, data.hostB, n, i, j);
      // exact products, float32 sums in the tensor cores' order
      if (!(Math.abs(c[i * n + j] - value) <= 1e-6 * magnitude * Math.sqrt(n) + 1e-6))
        throw new Error(`hgemm ${JSON.stringify(config)}: c[${i}, ${j}] is ${c[i * n + j]}, expected ${value}`);
    }
    return seconds;
  } finally {
    prepared.release();
  }
}

for (const d of await openDevices(options.backends)) {
  reporter.info('device', { bench: 'hgemm', backend: d.backend, device: d.device.name });
  for (const n of sizes) {
    const a = halfMatrix(n, 1);
    const b = halfMatrix(n, 2);
    const data = {
      a: await DeviceArray.from(d.device, a.bits, 'float16', [n, n]),
      b: await DeviceArray.from(d.device, b.bits, 'float16', [n, n]),
      c: await DeviceArray.from(d.device, new Float32Array(n * n), 'float32', [n, n]),
      hostA: a.values,
      hostB: b.values,
    };
    let best: { seconds: number; config: HgemmConfig } | undefined;
    for (const config of HGEMM_CONFIGS) {
      const seconds = await timeConfig(d, n, config, data);
      if (seconds === undefined) break;
      progress(
        `  ${d.backend} hgemm ${n} ${JSON.stringify(config)}: ${((2 * n ** 3) / seconds / 1e12).toFixed(1)} TFLOP/s`,
      );
      if (!best || seconds < best.seconds) best = { seconds, config };
    }
    for (const x of [data.a, data.b, data.c]) x.release();
    if (!best) continue;
    reporter.add({
      bench: 'matmul',
      backend: d.backend,
      case: 'hgemm (tensor cores)',
      size: n,
      value: (2 * n ** 3) / best.seconds / 1e12,
      unit: 'TFLOP/s',
      device: d.device.name,
      note: JSON.stringify(best.config),
    });
  }
}
reporter.printTable('HGEMM on tensor cores (float16 in, float32 out)');
