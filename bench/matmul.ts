/**
 * SGEMM: c = a*b for float32 n x n matrices, the plain Loom kernel made fast by
 * transformations (examples/matmul.ts), tuned on the device at hand (lib/autotune.ts), then
 * measured at every size. TFLOP/s = 2n^3 / time.
 *
 *   sgemm                  the tuned configuration (searched at --tune-n, 4096 with --full)
 *   sgemm (classic 16x16)  loopy's tutorial matmul: 16x16 tiles in local memory, one result per work-item
 *   sgemm MxNxK            issue 18's awkward shapes, c (M x N) = a (M x K) · b (K x N): 4000x4100x3900
 *                          (no size a multiple of the tiles: the edges guarded) and 1024x8192x1024
 *                          (M x N x K as the issue writes them: a wide c, a short sum), and
 *   sgemm 64 x 512x512x512 a batch of 64 products of 512³, c[l,i,j] = sum(k, a[l,i,k]*b[l,k,j]);
 *                          each tuned for its shape among the best configurations at --tune-n and a
 *                          few others (--awkward-budget seconds), in two forms: guarded (the kernel
 *                          on the shape, its edges guarded) and padded (a and b copied into arrays of
 *                          whole tiles, the unguarded kernel, c cropped; timed with the copies); the
 *                          row is the faster, its note names the form; size = multiply-adds (batch*M*N*K),
 *                          TFLOP/s = 2*batch*M*N*K / time; without --full smaller shapes of the same
 *                          kinds (--awkward=off: none)
 *
 * Here the reference is the classic kernel (what the transformations beyond the tutorial buy); on the
 * GPU machine `bench/report.ts` pairs sgemm with torch.matmul (cuBLAS, TF32 off). Every result is checked.
 *
 *   node --import tsx bench/matmul.ts [--full] [--json] [--sizes=1024,2048] [--budget=60] [--config='{...}'] [--awkward-budget=8]
 */
import { LoomError } from '@loom/core';
import {
  describeShape,
  matmulKernel,
  matmulSearchSpace,
  shapeProblem,
  type MatmulConfig,
  type MatmulShape,
} from '../examples/matmul.ts';
import { fitsTiles, paddedMatmul } from '../examples/matmul-padded.ts';
import { autotune, describeConfig, type TuneResult } from './lib/autotune.ts';
import { AWKWARD_SHAPES, awkwardCase, awkwardSize, SMALL_AWKWARD_SHAPES } from './lib/awkward-sgemm.ts';
import { listFlag, numberFlag, parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { classicMatmul, flops, matmulData, timeMatmul, timePaddedMatmul, type MatmulData } from './lib/matmul-run.ts';
import { progress, Reporter, round } from './lib/records.ts';

const options = parseOptions();
const sizes = listFlag(options, 'sizes', options.full ? [1024, 2048, 4096, 8192] : [128, 256]);
const tuneN = numberFlag(options, 'tune-n', options.full ? 4096 : 256);
const budget = numberFlag(options, 'budget', options.full ? 60 : 20);
/** The classic kernel only up to this size: it is slow, and one size shows the point. */
const classicUpTo = numberFlag(options, 'classic-up-to', options.full ? 4096 : 256);
const reporter = new Reporter(options.json);
/** Issue 18's awkward shapes (M x N x K as it writes them), or smaller ones of the same kinds for CPU devices. */
const awkwardShapes: readonly MatmulShape[] =
  options.flags.get('awkward') === 'off' ? [] : options.full ? AWKWARD_SHAPES : SMALL_AWKWARD_SHAPES;
const awkwardBudget = numberFlag(options, 'awkward-budget', options.full ? 8 : 20);

for (const d of await openDevices(options.backends)) {
  reporter.info('device', { bench: 'matmul', backend: d.backend, device: d.device.name });
  const tuned = await chooseConfig(d);
  if (!tuned) continue;
  const config = tuned.best;
  for (const n of sizes) {
    const data = await matmulData(d, n);
    try {
      const classic =
        n <= classicUpTo
          ? await attempt(d, `classic ${n}`, () => timeMatmul(d, classicMatmul(n), data, { maxSeconds: 3 }))
          : undefined;
      if (classic !== undefined)
        reporter.add({
          bench: 'matmul',
          backend: d.backend,
          case: 'sgemm (classic 16x16)',
          size: n,
          value: tflops(n, classic),
          unit: 'TFLOP/s',
          device: d.device.name,
        });
      const seconds = await attempt(d, `tuned ${n}`, () =>
        timeMatmul(d, matmulKernel(config, n), data, { maxSeconds: 3 }),
      );
      if (seconds !== undefined) {
        reporter.add({
          bench: 'matmul',
          backend: d.backend,
          case: 'sgemm',
          size: n,
          value: tflops(n, seconds),
          unit: 'TFLOP/s',
          ...(classic === undefined
            ? {}
            : { reference: 'classic 16x16 Loom kernel', referenceValue: tflops(n, classic) }),
          device: d.device.name,
          note: describeConfig(config),
        });
      }
    } finally {
      data.release();
    }
  }
  for (const shape of awkwardShapes) await awkward(d, shape, tuned.candidates);
}
reporter.printTable('SGEMM, float32, c = a*b (TFLOP/s = 2n^3 / time; 2*batch*M*N*K for the shapes)');

function tflops(n: number | MatmulShape, seconds: number): number {
  return flops(n) / seconds / 1e12;
}

/**
 * One awkward shape in both forms, each tuned for it among `candidates` (the best at tuneN
 * first): guarded (matmulKernel on the shape itself, its edges guarded) and padded (a and b
 * copied into arrays of whole tiles, the unguarded kernel, c cropped: examples/matmul-padded.ts,
 * timed with its copies). Each form's best is timed again and checked at 64 entries against
 * float64 dot products; the faster is the row, its note says which form won and what the
 * other ran.
 */
async function awkward(d: BenchDevice, shape: MatmulShape, candidates: readonly MatmulConfig[]): Promise<void> {
  const what = describeShape(shape);
  const guardedSpace = candidates.filter((c) => !shapeProblem(c, shape));
  // a configuration whose tiles divide the shape runs it unguarded already: padding would copy nothing
  const paddedSpace = candidates.filter((c) => !fitsTiles(c, shape));
  const guarded = await tuneGuarded(d, shape, guardedSpace);
  const data = await matmulData(d, shape);
  try {
    const padded = await tunePadded(d, shape, paddedSpace, data);
    const forms = [
      ...(guarded
        ? [
            {
              form: 'guarded',
              config: guarded,
              time: () => timeMatmul(d, matmulKernel(guarded, shape), data, { maxSeconds: 2 }),
            },
          ]
        : []),
      ...(padded
        ? [
            {
              form: 'padded',
              config: padded,
              time: () => timePaddedMatmul(d, paddedMatmul(padded, shape), data, { maxSeconds: 2 }),
            },
          ]
        : []),
    ];
    const timed: { form: string; config: MatmulConfig; seconds: number }[] = [];
    for (const f of forms) {
      const seconds = await attempt(d, `${f.form} ${what}`, f.time);
      if (seconds !== undefined) timed.push({ ...f, seconds });
    }
    if (timed.length === 0) return;
    timed.sort((x, y) => x.seconds - y.seconds);
    const [best, other] = timed;
    reporter.add({
      bench: 'matmul',
      backend: d.backend,
      case: awkwardCase(shape),
      size: awkwardSize(shape),
      value: tflops(shape, best.seconds),
      unit: 'TFLOP/s',
      device: d.device.name,
      note: `${best.form}: ${describeConfig(best.config)}${other ? `; ${other.form} ${round(tflops(shape, other.seconds))} TFLOP/s (${describeConfig(other.config)})` : ''}`,
    });
  } finally {
    data.release();
  }
}

/** The fastest guarded kernel for `shape` among `space` (the library's autotune, lib/autotune.ts), or undefined when none ran. */
async function tuneGuarded(
  d: BenchDevice,
  shape: MatmulShape,
  space: readonly MatmulConfig[],
): Promise<MatmulConfig | undefined> {
  if (space.length <= 1) return space[0];
  const what = describeShape(shape);
  progress(
    `${d.device.name}: tuning guarded SGEMM ${what} among ${space.length} configurations (up to ${awkwardBudget} s)`,
  );
  try {
    const result = await autotune(
      d,
      shape,
      awkwardBudget,
      (t) => progress(`  ${describeConfig(t.config).padEnd(44)} ${trialLine(shape, t.seconds, t.failure)}`),
      space,
    );
    reporter.info('autotune-best', {
      backend: d.backend,
      device: d.device.name,
      shape: what,
      form: 'guarded',
      config: result.best,
      tflops: round(result.tflops),
      tried: result.trials.length,
    });
    return result.best;
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    progress(`  ${e.message}`);
    process.exitCode = 1;
    return undefined;
  }
}

/**
 * The fastest padded plan for `shape` among `space`, each timed whole (copies and product),
 * as the autotuner times a kernel (3 samples, about a second), until the budget is spent; a
 * plan that fails or computes a wrong product is left out.
 */
async function tunePadded(
  d: BenchDevice,
  shape: MatmulShape,
  space: readonly MatmulConfig[],
  data: MatmulData,
): Promise<MatmulConfig | undefined> {
  if (space.length === 0) return undefined;
  const what = describeShape(shape);
  progress(
    `${d.device.name}: tuning padded SGEMM ${what} among ${space.length} configurations (up to ${awkwardBudget} s)`,
  );
  const started = performance.now();
  let best: { config: MatmulConfig; seconds: number } | undefined;
  let tried = 0;
  for (const config of space) {
    if (tried > 0 && (performance.now() - started) / 1000 > awkwardBudget) break;
    tried++;
    let seconds: number | undefined;
    let failure: string | undefined;
    try {
      seconds = await timePaddedMatmul(d, paddedMatmul(config, shape), data, { samples: 3, maxSeconds: 1 });
    } catch (e) {
      failure = (e as Error).message.split('\n')[0];
    }
    progress(`  ${describeConfig(config).padEnd(44)} ${trialLine(shape, seconds, failure)}`);
    if (seconds !== undefined && (!best || seconds < best.seconds)) best = { config, seconds };
  }
  if (best)
    reporter.info('autotune-best', {
      backend: d.backend,
      device: d.device.name,
      shape: what,
      form: 'padded',
      config: best.config,
      tflops: round(tflops(shape, best.seconds)),
      tried,
    });
  return best?.config;
}

function trialLine(shape: MatmulShape, seconds: number | undefined, failure: string | undefined): string {
  return seconds === undefined ? `skipped: ${failure}` : `${round(tflops(shape, seconds))} TFLOP/s`;
}

/**
 * The configuration given (--config), or the autotuner's best at tuneN; with the candidates for
 * the awkward shapes: the fastest few at tuneN (the best scalar one among them), then the first
 * scalar configurations of the space (for shapes that the float4 ones cannot take).
 */
async function chooseConfig(d: BenchDevice): Promise<{ best: MatmulConfig; candidates: MatmulConfig[] } | undefined> {
  const given = options.flags.get('config');
  if (given) {
    const config = JSON.parse(given) as MatmulConfig;
    return { best: config, candidates: [config] };
  }
  progress(`${d.device.name}: tuning SGEMM at ${tuneN}^3 (up to ${budget} s)`);
  try {
    const result = await autotune(d, tuneN, budget, (t) =>
      progress(
        `  ${describeConfig(t.config).padEnd(44)} ${t.seconds === undefined ? `skipped: ${t.failure}` : `${round(tflops(tuneN, t.seconds))} TFLOP/s`}`,
      ),
    );
    reporter.info('autotune-best', {
      backend: d.backend,
      device: d.device.name,
      n: tuneN,
      config: result.best,
      tflops: round(result.tflops),
      tried: result.trials.length,
    });
    return { best: result.best, candidates: awkwardCandidates(result) };
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    progress(`  ${e.message}`);
    process.exitCode = 1;
    return undefined;
  }
}

/** The fastest 4 configurations at tuneN, the fastest scalar one, and the first 2 scalar ones of the space (once each). */
function awkwardCandidates(result: TuneResult): MatmulConfig[] {
  const timed = result.trials.filter((t) => t.seconds !== undefined).sort((x, y) => x.seconds! - y.seconds!);
  const scalar = (c: MatmulConfig) => (c.vectorWidth ?? 1) === 1;
  const picks = [
    result.best,
    ...timed.slice(0, 4).map((t) => t.config),
    ...timed
      .filter((t) => scalar(t.config))
      .slice(0, 1)
      .map((t) => t.config),
    ...matmulSearchSpace().filter(scalar).slice(0, 2),
  ];
  return picks.filter((c, k) => picks.findIndex((x) => JSON.stringify(x) === JSON.stringify(c)) === k);
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
