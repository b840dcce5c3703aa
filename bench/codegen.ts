/**
 * Code generation speed: the median time from `makeKernel` to generated code, for each tutorial
 * kernel and the tuned SGEMM, for each target (OpenCL C, WGSL, JavaScript). CPU-side only: the same
 * figures anywhere (on a comparable CPU). The reference is the issue's target, 5 ms per kernel, or for
 * the kernels compared with loopy (LOOPY_COMPARISON) a fiftieth of loopy's median.
 *
 * The method is loopy's: one warm process, medians. `--warmup=N` passes over every kernel and
 * target first (60 by default), so that V8 has optimized Loom's own code, as a long-lived Python
 * process has imported and run loopy's; then `--samples=N` (30 by default) timed builds of each
 * kernel for each target, their median reported. V8 keeps optimizing well past the first few
 * passes (on the 2-core machine, `double`: 0.33 ms after 10 passes, 0.25 after 30, 0.18 after
 * 60 and after 100); 60 passes take about 10 s. Each sample does the whole work, from the
 * `makeKernel` texts to the code string: the kernel is built afresh, and the caches of parsed set
 * and instruction texts are emptied before it (`forgetParsedTexts`, not timed), since a user who
 * edits one number of a kernel would miss them. What stays warm between samples is V8's compiled
 * code and the answers of pure integer-set operations (emptiness, projection, redundancy, `gist`,
 * static values, existential simplification), memo tables keyed on constraint systems up to the
 * names of their variables (packages/core/src/sets/canonical.ts): a kernel with other numbers asks
 * other questions and misses some of them. Nothing keyed on a kernel object or its texts survives
 * a sample. The first, cold build of each kernel (in the first warm-up pass) is reported apart in
 * the note, and `--fresh` times a fresh process's first call.
 *
 * `--fresh=N` also times each tutorial kernel's first call the way a user meets it: N fresh
 * processes per kernel, each importing Loom and timing its one makeKernel-to-OpenCL-C (rows
 * `first call: NAME`, the median of the N; target FIRST_CALL_TARGET_MS). A child is this script
 * run again with `--first-call-of=NAME`.
 *
 *   node --import tsx bench/codegen.ts [--json] [--warmup=60] [--samples=30] [--fresh=3]
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { forgetParsedTexts, generateCode, type Target } from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { numberFlag, parseOptions } from './lib/cli.ts';
import { Reporter, round, type Backend } from './lib/records.ts';
import { median } from './lib/timing.ts';
import { MATMUL_KERNELS, TUTORIAL_KERNELS } from './codegen-kernels.ts';
import { FIRST_CALL_TARGET_MS, LOOPY_COMPARISON, LOOPY_SPEEDUP_TARGET } from './lib/loopy-comparison.ts';

const options = parseOptions(process.argv.slice(2), ['opencl', 'webgpu', 'cpu']);
const warmup = numberFlag(options, 'warmup', 60);
const samples = numberFlag(options, 'samples', 30);
const TARGET_MS = 5;
const reporter = new Reporter(options.json);

const targets: { backend: Backend; target: Target }[] = [
  { backend: 'opencl', target: openclTarget() },
  { backend: 'webgpu', target: wgslTarget() },
  { backend: 'cpu', target: jsTarget() },
];

// a child of --fresh: the process's first code generation, of one kernel, and nothing else
const firstCallOf = options.flags.get('first-call-of');
if (firstCallOf !== undefined) {
  const kernel = TUTORIAL_KERNELS.find((k) => k.name === firstCallOf);
  if (!kernel) throw new Error(`--first-call-of: no tutorial kernel '${firstCallOf}'`);
  const start = performance.now();
  generateCode(kernel.build(), targets[0].target);
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - start })}\n`);
  process.exit(0);
}

// the CPU matters here (the figures are the host's own): the report names it beside the GPU machine's
reporter.info('host', {
  bench: 'codegen',
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
});
const kernels = [...TUTORIAL_KERNELS, ...MATMUL_KERNELS];
/** One sample: the kernel built from its texts and generated, with no parsed text kept from before. */
function timedBuild(kernel: (typeof kernels)[number], target: Target): { ms: number; code: string } {
  forgetParsedTexts();
  const start = performance.now();
  const code = generateCode(kernel.build(), target).code;
  return { ms: performance.now() - start, code };
}
// warm-up: every kernel on every target, `warmup` times over, so the JIT has optimized Loom itself
// (each kernel's own first, cold build is still reported, as `first call` in its note)
const coldFirst = new Map<string, number>();
for (let pass = 0; pass < Math.max(1, warmup); pass++) {
  for (const { target } of targets) {
    for (const kernel of kernels) {
      const { ms } = timedBuild(kernel, target);
      if (!coldFirst.has(kernel.name)) coldFirst.set(kernel.name, ms);
    }
  }
}
for (const { backend, target } of targets.filter((t) => options.backends.has(t.backend))) {
  for (const kernel of kernels) {
    const times: number[] = [];
    let lines = 0;
    for (let s = 0; s < samples; s++) {
      const { ms, code } = timedBuild(kernel, target);
      times.push(ms);
      lines = code.split('\n').length;
    }
    const cold = coldFirst.get(kernel.name) ?? times[0];
    const loopy = LOOPY_COMPARISON.find((c) => c.name === kernel.name);
    reporter.add({
      bench: 'codegen',
      backend,
      case: kernel.name,
      size: lines,
      value: median(times),
      unit: 'ms',
      ...(loopy
        ? {
            reference: `loopy ${loopy.loopyMs} ms / ${LOOPY_SPEEDUP_TARGET}`,
            referenceValue: loopy.loopyMs / LOOPY_SPEEDUP_TARGET,
          }
        : { reference: `target ${TARGET_MS} ms`, referenceValue: TARGET_MS }),
      device: 'host CPU',
      note: `first call ${round(cold)} ms; size = lines of code`,
    });
  }
}
const fresh = numberFlag(options, 'fresh', 0);
for (const kernel of fresh > 0 ? TUTORIAL_KERNELS : []) {
  const times: number[] = [];
  for (let s = 0; s < fresh; s++) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, process.argv[1], `--first-call-of=${kernel.name}`],
      { encoding: 'utf8' },
    );
    const line = child.stdout.trim().split('\n').pop() ?? '';
    if (child.status !== 0 || !line.startsWith('{'))
      throw new Error(`first call of '${kernel.name}' failed (status ${child.status}): ${child.stderr}`);
    times.push((JSON.parse(line) as { ms: number }).ms);
  }
  reporter.add({
    bench: 'codegen',
    backend: 'opencl',
    case: `first call: ${kernel.name}`,
    size: fresh,
    value: median(times),
    unit: 'ms',
    reference: `target ${FIRST_CALL_TARGET_MS} ms`,
    referenceValue: FIRST_CALL_TARGET_MS,
    device: 'host CPU',
    note: 'a fresh process per sample: Loom imported, then its first makeKernel to OpenCL C; size = processes',
  });
}
reporter.printTable(
  `code generation, makeKernel to code (median of ${samples} after ${warmup} warm-up passes; target ${TARGET_MS} ms)`,
);
