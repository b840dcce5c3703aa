/**
 * Turns the JSON lines of a benchmark run (ours and bench/torch_side.py's) into
 *
 *   BENCHMARKS.md             the figures, hardware, date, commands, and the issue's targets met or missed
 *   bench/results/h100.json   the records { bench, backend, case, size, value, unit, reference, referenceValue, ratio, date }
 *   packages/dsl/profiles/    the device profiles a `bench/roofline.ts --full` run measured (the committed ones)
 *
 * Our elementwise and SGEMM lines are paired with PyTorch's on the same case and size (ratio =
 * ours / PyTorch's throughput); lines without a PyTorch counterpart keep the reference they were
 * measured with (a hand-written kernel, a raw dispatch, the code generation target).
 *
 *   node --import tsx bench/report.ts RUN.jsonl [MORE.jsonl ...] [--out=DIR]
 *
 * With --out, the files go to DIR (the profiles to DIR/profiles/); otherwise to the repository's
 * BENCHMARKS.md, bench/results/ and packages/dsl/profiles/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DeviceProfile } from '@loom/core';
import { writeProfile } from '@loom/dsl/profiles';
import { ratioOf, round, type Measurement, type MeasurementLine } from './lib/records.ts';
import { AWKWARD_SGEMM_TARGET, AWKWARD_SHAPES, awkwardCase, awkwardSize, awkwardTitle } from './lib/awkward-sgemm.ts';
import {
  FIRST_CALL_TARGET_MS,
  LOOPY_COMPARISON,
  LOOPY_SPEEDUP_TARGET,
  TUNED_SGEMM,
  TUNED_SGEMM_TARGET_MS,
} from './lib/loopy-comparison.ts';

type Line = Omit<MeasurementLine, 'backend'> & { backend: MeasurementLine['backend'] | 'torch' };
type Info = { info: string; [key: string]: unknown };

const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--'));
const outDir = args.find((a) => a.startsWith('--out='))?.slice('--out='.length);
if (files.length === 0) {
  console.error('usage: node --import tsx bench/report.ts RUN.jsonl [MORE.jsonl ...] [--out=DIR]');
  process.exit(2);
}

const lines: Line[] = [];
const infos: Info[] = [];
for (const file of files) {
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text.startsWith('{')) continue; // notices, tables, anything that is not a record
    try {
      const parsed = JSON.parse(text) as Line | Info;
      if ('info' in parsed) infos.push(parsed);
      else if ('bench' in parsed && typeof parsed.value === 'number') lines.push(parsed);
    } catch {
      // a line cut short by a timeout: skip it
    }
  }
}

// --- pairing with PyTorch ---------------------------------------------------------------------------

const torch = new Map(lines.filter((l) => l.backend === 'torch').map((l) => [`${l.bench}|${l.case}|${l.size}`, l]));
const TORCH_NAME: Record<string, string> = {
  elementwise: 'torch.add',
  matmul: 'torch.matmul (cuBLAS, TF32 off)',
  reductions: 'torch.sum',
  fft: 'torch.fft.fftn (cuFFT)',
};
/** Where a bench compares with several PyTorch operations: the one for each case. */
const TORCH_CASE_NAME: Record<string, string> = {
  'computations|reduce all': 'torch.sum',
  'computations|reduce last axis': 'torch.sum',
  'computations|scan all': 'torch.cumsum',
  'computations|scan last axis': 'torch.cumsum',
  'computations|transpose': 'x.t().contiguous()',
  'computations|matmul': 'torch.matmul',
  'computations|matmul * k': 'torch.matmul(a, b) * k',
  // bench/hgemm.ts's TF32 product beside bench/torch_hgemm.py's
  'matmul|sgemm tf32': 'torch.matmul (cuBLAS, TF32 on)',
  // the batched awkward shape (bench/lib/awkward-sgemm.ts)
  ...Object.fromEntries(
    AWKWARD_SHAPES.filter((s) => s.batch !== undefined).map((s) => [
      `matmul|${awkwardCase(s)}`,
      'torch.bmm (cuBLAS, TF32 off)',
    ]),
  ),
};

/** Our line with PyTorch as its reference, when PyTorch measured the same case and size. */
function paired(l: Line): MeasurementLine {
  const base = l.case.replace(/ \(.*\)$/, ''); // 'rows (loom kernel)' compares with torch's 'rows'
  const t = torch.get(`${l.bench}|${base}|${l.size}`);
  if (!t) return l as MeasurementLine;
  return {
    ...(l as MeasurementLine),
    reference: TORCH_CASE_NAME[`${l.bench}|${base}`] ?? TORCH_NAME[l.bench] ?? 'PyTorch',
    referenceValue: t.value,
    ratio: roundRatio(ratioOf(l.unit, l.value, t.value)),
  };
}

const ours = lines.filter((l) => l.backend !== 'torch').map(paired);
const records: Measurement[] = ours.map(
  ({ bench, backend, case: c, size, value, unit, reference, referenceValue, ratio, date }) => ({
    bench,
    backend,
    case: c,
    size,
    value,
    unit,
    reference,
    referenceValue,
    ratio,
    date,
  }),
);

// --- BENCHMARKS.md ----------------------------------------------------------------------------------

const date = ours[0]?.date ?? new Date().toISOString().slice(0, 10);
const torchInfo = infos.find((i) => i.info === 'torch');
const gpuInfo = infos.find((i) => i.info === 'gpu');
const devices = [...new Set(ours.filter((l) => l.device !== 'host CPU').map((l) => `${l.backend}: ${l.device}`))];
const tuned = infos.filter((i) => i.info === 'autotune-best');

const md: string[] = [];
md.push('# Benchmarks', '');
md.push(`Figures of ${date}. Ratios compare with PyTorch on the same machine and run where PyTorch has the`);
md.push('operation (higher is better: ours/theirs for throughputs, theirs/ours for times); otherwise with the');
md.push('reference named in the row (a hand-written kernel through the same API, a raw dispatch, the target).', '');
md.push('## Hardware and software', '');
if (gpuInfo) md.push(`- GPU: ${String(gpuInfo.gpu ?? '')}`);
if (torchInfo)
  md.push(`- PyTorch ${String(torchInfo.torch)} (CUDA ${String(torchInfo.cuda)}) on ${String(torchInfo.device)}`);
for (const d of devices) md.push(`- ${d}`);
const host = infos.find((i) => i.info === 'host' && i.bench !== 'codegen') ?? infos.find((i) => i.info === 'host');
if (host)
  md.push(
    `- host: Node ${String(host.node)}, ${String(host.platform)}${gpuInfo?.cpu ? `, ${String(gpuInfo.cpu)}` : ''}`,
  );
// code generation is the host CPU's work alone: its rows may come from another machine than the GPU's
const codegenHost = infos.find((i) => i.info === 'host' && i.bench === 'codegen' && i.cpu !== undefined);
if (codegenHost && codegenHost.cpu !== gpuInfo?.cpu)
  md.push(
    `- code generation rows: ${String(codegenHost.cpu)}, ${String(codegenHost.cores)} cores, Node ${String(codegenHost.node)}`,
  );
md.push('', '## How they were made', '');
md.push('On the GPU machine (see `../shared/device/README.md`), from the repository root:', '');
md.push('```sh');
md.push(
  '../shared/device/pack.sh bench/elementwise.ts bench/matmul.ts bench/reductions.ts bench/computations.ts bench/codegen.ts bench/statistics.ts bench/launch.ts bench/roofline.ts bench/report.ts   # here',
);
md.push(
  'bash bench/gpu-run.sh                    # there, with .device/ carried along: every benchmark, PyTorch, this report',
);
md.push(
  'bash bench/gpu-run.sh --quick            # there: CUDA beside OpenCL and PyTorch only (elementwise, SGEMM, reductions, computations)',
);
md.push('```', '');
md.push('Each script also runs on its own, here or there (`node --import tsx bench/elementwise.ts [--full] [--json]`;');
md.push('without `--full`, small sizes for CPU devices: PoCL, lavapipe). Timing: OpenCL kernels by event');
md.push('profiling (median of launches); CUDA kernels by CUDA events around each launch (median);');
md.push('WebGPU kernels by wall time over dozens of dispatches in one submit;');
md.push('PyTorch by CUDA events over back-to-back calls; `pointwise()` calls by wall time, back to back.', '');

md.push('## Targets (issues 7, 14, 17, 18, 26 and 30)', '');
md.push('| target | measured | met |', '| --- | --- | --- |');
const targets = targetRows();
for (const row of targets) md.push(`| ${row.join(' | ')} |`);
// a missed target is explained at the end, with what bounds it and what was tried
if (targets.some((row) => row[2] === 'no'))
  md.push(
    '',
    'Where a target is missed, "What limits the figures that miss a target" at the end says what bounds it and what was tried.',
  );
md.push('');

for (const [bench, title, note] of [
  [
    'elementwise',
    'Elementwise add, float32 (size: elements)',
    'GB/s counts x, y and out once (the broadcast row once). `pointwise()` is the plain case name; `(loom kernel)` a Loom kernel transformed by hand, `(hand-written)` OpenCL C / CUDA C / WGSL written by hand.',
  ],
  [
    'matmul',
    'SGEMM, float32 (size: n; batch·M·N·K for the shapes)',
    'TFLOP/s = 2n³ / time. `sgemm` is the autotuned transformation of `c[i,j] = sum(k, a[i,k]*b[k,j])` (examples/matmul.ts). `sgemm MxNxK`: c (M x N) = a (M x K) · b (K x N), `sgemm 64 x ...` a batch of 64 products (torch.bmm), each tuned for its shape; TFLOP/s = 2·batch·M·N·K / time.',
  ],
  [
    'reductions',
    'Reductions across work-items, float32 (size: elements)',
    'GB/s of the data read. `row sum`: `out[i] = sum(j, a[i, j])`, a work-group of 256 per row; `full sum`: two steps, 1024 groups of 256 into partial sums, then one group (bench/reductions-kernels.ts).',
  ],
  [
    'computations',
    "@loom/computation's library, float32 (size: elements; n for matmul)",
    'Each computation compiled once, its call prepared on device arrays (`compiled.prepare`) and timed: on OpenCL the device time from the start of the first kernel of a call to the end of its last (event profiling, the kernels queued back to back; before the eighteenth session, the sum of the event-profiled times of its kernels); on CUDA the time between two events around them; on WebGPU all kernels of a call dispatched in order, dozens of calls per submit, by wall time. GB/s of the data read (reduce), read and written (scan, transpose); TFLOP/s = 2n³ / time. `matmul * k` is `matrixMul` with `mulConst` attached to its output (one kernel), against `torch.matmul(a, b) * k` (two); the note gives the kernels per call.',
  ],
  [
    'fft',
    '`fft` of @loom/computation, complex64, forward (size: elements)',
    "Each FFT compiled once, its call prepared and timed as the computations are. GFLOP/s = 5 N log2 N per transform of N points (over several axes: the size times the sum of log2 of the axes, times 5), against `torch.fft.fftn` (cuFFT) over the same axes; the note gives the shape and the kernels per call. The prime size goes through Bluestein's algorithm.",
  ],
  [
    'codegen',
    'Code generation, `makeKernel` to code',
    'Median milliseconds; size is lines of generated code; reference is the 5 ms target.',
  ],
  [
    'statistics',
    'Statistics of the tuned SGEMM (issue 16)',
    'Median milliseconds of `getStatistics` (op, memory access and synchronization maps, exact counts); size is the keys counted; the note gives code generation of the same kernel; reference is the 50 ms target.',
  ],
  [
    'launch',
    'Launch overhead, tiny kernel and small pointwise() calls',
    "Microseconds per call of out = 2*a over 1024 floats on the device (run, prepareLaunch, a raw dispatch through the same API: the reference), and of pointwise() x + y over 64 x 64 floats, each waited for; `(host)`: the call alone, until its promise settles; `(JavaScript alone)`: CPU time per call with the device's launch a stub (Loom's own work).",
  ],
] as const) {
  const rows = ours.filter((l) => l.bench === bench);
  if (rows.length === 0) continue;
  md.push(`## ${title}`, '', note, '');
  md.push('| backend | case | size | value | reference | ratio |', '| --- | --- | --- | --- | --- | --- |');
  for (const l of rows) {
    md.push(
      `| ${l.backend} | ${l.case}${l.note ? ` <br><sub>${l.note}</sub>` : ''} | ${l.size} | ${l.value} ${l.unit} | ${l.referenceValue === null ? '' : `${l.referenceValue} ${l.unit} (${l.reference})`} | ${l.ratio === null ? '' : `${l.ratio}x`} |`,
    );
  }
  md.push('');
  if (bench === 'matmul' && tuned.length) {
    md.push('Autotuned configurations:', '');
    for (const t of tuned)
      md.push(
        `- ${String(t.backend)} at ${t.shape === undefined ? `n = ${String(t.n)}` : String(t.shape)}: \`${JSON.stringify(t.config)}\`, ${String(t.tflops)} TFLOP/s (${String(t.tried)} tried)`,
      );
    md.push('');
  }
}
md.push(...rooflineSection());
const failures = infos.filter((i) => i.info === 'step' && i.rc !== 0);
if (failures.length) {
  md.push('## Steps that did not finish cleanly', '');
  for (const f of failures)
    md.push(`- ${String(f.step)}: exit status ${String(f.rc)}${f.rc === 124 ? ' (timed out)' : ''}`);
  md.push('');
}

const mdPath = outDir ? path.join(outDir, 'BENCHMARKS.md') : 'BENCHMARKS.md';
const jsonPath = outDir ? path.join(outDir, 'h100.json') : path.join('bench', 'results', 'h100.json');
mkdirSync(path.dirname(jsonPath), { recursive: true });
// sections kept by hand next to this script: the C device's figures (measured on a 2-core machine, not the
// GPU machine: bench/c-device.ts), then what limits the figures that miss a target
for (const file of ['./C-DEVICE.md', './ANALYSIS.md']) {
  try {
    md.push('', readFileSync(new URL(file, import.meta.url), 'utf8').trim(), '');
  } catch {
    // not written yet
  }
}
writeFileSync(mdPath, md.join('\n'));
writeFileSync(jsonPath, `${JSON.stringify(records, null, 2)}\n`);
console.error(`wrote ${mdPath} and ${jsonPath} (${records.length} records)`);
// the profiles of a run at the issue's sizes become the committed ones (a small run's describe a CPU here)
for (const p of profiles().filter((x) => x.full === true)) {
  const notes = {
    backend: String(p.backend),
    measured: String(p.date ?? date),
    how: 'bench/roofline.ts --full (bench/gpu-run.sh)',
  };
  console.error(`wrote ${writeProfile(p.profile, notes, outDir ? path.join(outDir, 'profiles') : undefined)}`);
}

/** The device profiles bench/roofline.ts measured, the last one of each device. */
function profiles(): (Info & { profile: DeviceProfile })[] {
  const byDevice = new Map<string, Info & { profile: DeviceProfile }>();
  for (const i of infos.filter((x) => x.info === 'device-profile')) {
    const profile = {
      device: String(i.device),
      bandwidth: Number(i.bandwidth),
      flopRate: Number(i.flopRate),
      launchOverhead: Number(i.launchOverhead),
    };
    byDevice.set(profile.device, { ...i, profile });
  }
  return [...byDevice.values()];
}

/** Issue 16's check of the roofline: each device's profile, then predicted beside measured times. */
function rooflineSection(): string[] {
  const rows = ours.filter((l) => l.bench === 'roofline');
  if (rows.length === 0) return [];
  const out = ['## Roofline: predicted vs measured (issue 16)', ''];
  out.push(
    '`estimateTime(knl, profile, params)` predicts launches × launch overhead + max(flops / flop rate, bytes / bandwidth)',
  );
  out.push('from the exact counts (bytes: each element of each global array once) and the device profile that');
  out.push('`measureDeviceProfile` measures (a copy kernel, chains of multiply-adds, an empty launch; wall-clock);');
  out.push('measured: the same kernel through `prepareLaunch`, timed as the other tables (bench/roofline.ts).', '');
  const measuredProfiles = profiles();
  if (measuredProfiles.length) {
    out.push('| backend | device | bandwidth | FP32 rate | launch |', '| --- | --- | --- | --- | --- |');
    for (const p of measuredProfiles)
      out.push(
        `| ${String(p.backend)} | ${p.profile.device} | ${sig(p.profile.bandwidth / 1e9)} GB/s | ${sig(p.profile.flopRate / 1e12)} TFLOP/s | ${sig(p.profile.launchOverhead * 1e6)} µs |`,
      );
    out.push('');
  }
  out.push(
    '| backend | kernel | size | predicted | measured | predicted / measured | intensity | bound |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const l of rows) {
    const d = l.details ?? {};
    out.push(
      `| ${l.backend} | ${l.case} | ${l.size} | ${l.referenceValue ?? '?'} ms | ${l.value} ms | ${l.ratio ?? '?'} | ${d.intensity ?? '?'} flop/B | ${d.bound ?? '?'} |`,
    );
  }
  out.push('');
  return out;
}

function sig(x: number): number {
  return Number(x.toPrecision(4));
}

// (function declarations: the report's top level calls them before this point)

/** Our line of `bench`, `backend` and case `c` (of `size`, where given). */
function find(bench: string, backend: string, c: string, size?: number): Line | undefined {
  return ours.find(
    (l) => l.bench === bench && l.backend === backend && l.case === c && (size === undefined || l.size === size),
  );
}

/** Whether `ratio` reaches `bar`, or 'not measured'. */
function verdict(ratio: number | null | undefined, bar: number): string {
  return ratio === null || ratio === undefined ? 'not measured' : ratio >= bar ? 'yes' : 'no';
}

/** A row compared with PyTorch: what was measured, and whether it reaches `bar`. */
function againstTorch(what: string, l: Line | undefined, unit: string, bar: number): string[] {
  return [
    what,
    l ? `${l.value} ${unit}, ${l.ratio ?? '?'}x ${l.reference ?? ''}` : '',
    verdict(l?.reference?.startsWith('torch') ? l.ratio : null, bar),
  ];
}

/** The issue's targets, each with what was measured and whether it is met. */
function targetRows(): string[][] {
  const rows: string[][] = [];
  const layouts = ['contiguous', 'rows', 'transposed'] as const;
  for (const [backend, bar] of [
    ['opencl', 0.95],
    ['webgpu', 0.85],
  ] as const) {
    for (const layout of layouts)
      rows.push(
        againstTorch(
          `elementwise ${layout}, ${backend}: ≥ ${bar}x PyTorch`,
          find('elementwise', backend, layout),
          'GB/s',
          bar,
        ),
      );
  }
  const sgemm4096 = (backend: string, bar: number, issue: string) =>
    againstTorch(
      `SGEMM 4096³, ${backend}${issue}: ≥ ${bar}x cuBLAS`,
      find('matmul', backend, 'sgemm', 4096),
      'TFLOP/s',
      bar,
    );
  rows.push(sgemm4096('opencl', 0.6, ''), sgemm4096('webgpu', 0.4, ''));
  // issue 18's raised bars: pointwise() ahead of torch.add, SGEMM nearer cuBLAS
  for (const [backend, bars] of [
    ['opencl', [1.0, 1.0, 1.5]],
    ['webgpu', [0.9, 0.9, 1.3]],
  ] as const) {
    layouts.forEach((layout, k) =>
      rows.push(
        againstTorch(
          `pointwise() ${layout}, ${backend} (issue 18): ≥ ${bars[k]}x torch.add`,
          find('elementwise', backend, layout),
          'GB/s',
          bars[k],
        ),
      ),
    );
  }
  rows.push(sgemm4096('opencl', 0.8, ' (issue 18)'), sgemm4096('webgpu', 0.7, ' (issue 18)'));
  // issue 18: the awkward shapes, each tuned for itself
  for (const shape of AWKWARD_SHAPES) {
    const c = awkwardCase(shape);
    const what = awkwardTitle(shape);
    for (const backend of ['opencl', 'webgpu']) {
      const title = `SGEMM ${what}, ${backend}: ≥ ${AWKWARD_SGEMM_TARGET}x ${TORCH_CASE_NAME[`matmul|${c}`] ?? 'cuBLAS'}`;
      rows.push(againstTorch(title, find('matmul', backend, c, awkwardSize(shape)), 'TFLOP/s', AWKWARD_SGEMM_TARGET));
    }
  }
  for (const [c, size, what] of [
    ['row sum', 8192 * 8192, 'row sum 8192²'],
    ['full sum', 2 ** 26, 'full sum 2^26'],
  ] as const) {
    for (const backend of ['opencl', 'webgpu'])
      rows.push(
        againstTorch(`${what}, ${backend}: ≥ 0.8x torch.sum`, find('reductions', backend, c, size), 'GB/s', 0.8),
      );
  }
  // issue 17: the computation library against PyTorch
  for (const [c, size, what, bar] of [
    ['reduce all', 2 ** 26, 'Reduce, sum of 2^26', 0.9],
    ['reduce last axis', 8192 * 8192, 'Reduce, last axis of 8192²', 0.9],
    ['transpose', 8192 * 8192, 'Transpose 8192²', 0.9],
    ['scan all', 2 ** 26, 'Scan, cumsum of 2^26', 0.7],
    ['scan last axis', 8192 * 8192, 'Scan, last axis of 8192²', 0.7],
  ] as const) {
    for (const backend of ['opencl', 'webgpu']) {
      const l = find('computations', backend, c, size);
      rows.push([
        `${what}, ${backend}: ≥ ${bar}x ${TORCH_CASE_NAME[`computations|${c}`]}`,
        l ? `${l.value} ${l.unit}, ${l.ratio ?? '?'}x ${l.reference ?? ''}` : '',
        verdict(l?.reference?.startsWith('torch') || l?.reference?.startsWith('x.t()') ? l.ratio : null, bar),
      ]);
    }
  }
  for (const backend of ['opencl', 'webgpu']) {
    const fused = find('computations', backend, 'matmul * k', 4096);
    const plain = find('computations', backend, 'matmul', 4096);
    const measured =
      fused && plain
        ? `fused ${fused.value} TFLOP/s, ${fused.ratio ?? '?'}x ${fused.reference ?? ''}; alone ${plain.value} TFLOP/s, ${plain.ratio ?? '?'}x ${plain.reference ?? ''}`
        : '';
    const met =
      fused?.ratio == null || plain?.ratio == null || !fused.reference?.startsWith('torch')
        ? 'not measured'
        : fused.ratio >= plain.ratio
          ? 'yes'
          : 'no';
    rows.push([`MatrixMul 4096³ with mulConst fused, ${backend}: ratio ≥ the unfused matmul's`, measured, met]);
  }
  rows.push(...cudaRows());
  rows.push(...issue30Rows());
  // issue 18: the kernels compared with loopy, each 50x faster than loopy's median (OpenCL C, as loopy generates)
  for (const { name, what, loopyMs } of LOOPY_COMPARISON) {
    const l = find('codegen', 'opencl', name);
    const bar = loopyMs / LOOPY_SPEEDUP_TARGET;
    rows.push([
      `code generation, ${what}: ≤ ${round(bar)} ms (${LOOPY_SPEEDUP_TARGET}x faster than loopy's ${loopyMs} ms)`,
      l ? `${l.value} ms, ${round(loopyMs / l.value)}x faster than loopy` : '',
      verdict(l ? bar / l.value : null, 1),
    ]);
  }
  const tuned = ours.filter((l) => l.bench === 'codegen' && l.case === TUNED_SGEMM);
  if (tuned.length) {
    const worst = tuned.reduce((x, y) => (y.value > x.value ? y : x));
    rows.push([
      `code generation of the tuned SGEMM ≤ ${TUNED_SGEMM_TARGET_MS} ms`,
      `slowest target: ${worst.backend} ${worst.value} ms`,
      worst.value <= TUNED_SGEMM_TARGET_MS ? 'yes' : 'no',
    ]);
  }
  // the tutorial's kernels carry the 5 ms target and the first call's; the matmuls are reported beside them
  const isMatmul = (c: string) => c.startsWith('sgemm') || c === 'tiled matmul';
  // `first call: NAME` rows (bench/codegen.ts --fresh): a fresh process's first code generation
  const isFresh = (c: string) => c.startsWith('first call: ');
  const tutorial = ours.filter((l) => l.bench === 'codegen' && !isMatmul(l.case) && !isFresh(l.case));
  const freshFirsts = ours.filter((l) => l.bench === 'codegen' && isFresh(l.case));
  const matmuls = ours.filter((l) => l.bench === 'codegen' && isMatmul(l.case));
  if (matmuls.length) {
    const worst = matmuls.reduce((x, y) => (y.value > x.value ? y : x));
    rows.push([
      'code generation of the matmul kernels (no target of their own)',
      `slowest: ${worst.case} (${worst.backend}) ${worst.value} ms`,
      '—',
    ]);
  }
  if (tutorial.length) {
    const worst = tutorial.reduce((x, y) => (y.value > x.value ? y : x));
    rows.push([
      'code generation ≤ 5 ms median per tutorial kernel',
      `slowest: ${worst.case} (${worst.backend}) ${worst.value} ms`,
      worst.value <= 5 ? 'yes' : 'no',
    ]);
    // each kernel's first call in a fresh process where measured so; else in the one process (the notes),
    // where the first kernel pays for the process's very first code generation
    const firsts = freshFirsts.length
      ? freshFirsts.map((l) => ({ case: l.case, ms: l.value }))
      : tutorial.flatMap((l) => {
          const m = /first call ([\d.]+) ms/.exec(l.note ?? '');
          return m ? [{ case: l.case, ms: Number(m[1]) }] : [];
        });
    if (firsts.length) {
      const slowest = firsts.reduce((x, y) => (y.ms > x.ms ? y : x));
      rows.push([
        `first call ≤ ${FIRST_CALL_TARGET_MS} ms per tutorial kernel`,
        `slowest: ${slowest.case} ${slowest.ms} ms`,
        slowest.ms <= FIRST_CALL_TARGET_MS ? 'yes' : 'no',
      ]);
    }
  }
  const statistics = ours.filter((l) => l.bench === 'statistics');
  if (statistics.length) {
    const worst = statistics.reduce((x, y) => (y.value > x.value ? y : x));
    rows.push([
      'statistics of the tuned SGEMM ≤ 50 ms (issue 16)',
      `slowest: ${worst.case} ${worst.value} ms`,
      worst.value <= 50 ? 'yes' : 'no',
    ]);
  }
  // issue 18: a launch and its wait within 1.2x (run) and 1.05x (prepareLaunch) of a raw dispatch's
  for (const [what, bar] of [
    ['run', 1.2],
    ['prepareLaunch', 1.05],
  ] as const) {
    for (const backend of ['opencl', 'webgpu']) {
      const l = find('launch', backend, what);
      const host = find('launch', backend, `${what} (host)`);
      const measured = l
        ? `${l.value} us vs ${l.referenceValue ?? '?'} us${host ? `; host alone ${host.value} us vs ${host.referenceValue ?? '?'} us` : ''}`
        : '';
      rows.push([`${what} ≤ ${bar}x raw dispatch, ${backend}`, measured, verdict(l?.ratio, 1 / bar)]);
    }
  }
  return rows;
}

/**
 * Issue 26: every row the OpenCL backend has in the GPU benchmarks, on CUDA, at least the OpenCL
 * figure of the same run (the hand-written references are rows too: CUDA C against OpenCL C).
 */
function cudaRows(): string[][] {
  const benches = new Set(['elementwise', 'matmul', 'reductions', 'computations']);
  const opencl = ours.filter((l) => l.backend === 'opencl' && benches.has(l.bench));
  // nothing of CUDA in the run (a run without an NVIDIA GPU): no rows, rather than a column of 'not measured'
  if (!ours.some((l) => l.backend === 'cuda')) return [];
  return opencl.map((o) => {
    const c = ours.find((l) => l.bench === o.bench && l.backend === 'cuda' && l.case === o.case && l.size === o.size);
    const ratio = c ? ratioOf(o.unit, c.value, o.value) : null;
    return [
      `${o.bench} ${o.case} (${o.size}), cuda (issue 26): ≥ OpenCL's ${o.value} ${o.unit}`,
      c ? `${c.value} ${c.unit}, ${ratio === null ? '?' : roundRatio(ratio)}x OpenCL` : '',
      ratio === null ? 'not measured' : ratio >= 1 ? 'yes' : 'no',
    ];
  });
}

/**
 * Issue 30's targets: SGEMM at cuBLAS on each GPU backend, the tensor cores against PyTorch's own
 * products (bench/hgemm.ts beside bench/torch_hgemm.py: the best of Loom's kernels for each kind of
 * factor), the full sum and cumsum against PyTorch's on every GPU backend, `pointwise()` transposed on
 * OpenCL, and the roofline's predictions within 25% of the measured times. Rows without a measurement
 * say so; a run without the GPU machine's backends adds none.
 */
function issue30Rows(): string[][] {
  /** The roofline's kernels whose predictions issue 30 holds to 25% (bench/roofline.ts's names). */
  const ROOFLINE_KERNELS = ['pointwise add', 'tiled transpose'];
  if (!ours.some((l) => l.backend === 'cuda' || l.backend === 'opencl' || l.backend === 'webgpu')) return [];
  const rows: string[][] = [];
  for (const [backend, bar] of [
    ['cuda', 0.9],
    ['opencl', 0.85],
    ['webgpu', 0.7],
  ] as const) {
    const l = find('matmul', backend, 'sgemm', 4096);
    rows.push(againstTorch(`SGEMM 4096³, ${backend} (issue 30): ≥ ${bar}x cuBLAS`, l, l?.unit ?? '', bar));
  }
  for (const shape of AWKWARD_SHAPES)
    for (const backend of ['cuda', 'opencl']) {
      const l = find('matmul', backend, awkwardCase(shape), awkwardSize(shape));
      rows.push(
        againstTorch(`SGEMM ${awkwardTitle(shape)}, ${backend} (issue 30): ≥ 0.8x cuBLAS`, l, l?.unit ?? '', 0.8),
      );
    }
  // the tensor cores: the fastest of Loom's products of each kind of factor against PyTorch's at 4096³
  for (const [what, cases, reference, torchCase] of [
    [
      'HGEMM (float16 factors)',
      ['hgemm (tensor cores)', 'wgmma hgemm (tensor cores)', 'wgmma half out (tensor cores)'],
      'torch.matmul in half precision',
      'hgemm half out',
    ],
    [
      'bfloat16 GEMM',
      ['bf16 (tensor cores)', 'wgmma bf16 (tensor cores)'],
      'torch.matmul in bfloat16',
      'bf16 bf16 out',
    ],
    ['TF32 SGEMM', ['sgemm tf32 (tensor cores)', 'wgmma tf32 (tensor cores)'], 'cuBLAS with TF32 on', 'sgemm tf32'],
  ] as const) {
    const candidates = ours.filter(
      (x) =>
        x.bench === 'matmul' &&
        x.backend === 'cuda' &&
        x.size === 4096 &&
        (cases as readonly string[]).includes(x.case),
    );
    const best = candidates.reduce<Line | undefined>((b, x) => (b && b.value >= x.value ? b : x), undefined);
    const t = torch.get(`matmul|${torchCase}|4096`);
    const ratio = best && t ? roundRatio(best.value / t.value) : null;
    rows.push([
      `${what} 4096³, cuda (issue 30): ≥ 0.7x ${reference}`,
      best
        ? `${best.value} ${best.unit}, ${ratio ?? '?'}x ${reference} (${t?.value ?? '?'} ${best.unit}); ${best.case}`
        : '',
      verdict(ratio, 0.7),
    ]);
  }
  // the sums and running sums on every GPU backend (bench/computations.ts)
  for (const [c, what, reference, bar] of [
    ['reduce all', 'full sum of 2^26', 'torch.sum', 1.0],
    ['scan all', 'cumsum of 2^26', 'torch.cumsum', 0.9],
  ] as const)
    for (const backend of ['cuda', 'opencl', 'webgpu']) {
      const l = find('computations', backend, c, 2 ** 26);
      rows.push(againstTorch(`${what}, ${backend} (issue 30): ≥ ${bar}x ${reference}`, l, l?.unit ?? '', bar));
    }
  const transposed = find('elementwise', 'opencl', 'transposed');
  rows.push(
    againstTorch(
      'pointwise() transposed, opencl (issue 30): ≥ 1.5x torch.add',
      transposed,
      transposed?.unit ?? '',
      1.5,
    ),
  );
  // the roofline: the memory-bound kernels' predictions (the issue's pointwise add, and the tiled
  // transpose) within 25% of their measured times, on each backend
  for (const backend of ['opencl', 'webgpu']) {
    const measured = ours.filter(
      (x) =>
        x.bench === 'roofline' &&
        x.backend === backend &&
        ROOFLINE_KERNELS.includes(x.case) &&
        x.referenceValue != null,
    );
    const off = measured.map((x) => ({ c: x.case, r: x.referenceValue! / x.value }));
    const worst = off.reduce<(typeof off)[number] | undefined>(
      (w, x) => (w && Math.abs(Math.log(w.r)) >= Math.abs(Math.log(x.r)) ? w : x),
      undefined,
    );
    rows.push([
      `roofline, ${backend} (issue 30): the pointwise add's and the transpose's predictions within 25%`,
      worst ? `furthest: ${worst.c}, predicted / measured ${round(worst.r)}` : '',
      worst ? (worst.r >= 1 / 1.25 && worst.r <= 1.25 ? 'yes' : 'no') : 'not measured',
    ]);
  }
  return rows;
}

function roundRatio(x: number | null): number | null {
  return x === null ? null : Math.round(x * 1000) / 1000;
}
