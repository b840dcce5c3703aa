/**
 * The C device (issue 26): Loom kernels compiled by the system's C compiler and run on the CPU's
 * cores, against the JS device (the CPU reference) and against hand-written C loop nests compiled
 * with the same flags and called the same way (c-device-kernels.ts):
 *
 *   <tutorial kernel>             loopy's tutorial kernels (ms per launch; reference: the JS device)
 *   <kernel> vs hand-written C    the same, against a hand-written C loop nest (reference: the nest)
 *   sgemm                         c = a*b, n³ float32 (1024 with --full), the fastest of the CPU
 *                                 configurations of examples/matmul.ts (GFLOP/s; reference: the nest)
 *   sgemm, T threads              the same kernel and nest in a child process with OMP_NUM_THREADS=T,
 *                                 for each T of --threads (default 1, 2, 4 ... up to the cores);
 *                                 reference: the kernel on one thread (the ratio is the speed-up)
 *
 * Every result is checked: the C device's outputs against the JS device's, the SGEMM at 64 entries
 * against float64 dot products. Times are wall time around launches that return when done, the
 * median of several (lib/timing.ts); bounds checks off, as in the hand-written nests.
 *
 *   node --import tsx bench/c-device.ts [--full] [--json] [--n=1024] [--threads=1,2,4,16] [--cflags='-march=native']
 *
 * `--cflags` adds compiler flags (cDevice's `flags`, space-separated) to the kernels and the nests alike.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import {
  DeviceArray,
  prepareLaunch,
  type Device,
  type GeneratedCode,
  type LoopKernel,
  type PreparedLaunch,
} from '@loom/core';
import { cDevice, cUnavailableReason, type CDevice, type CExtra } from '@loom/codegen-c';
import { cpuDevice } from '@loom/codegen-js';
import { matmulKernel, pseudoRandom, sampledMatmulError, type MatmulConfig } from '../examples/matmul.ts';
import { describeConfig } from './lib/autotune.ts';
import {
  CPU_MATMUL_CONFIGS,
  handWrittenSgemm,
  parameterIndex,
  tutorialRuns,
  type ParameterIndex,
  type TutorialRun,
} from './c-device-kernels.ts';
import { listFlag, numberFlag, parseOptions } from './lib/cli.ts';
import { progress, Reporter, round } from './lib/records.ts';
import { wallSeconds, type TimingOptions } from './lib/timing.ts';

const options = parseOptions(process.argv.slice(2), ['c']);
const n = numberFlag(options, 'n', options.full ? 1024 : 256);
/** A child of the scaling run: one SGEMM configuration, its time and the nest's as one JSON line. */
const child = options.flags.get('scaling-child');
const timing: TimingOptions = { samples: options.full ? 5 : 3, maxSeconds: options.full ? 4 : 1 };

const cflags =
  options.flags
    .get('cflags')
    ?.split(/\s+/)
    .filter((f) => f !== '') ?? [];
const device = cDevice({ flags: cflags }) ?? fail(`no C device: ${cUnavailableReason()}`);
if (child) {
  const { loom, hand } = await sgemmSeconds(device, JSON.parse(child));
  console.log(JSON.stringify({ threads: process.env.OMP_NUM_THREADS, loom, hand }));
  process.exit(0);
}

const reporter = new Reporter(options.json);
reporter.info('device', { bench: 'c-device', backend: 'c', device: device.name, cores: availableParallelism(), n });
await tutorial(device, cpuDevice());
const config = await sgemm(device);
if (config && !options.flags.has('no-scaling')) scaling(config);
reporter.printTable(`the C device (${device.name}): tutorial kernels (ms) and SGEMM ${n}³ (GFLOP/s)`);

function fail(message: string): never {
  progress(`c-device: ${message}`);
  process.exit(1);
}

// --- the tutorial kernels ---------------------------------------------------------------------

/** Each tutorial kernel on the C and JS devices (outputs compared), and against its hand-written nest. */
async function tutorial(c: CDevice, js: Device): Promise<void> {
  const [n1, n2, matmulN] = options.full ? [1 << 22, 2048, 512] : [1 << 18, 512, 128];
  for (const t of tutorialRuns(n1, n2, matmulN)) {
    try {
      const onC = await timeKernel(c, t.kernel.build(), t);
      const onJs = await timeKernel(js, t.kernel.build(), t);
      for (const [name, got] of Object.entries(onC.outputs)) {
        const wrong = got.findIndex((x, k) => x !== onJs.outputs[name][k]);
        if (wrong >= 0)
          throw new Error(
            `${name}[${wrong}] is ${got[wrong]} on the C device, ${onJs.outputs[name][wrong]} on the JS device`,
          );
      }
      const size = Object.values({ ...t.inputs, ...t.outputs })[0].reduce((x, y) => x * y, 1);
      const row = { bench: 'c-device' as const, backend: 'c' as const, size, unit: 'ms' as const, device: c.name };
      reporter.add({
        ...row,
        case: t.kernel.name,
        value: onC.seconds * 1e3,
        reference: 'JS device',
        referenceValue: onJs.seconds * 1e3,
      });
      if (onC.hand !== undefined)
        reporter.add({
          ...row,
          case: `${t.kernel.name} vs hand-written C`,
          value: onC.seconds * 1e3,
          reference: 'hand-written C',
          referenceValue: onC.hand * 1e3,
        });
    } catch (e) {
      progress(`  c ${t.kernel.name}: FAILED: ${(e as Error).message.split('\n')[0]}`);
      process.exitCode = 1;
    }
  }
}

/** Times one tutorial kernel on `d` (inputs pseudo-random), and its hand-written nest where it has one on the C device. */
async function timeKernel(
  d: Device,
  knl: LoopKernel,
  t: TutorialRun,
): Promise<{ seconds: number; hand?: number; outputs: Record<string, Float32Array> }> {
  const arrays: Record<string, DeviceArray> = {};
  let seed = 1;
  for (const [name, shape] of Object.entries(t.inputs))
    arrays[name] = await DeviceArray.from(d, pseudoRandom(count(shape), seed++), 'float32', [...shape]);
  for (const [name, shape] of Object.entries(t.outputs))
    arrays[name] = await DeviceArray.from(d, new Float32Array(count(shape)), 'float32', [...shape]);
  const prepared = await prepareLaunch(knl, d, arrays, { checkBounds: false });
  try {
    const seconds = await launchSeconds(() => prepared.launch());
    const outputs: Record<string, Float32Array> = {};
    for (const name of Object.keys(t.outputs)) outputs[name] = (await arrays[name].toHost()) as Float32Array;
    const hand = t.handWritten && d === device ? await handWrittenSeconds(prepared, t.handWritten, outputs) : undefined;
    return { seconds, hand, outputs };
  } finally {
    prepared.release();
    for (const a of Object.values(arrays)) a.release();
  }
}

/**
 * The hand-written nest of `prepared`'s kernel, compiled by the C device as its own code is and
 * launched with the same arguments; its outputs must equal the kernel's (`expected`).
 */
async function handWrittenSeconds(
  prepared: PreparedLaunch,
  source: (entry: string, p: ParameterIndex) => string,
  expected?: Record<string, Float32Array>,
): Promise<number> {
  const [{ kernel, args, groupCount, localSize }] = prepared.kernels;
  // the generated program's code, its text replaced: the device compiles it as it compiles its own
  const code = { ...(prepared.code as GeneratedCode<CExtra>), code: source(kernel.entryPoint, parameterIndex(kernel)) };
  const program = await device.compile(code);
  const launch = () => device.launch(program, kernel, args, groupCount, localSize);
  const seconds = await launchSeconds(launch);
  for (const [name, want] of Object.entries(expected ?? {})) {
    const buffer = args[parameterIndex(kernel)(name)];
    if (buffer.kind !== 'buffer') throw new Error(`'${name}' is not an array`);
    const got = new Float32Array(want.length);
    await device.read(buffer.buffer, got);
    const wrong = got.findIndex((x, k) => x !== want[k]);
    if (wrong >= 0)
      throw new Error(`the hand-written nest's ${name}[${wrong}] is ${got[wrong]}, the kernel's ${want[wrong]}`);
  }
  return seconds;
}

/** Seconds per launch: launches on the CPU return when their work is done. */
function launchSeconds(launch: () => Promise<void>): Promise<number> {
  return wallSeconds(launch, async () => {}, timing);
}

function count(shape: readonly number[]): number {
  return shape.reduce((x, y) => x * y, 1);
}

// --- SGEMM ------------------------------------------------------------------------------------

/** The CPU configurations at n³, each timed; the fastest against the hand-written nest. Returns it. */
async function sgemm(c: CDevice): Promise<MatmulConfig | undefined> {
  let best: { config: MatmulConfig; loom: number; hand: number } | undefined;
  for (const config of CPU_MATMUL_CONFIGS) {
    try {
      const { loom, hand } = await sgemmSeconds(c, config);
      progress(
        `  ${describeConfig(config).padEnd(44)} ${round(gflops(loom))} GFLOP/s (hand-written C ${round(gflops(hand))})`,
      );
      if (!best || loom < best.loom) best = { config, loom, hand };
    } catch (e) {
      progress(`  ${describeConfig(config)}: FAILED: ${(e as Error).message.split('\n')[0]}`);
      process.exitCode = 1;
    }
  }
  if (!best) return undefined;
  reporter.add({
    bench: 'c-device',
    backend: 'c',
    case: 'sgemm',
    size: n,
    value: gflops(best.loom),
    unit: 'GFLOP/s',
    reference: 'hand-written C (ikj, rows in parallel)',
    referenceValue: gflops(best.hand),
    device: c.name,
    note: describeConfig(best.config),
  });
  return best.config;
}

/** Seconds per SGEMM of `config`'s kernel and of the hand-written nest, on the same arrays, both checked. */
async function sgemmSeconds(c: CDevice, config: MatmulConfig): Promise<{ loom: number; hand: number }> {
  const hostA = pseudoRandom(n * n, 1);
  const hostB = pseudoRandom(n * n, 2);
  const a = await DeviceArray.from(c, hostA, 'float32', [n, n]);
  const b = await DeviceArray.from(c, hostB, 'float32', [n, n]);
  const out = await DeviceArray.from(c, new Float32Array(n * n), 'float32', [n, n]);
  const prepared = await prepareLaunch(matmulKernel(config, n), c, { a, b, c: out }, { checkBounds: false });
  const check = async (who: string) => {
    const wrong = sampledMatmulError((await out.toHost()) as Float32Array, hostA, hostB, { m: n, n, k: n });
    if (wrong) throw new Error(`${who}: ${wrong}`);
    await c.write(out.buffer, new Float32Array(n * n));
  };
  try {
    const loom = await launchSeconds(() => prepared.launch());
    await check('the Loom kernel');
    const hand = await handWrittenSeconds(prepared, (entry, p) => handWrittenSgemm(entry, p, n));
    await check('the hand-written nest');
    return { loom, hand };
  } finally {
    prepared.release();
    for (const x of [a, b, out]) x.release();
  }
}

function gflops(seconds: number): number {
  return (2 * n ** 3) / seconds / 1e9;
}

// --- OpenMP scaling ---------------------------------------------------------------------------

/**
 * The SGEMM (kernel and nest) in a child process per thread count: OpenMP reads OMP_NUM_THREADS
 * when the process starts, so each count needs a process of its own.
 */
function scaling(config: MatmulConfig): void {
  const cores = availableParallelism();
  const counts = listFlag(options, 'threads', [1, 2, 4, 8, 16, 32, 64].filter((t) => t < cores).concat(cores));
  let oneThread: number | undefined;
  for (const threads of counts) {
    const run = spawnSync(
      process.execPath,
      [
        ...process.execArgv,
        process.argv[1],
        `--n=${n}`,
        `--scaling-child=${JSON.stringify(config)}`,
        ...(cflags.length > 0 ? [`--cflags=${cflags.join(' ')}`] : []),
      ],
      {
        env: { ...process.env, OMP_NUM_THREADS: String(threads) },
        encoding: 'utf8',
      },
    );
    const line = run.stdout?.split('\n').find((l) => l.startsWith('{'));
    if (run.status !== 0 || !line) {
      progress(
        `  sgemm, ${threads} threads: FAILED (exit ${run.status}): ${(run.stderr ?? '').trim().split('\n').pop()}`,
      );
      process.exitCode = 1;
      continue;
    }
    const { loom, hand } = JSON.parse(line) as { loom: number; hand: number };
    oneThread ??= threads === 1 ? loom : undefined;
    reporter.add({
      bench: 'c-device',
      backend: 'c',
      case: `sgemm, ${threads} thread${threads > 1 ? 's' : ''}`,
      size: n,
      value: gflops(loom),
      unit: 'GFLOP/s',
      ...(oneThread === undefined ? {} : { reference: 'sgemm, 1 thread', referenceValue: gflops(oneThread) }),
      device: device.name,
      note: `OMP_NUM_THREADS=${threads}; the hand-written nest ${round(gflops(hand))} GFLOP/s`,
    });
  }
}
