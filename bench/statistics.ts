/**
 * Statistics speed (issue 16): the median time of `getStatistics` (the op, memory access and
 * synchronization maps, counts exact in the parameters) of the tuned SGEMM of
 * examples/matmul.ts, beside the median time of generating its code. CPU-side only. The
 * reference is the target, 50 ms; the note gives code generation's time.
 *
 * Kernels: the SGEMM at n = 4096 (counts are numbers) and for any n that is a multiple of the
 * tiles (counts are polynomials in n). Each sample builds the kernel afresh (the transformations
 * are not timed), so nothing is cached between samples but what Loom caches across kernels.
 *
 *   node --import tsx bench/statistics.ts [--json] [--samples=20]
 */
import { addDtypes, generateCode, getStatistics, type LoopKernel } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { DEFAULT_MATMUL, matmulKernel, type MatmulConfig } from '../examples/matmul.ts';
import { numberFlag, parseOptions } from './lib/cli.ts';
import { Reporter, round } from './lib/records.ts';
import { median } from './lib/timing.ts';

const options = parseOptions(process.argv.slice(2), ['cpu']);
const samples = numberFlag(options, 'samples', 20);
const TARGET_MS = 50;
const reporter = new Reporter(options.json);

const LARGE: MatmulConfig = {
  tileM: 128,
  tileN: 128,
  tileK: 16,
  regM: 8,
  regN: 8,
  layout: 'strided',
  prefetch: true,
  unrollK: false,
};
const cases: { name: string; build: () => LoopKernel }[] = [DEFAULT_MATMUL, LARGE].flatMap((config) => {
  const shape = `sgemm ${config.tileM}x${config.tileN}x${config.tileK} r${config.regM}x${config.regN}`;
  const typed = (n?: number) => addDtypes(matmulKernel(config, n), { a: 'float32', b: 'float32' });
  return [
    { name: `${shape}, n = 4096`, build: () => typed(4096) },
    { name: `${shape}, any n`, build: () => typed() },
  ];
});

/** Median milliseconds of `f` on a fresh kernel each time (the kernel's building not timed). */
function timed(build: () => LoopKernel, f: (knl: LoopKernel) => unknown): number {
  const times: number[] = [];
  const deadline = performance.now() + 3000;
  for (let s = 0; s < samples && (s < 3 || performance.now() < deadline); s++) {
    const knl = build();
    const start = performance.now();
    f(knl);
    times.push(performance.now() - start);
  }
  return median(times);
}

reporter.info('host', { bench: 'statistics', node: process.version, platform: `${process.platform} ${process.arch}` });
const target = openclTarget();
// steady state: one pass first, so the JIT has compiled Loom itself
for (const c of cases) {
  getStatistics(c.build(), { subgroupSize: 32 });
  generateCode(c.build(), target);
}
for (const c of cases) {
  const stats = timed(c.build, (knl) => getStatistics(knl, { subgroupSize: 32 }));
  const codegen = timed(c.build, (knl) => generateCode(knl, target));
  const keys = getStatistics(c.build(), { subgroupSize: 32 });
  reporter.add({
    bench: 'statistics',
    backend: 'cpu',
    case: c.name,
    size: keys.ops.size + keys.memAccesses.size + keys.sync.size,
    value: stats,
    unit: 'ms',
    reference: `target ${TARGET_MS} ms`,
    referenceValue: TARGET_MS,
    device: 'host CPU',
    note: `code generation (OpenCL) ${round(codegen)} ms, ratio statistics/codegen ${round(stats / codegen)}; size = keys counted`,
  });
}
reporter.printTable('Statistics (getStatistics: op, memory access and synchronization maps) of the tuned SGEMM');
