/**
 * The roofline checked (issue 16): on each device present, its profile measured as
 * `measureDeviceProfile` measures it (a copy kernel's bandwidth, chains of multiply-adds, an
 * empty launch), then for four kernels the time `estimateTime` predicts from their exact counts
 * and that profile, beside the time they take (prepareLaunch; OpenCL event profiling, the
 * WebGPU timer: lib/timing.ts), their arithmetic intensity and the roof that bounds them:
 *
 *   tutorial matmul   loopy's 16x16 tiles in local memory, one result per work-item (n = 4096)
 *   sgemm (tuned)     examples/matmul.ts at the configuration the autotuner chose on the H100 (n = 4096)
 *   pointwise add     out = x + y, float32, 2^26 elements (8192 x 8192)
 *   tiled transpose   out[i, j] = a[j, i], float32, 8192 x 8192, 32 x 32 tiles through local memory
 *
 * Without --full: n = 256, 2^18 elements, 512 x 512, for PoCL and lavapipe. Each measurement is
 * a JSON line (value: measured ms; reference: predicted ms; ratio: predicted / measured), each
 * profile an `info: device-profile` line, from which bench/report.ts writes the committed profiles
 * (packages/dsl/profiles/) of a --full run; --profile-dir=DIR writes them there directly.
 * Every result is checked before its time counts.
 *
 *   node --import tsx bench/roofline.ts [--full] [--json] [--backends=opencl,webgpu] [--config='{...}'] [--profile-dir=DIR]
 */
import {
  addDtypes,
  addPrefetch,
  DeviceArray,
  estimateTime,
  fixParameters,
  makeKernel,
  measureDeviceProfile,
  prepareLaunch,
  splitIname,
  tagArrayAxes,
  tagInames,
  type DeviceProfile,
  type LoopKernel,
  type PreparedLaunch,
  type TimeEstimate,
} from '@loom/core';
import { writeProfile } from '@loom/dsl/profiles';
import { matmulKernel, type MatmulConfig } from '../examples/matmul.ts';
import { loomKernel, paddingIsSafe } from './elementwise-kernels.ts';
import { parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { classicMatmul, matmulData, timeMatmul } from './lib/matmul-run.ts';
import { progress, Reporter, round, today } from './lib/records.ts';
import { kernelSeconds } from './lib/timing.ts';

// not CUDA by default: its profile and predictions are another issue's; --backends=cuda measures them
const options = parseOptions(process.argv.slice(2), ['opencl', 'webgpu']);
const reporter = new Reporter(options.json);
const n = options.full ? 4096 : 256;
const side = options.full ? 8192 : 512;
const profileDir = options.flags.get('profile-dir');

/** What the autotuner chose on the H100 (BENCHMARKS.md, 2026-11-24); --config replaces it. */
const TUNED: Record<string, MatmulConfig> = {
  opencl: { tileM: 128, tileN: 128, tileK: 16, regM: 8, regN: 8, layout: 'strided', prefetch: true, unrollK: false },
  webgpu: { tileM: 128, tileN: 128, tileK: 16, regM: 8, regN: 8, layout: 'strided', prefetch: true, unrollK: true },
  cpu: { tileM: 64, tileN: 64, tileK: 16, regM: 4, regN: 4, layout: 'strided', prefetch: true, unrollK: false },
};

for (const d of await openDevices(options.backends)) {
  progress(`${d.device.name}: measuring its profile`);
  const profile = await measureDeviceProfile(d.device, options.full ? { maxBytes: 2 ** 29 } : { maxBytes: 2 ** 22 });
  reporter.info('device-profile', {
    bench: 'roofline',
    backend: d.backend,
    device: profile.device,
    bandwidth: profile.bandwidth,
    flopRate: profile.flopRate,
    launchOverhead: profile.launchOverhead,
    full: options.full,
  });
  progress(
    `  ${round(profile.bandwidth / 1e9)} GB/s, ${round(profile.flopRate / 1e12)} TFLOP/s, launch ${round(profile.launchOverhead * 1e6)} us`,
  );
  if (profileDir)
    progress(
      `  wrote ${writeProfile(profile, { backend: d.backend, measured: today(), how: `bench/roofline.ts${options.full ? ' --full' : ''}` }, profileDir)}`,
    );

  const config = options.flags.has('config')
    ? (JSON.parse(options.flags.get('config')!) as MatmulConfig)
    : TUNED[d.backend]!;
  await attempt(d, profile, 'tutorial matmul (16x16 tiles)', n, () => matmul(d, classicMatmul(n)));
  await attempt(d, profile, 'sgemm (tuned)', n, () => matmul(d, matmulKernel(config, n)));
  await attempt(d, profile, 'pointwise add', side * side, () => pointwiseAdd(d));
  await attempt(d, profile, 'tiled transpose', side * side, () => transpose(d));
  d.device.dispose();
}
reporter.printTable('Roofline: measured time (value) and predicted time (reference), ratio = predicted / measured');

interface Measured {
  readonly knl: LoopKernel;
  readonly seconds: number;
}

/** Predicts, measures and records one kernel; a failure is a notice (and no figure), not the end of the run. */
async function attempt(
  d: BenchDevice,
  profile: DeviceProfile,
  name: string,
  size: number,
  measure: () => Promise<Measured>,
): Promise<void> {
  try {
    const { knl, seconds } = await measure();
    const e = estimateTime(knl, profile, {});
    reporter.add({
      bench: 'roofline',
      backend: d.backend,
      case: name,
      size,
      value: seconds * 1e3,
      unit: 'ms',
      reference: 'predicted (estimateTime)',
      referenceValue: e.seconds * 1e3,
      device: d.device.name,
      note: describe(e),
      details: {
        predictedMs: round(e.seconds * 1e3),
        measuredMs: round(seconds * 1e3),
        intensity: round(e.arithmeticIntensity),
        bound: e.bound,
        flops: e.flops,
        bytes: e.bytes,
        computeMs: round(e.computeSeconds * 1e3),
        memoryMs: round(e.memorySeconds * 1e3),
        launchMs: round(e.launchSeconds * 1e3),
      },
    });
  } catch (e) {
    progress(`  ${d.backend} ${name}: FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
  }
}

function describe(e: TimeEstimate): string {
  const ai = Number.isFinite(e.arithmeticIntensity) ? `${round(e.arithmeticIntensity)} flop/B` : 'no traffic';
  return `${e.bound} bound, ${ai}; predicted compute ${round(e.computeSeconds * 1e3)} ms, memory ${round(e.memorySeconds * 1e3)} ms, launch ${round(e.launchSeconds * 1e3)} ms`;
}

async function matmul(d: BenchDevice, untyped: LoopKernel): Promise<Measured> {
  const knl = addDtypes(untyped, { a: 'float32', b: 'float32' });
  const data = await matmulData(d, n);
  try {
    return { knl, seconds: await timeMatmul(d, knl, data, { maxSeconds: 2 }) };
  } finally {
    data.release();
  }
}

/** `out = x + y` over side x side floats: the elementwise benchmark's Loom kernel, one element per work-item. */
async function pointwiseAdd(d: BenchDevice): Promise<Measured> {
  const knl = addDtypes(loomKernel('contiguous', side, side, false), { x: 'float32', y: 'float32' });
  const x = new Float32Array(side * side);
  const y = new Float32Array(side * side);
  for (let k = 0; k < x.length; k++) [x[k], y[k]] = [(k % 1000) / 8, (k % 777) / 4];
  return timed(d, knl, { x, y }, (out) => {
    for (let s = 0; s < 4096; s++) {
      const k = (s * 104729) % (side * side);
      if (out[k] !== x[k]! + y[k]!) throw new Error(`out[${k}] is ${out[k]}, expected ${x[k]! + y[k]!}`);
    }
  });
}

/** A tiled transpose through local memory, its tile padded to 33 words a row where Loom declares it so. */
async function transpose(d: BenchDevice): Promise<Measured> {
  const a = new Float32Array(side * side);
  for (let k = 0; k < a.length; k++) a[k] = k % 65536;
  const check = (out: Float32Array) => {
    for (let s = 0; s < 4096; s++) {
      const [i, j] = [(s * 7919) % side, (s * 104729 + 13) % side];
      if (out[i * side + j] !== a[j * side + i])
        throw new Error(`out[${i}, ${j}] is ${out[i * side + j]}, expected ${a[j * side + i]}`);
    }
  };
  const padded = transposeKernel(true);
  return timed(d, padded, { a }, check, (prepared) => paddingIsSafe(prepared, 'a_fetch') || transposeKernel(false));
}

function transposeKernel(pad: boolean): LoopKernel {
  let knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i, j] = a[j, i]', undefined, { name: 'transpose' });
  knl = addDtypes(fixParameters(knl, { n: side }), { a: 'float32' });
  knl = splitIname(knl, 'i', 32, { outerTag: 'g.1' });
  knl = splitIname(knl, 'i_inner', 8, { outerTag: 'unr', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', 32, { outerTag: 'g.0', innerTag: 'l.0' });
  // a's tile is read along its rows (a[j, i] with i contiguous: l.0) and used along its columns
  knl = addPrefetch(knl, 'a', ['j_inner', 'i_inner_outer', 'i_inner_inner'], { temporaryAddressSpace: 'local' });
  knl = tagInames(knl, { a_dim_1: 'l.0' });
  knl = splitIname(knl, 'a_dim_0', 8, { outerTag: 'unr', innerTag: 'l.1' });
  return pad ? tagArrayAxes(knl, 'a_fetch', 'stride:33,stride:1') : knl;
}

/**
 * Uploads the inputs, prepares `knl` (or what `instead` gives for the prepared launch: another
 * kernel when this one will not do), times it, and checks its `out`.
 */
async function timed(
  d: BenchDevice,
  knl: LoopKernel,
  inputs: Readonly<Record<string, Float32Array>>,
  check: (out: Float32Array) => void,
  instead?: (prepared: PreparedLaunch) => true | LoopKernel,
): Promise<Measured> {
  const arrays: Record<string, DeviceArray> = {};
  for (const [name, data] of Object.entries(inputs))
    arrays[name] = await DeviceArray.from(d.device, data, 'float32', [side, side]);
  arrays.out = await DeviceArray.from(d.device, new Float32Array(side * side), 'float32', [side, side]);
  let prepared = await prepareLaunch(knl, d.device, arrays);
  try {
    const other = instead?.(prepared);
    if (other !== undefined && other !== true) {
      prepared.release();
      knl = other;
      prepared = await prepareLaunch(knl, d.device, arrays);
    }
    const seconds = await kernelSeconds(d, prepared, { maxSeconds: 2 });
    check((await arrays.out.toHost()) as Float32Array);
    return { knl, seconds };
  } finally {
    prepared.release();
    for (const a of Object.values(arrays)) a.release();
  }
}
