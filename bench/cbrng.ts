/**
 * Counter-based random numbers (issue 29): `cbrng` with `normalBm` float32 (bench/cbrng-case.ts),
 * 2^24 values with --full (torch.randn's size in bench/torch_side.py), 2^20 here; samples/s
 * of one call (one kernel: it samples and advances the counters) through `compiled.prepare` as
 * bench/computations.ts times the library. Two generators: Philox-4x32-10, torch.randn's own (the
 * like-for-like row), and Philox-4x64-10, Reikna's default, where the device has 64-bit integers.
 * The reference in-process is a Loom kernel writing the same array (`out[i] = 0`): the ratio says
 * how far the generator is from the bound of storing its output, which is what the CPU devices
 * here can say; absolute figures come from the GPU machine. Every result is checked (mean and
 * variance) before it counts.
 *
 *   node --import tsx bench/cbrng.ts [--full] [--json] [--backends=opencl,webgpu,cpu,c]
 */
import { DeviceArray, makeKernel, prepareLaunch, splitIname } from '@loom/core';
import { cbrngBenchCase, checkStandardNormal } from './cbrng-case.ts';
import { parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { progress, Reporter } from './lib/records.ts';
import { kernelSeconds, sequenceSeconds } from './lib/timing.ts';

const options = parseOptions();
const reporter = new Reporter(options.json);
const n = options.full ? 2 ** 24 : 2 ** 20;
/**
 * The cases: bijection bits and samples per generator (a work-item's: the generators are n / that).
 * 64 a generator reads and writes each counter once per 64 values; 32 and 16 spread the same values
 * over two and four times the work-items (more work-groups to balance over the device, and more to
 * hide latency with) for as many more counters.
 */
const CASES: readonly { readonly bits: 32 | 64; readonly batch: number }[] = [
  { bits: 32, batch: 64 },
  { bits: 32, batch: 32 },
  { bits: 32, batch: 16 },
  { bits: 64, batch: 64 },
];

for (const d of await openDevices(options.backends)) {
  progress(`${d.backend}: ${d.device.name}`);
  await measure(d);
}
reporter.printTable(`cbrng normalBm float32, ${n} values a call (samples/s as GB/s written)`);

async function measure(d: BenchDevice): Promise<void> {
  const arrays: DeviceArray[] = [];
  try {
    const fill = splitIname(makeKernel(`{ [i]: 0<=i<${n} }`, 'out[i] = 0.0f'), 'i', 256, {
      outerTag: 'g.0',
      innerTag: 'l.0',
    });
    const out = await DeviceArray.from(d.device, new Float32Array(n), 'float32', [n]);
    arrays.push(out);
    const filled = await prepareLaunch(fill, d.device, { out });
    const fillSeconds = await kernelSeconds(d, filled, { maxSeconds: 2 });
    const wide = !d.device.target.unsupportedDType?.('uint64');
    for (const { bits, batch } of CASES)
      if (bits === 32 || wide) await measureCase(d, bits, batch, fillSeconds, arrays);
  } catch (e) {
    progress(`  ${d.backend}: FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
  } finally {
    for (const x of arrays) x.release();
  }
}

async function measureCase(
  d: BenchDevice,
  bits: 32 | 64,
  batch: number,
  fillSeconds: number,
  arrays: DeviceArray[],
): Promise<void> {
  const generators = n / batch;
  const rng = cbrngBenchCase(batch, generators, bits);
  const compiled = await rng.compile(d.device);
  const counters = await DeviceArray.from(
    d.device,
    rng.createCounters(),
    rng.sampler.bijection.wordDtype,
    rng.params[0].shape,
  );
  const randoms = await DeviceArray.from(d.device, new Float32Array(n), 'float32', [batch, generators]);
  arrays.push(counters, randoms);
  const prepared = await compiled.prepare(counters, randoms);
  let seconds: number;
  try {
    seconds = await sequenceSeconds(d, prepared.launches, { maxSeconds: 3 });
  } finally {
    prepared.release();
  }
  checkStandardNormal((await randoms.toHost()) as Float32Array);
  const bytes = 4 * n;
  const b = rng.sampler.bijection;
  const id = `${b.name}-${b.words}x${b.bits}`;
  reporter.add({
    bench: 'cbrng',
    backend: d.backend,
    case: `normalBm float32, ${id}, ${batch} x ${generators}`,
    size: n,
    value: bytes / seconds / 1e9,
    unit: 'GB/s',
    reference: 'out[i] = 0 (Loom)',
    referenceValue: bytes / fillSeconds / 1e9,
    device: d.device.name,
    note: `${id}, ${prepared.launches.length} launch(es); ${(n / seconds / 1e9).toFixed(3)} G samples/s`,
  });
  compiled.release();
}
