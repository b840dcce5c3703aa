/**
 * SGEMM: c = a*b for float32 n x n matrices, the plain Loom kernel made fast by
 * transformations (examples/matmul.ts), tuned on the device at hand (lib/autotune.ts), then
 * measured at every size. TFLOP/s = 2n^3 / time.
 *
 *   sgemm                  the tuned configuration (searched at --tune-n, 4096 with --full)
 *   sgemm (classic 16x16)  loopy's tutorial matmul: 16x16 tiles in local memory, one result per work-item
 *
 * Here the reference is the classic kernel (what the transformations beyond the tutorial buy); on the
 * GPU machine `bench/report.ts` pairs sgemm with torch.matmul (cuBLAS, TF32 off). Every result is checked.
 *
 *   node --import tsx bench/matmul.ts [--full] [--json] [--sizes=1024,2048] [--budget=60] [--config='{...}']
 */
import { LoomError } from '@loom/core';
import { matmulKernel, type MatmulConfig } from '../examples/matmul.ts';
import { autotune, describeConfig } from './lib/autotune.ts';
import { listFlag, numberFlag, parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { classicMatmul, flops, matmulData, timeMatmul } from './lib/matmul-run.ts';
import { progress, Reporter, round } from './lib/records.ts';

const options = parseOptions();
const sizes = listFlag(options, 'sizes', options.full ? [1024, 2048, 4096, 8192] : [128, 256]);
const tuneN = numberFlag(options, 'tune-n', options.full ? 4096 : 256);
const budget = numberFlag(options, 'budget', options.full ? 60 : 20);
/** The classic kernel only up to this size: it is slow, and one size shows the point. */
const classicUpTo = numberFlag(options, 'classic-up-to', options.full ? 4096 : 256);
const reporter = new Reporter(options.json);

for (const d of await openDevices(options.backends)) {
  reporter.info('device', { bench: 'matmul', backend: d.backend, device: d.device.name });
  const config = await chooseConfig(d);
  if (!config) continue;
  for (const n of sizes) {
    const data = await matmulData(d, n);
    try {
      const classic = n <= classicUpTo ? await attempt(d, `classic ${n}`, () => timeMatmul(d, classicMatmul(n), data, { maxSeconds: 3 })) : undefined;
      if (classic !== undefined)
        reporter.add({ bench: 'matmul', backend: d.backend, case: 'sgemm (classic 16x16)', size: n, value: tflops(n, classic), unit: 'TFLOP/s', device: d.device.name });
      const tuned = await attempt(d, `tuned ${n}`, () => timeMatmul(d, matmulKernel(config, n), data, { maxSeconds: 3 }));
      if (tuned !== undefined) {
        reporter.add({
          bench: 'matmul',
          backend: d.backend,
          case: 'sgemm',
          size: n,
          value: tflops(n, tuned),
          unit: 'TFLOP/s',
          ...(classic === undefined ? {} : { reference: 'classic 16x16 Loom kernel', referenceValue: tflops(n, classic) }),
          device: d.device.name,
          note: describeConfig(config),
        });
      }
    } finally {
      data.release();
    }
  }
}
reporter.printTable('SGEMM, float32, c = a*b (TFLOP/s = 2n^3 / time)');

function tflops(n: number, seconds: number): number {
  return flops(n) / seconds / 1e12;
}

/** The configuration given (--config), or the autotuner's best at tuneN. */
async function chooseConfig(d: BenchDevice): Promise<MatmulConfig | undefined> {
  const given = options.flags.get('config');
  if (given) return JSON.parse(given) as MatmulConfig;
  progress(`${d.device.name}: tuning SGEMM at ${tuneN}^3 (up to ${budget} s)`);
  try {
    const result = await autotune(d, tuneN, budget, (t) =>
      progress(`  ${describeConfig(t.config).padEnd(44)} ${t.seconds === undefined ? `skipped: ${t.failure}` : `${round(tflops(tuneN, t.seconds))} TFLOP/s`}`),
    );
    reporter.info('autotune-best', { backend: d.backend, device: d.device.name, n: tuneN, config: result.best, tflops: round(result.tflops), tried: result.trials.length });
    return result.best;
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    progress(`  ${e.message}`);
    process.exitCode = 1;
    return undefined;
  }
}

/** Runs a measurement; a failure is a notice (and no figure), not the end of the run. */
async function attempt(d: BenchDevice, what: string, run: () => Promise<number>): Promise<number | undefined> {
  try {
    return await run();
  } catch (e) {
    progress(`  ${d.backend} ${what}: FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
    return undefined;
  }
}
