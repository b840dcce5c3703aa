/**
 * The algorithm library of @loom/computation (issue 17), each computation compiled once and
 * its call timed on the device:
 *
 *   reduce all        the sum of 2^26 float32 (--full), `reduce(..., predicateSum)` over every axis
 *   reduce last axis  the row sums of an 8192 x 8192 float32 matrix (axes [1])
 *   scan all          the inclusive running sum of 2^26 float32 (`scan`, numpy.cumsum)
 *   scan last axis    the running sums along the rows of 8192 x 8192
 *   transpose         8192 x 8192 float32
 *   matmul            a 4096³ float32 product (`matrixMul`), and `matmul * k`: the same with
 *                     `mulConst` attached to its output (fused into the product's stores);
 *                     `--matmul-block-widths=8,16,32` adds `matmul (bw 16)`, ...: square tiles
 *                     of that width, one element per work-item (Reikna's test_performance_block_width)
 *
 * A call is timed as bench/lib/timing.ts times kernels, through `compiled.prepare` (every
 * kernel bound to its arrays once): on OpenCL the device's time from the start of the call's
 * first kernel to the end of its last (event profiling; the kernels queued back to back); on CUDA
 * the time between two events around them; on WebGPU all of a call's kernels dispatched in order, dozens of calls in
 * one submit, by wall time. Throughputs count the data once: GB/s of what is read (reduce),
 * read and written (scan, transpose); TFLOP/s = 2n³ / time (matmul). On the GPU machine
 * `bench/report.ts` pairs each line with PyTorch's (bench/torch_side.py: torch.sum,
 * torch.cumsum, x.t().contiguous(), torch.matmul(a, b) * k).
 *
 * Every result is checked against plain JS: the data are small integers, so sums are exact
 * (the whole output is compared, except the matmul's: a band of rows and a sample of entries).
 *
 * `--only=REGEX` runs the cases whose names match; `--per-kernel` also times each kernel of a
 * call alone (cases `scan all: scan_totals`, ...), to see which of them bounds the call.
 *
 *   node --import tsx bench/computations.ts [--full] [--json] [--backends=opencl,webgpu,cpu] [--scan-blocks=WxC,...]
 *     [--reduce-blocks=WxC,...] [--matmul-block-widths=W,...] [--only=REGEX] [--per-kernel]
 */
import { DeviceArray, type DType } from '@loom/core';
import {
  matrixMul,
  mulConst,
  predicateSum,
  reduce,
  scan,
  transpose,
  type Computation,
  type ReduceOptions,
  type ScanOptions,
} from '@loom/computation';
import { parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { progress, Reporter, type Unit } from './lib/records.ts';
import { sequenceSeconds } from './lib/timing.ts';

const options = parseOptions();
const reporter = new Reporter(options.json);
const [rows, cols] = options.full ? [8192, 8192] : [256, 1024];
const total = options.full ? 2 ** 26 : 2 ** 18;
const n = options.full ? 4096 : 128;
/** The matmul's scaling: a power of two, so the scaled products stay exact. */
const K = 0.5;

// small integers: every sum below is exact in float32, so results compare exactly
const vector = Float32Array.from({ length: total }, (_, p) => (p % 3) - 1);
const matrix = Float32Array.from({ length: rows * cols }, (_, p) => (p % 17) - 8);
const a = Float32Array.from({ length: n * n }, (_, p) => ((p * 7) % 5) - 2);
const b = Float32Array.from({ length: n * n }, (_, p) => ((p * 3) % 7) - 3);

interface Case {
  readonly name: string;
  readonly size: number;
  readonly comp: Computation;
  readonly inputs: readonly Float32Array[];
  /** The output's shape; the output is the first parameter, the inputs follow. */
  readonly outShape: readonly number[];
  readonly unit: Unit;
  /** Bytes moved or flops done per call. */
  readonly work: number;
  /** Throws when the output is wrong. */
  readonly check: (out: Float32Array) => void;
  readonly note: string;
}

const cases: Case[] = [
  ...reduceAllCases(),
  {
    name: 'reduce last axis',
    size: rows * cols,
    comp: reduce({ dtype: 'float32', shape: [rows, cols] }, predicateSum('float32'), [1]) as unknown as Computation,
    inputs: [matrix],
    outShape: [rows, 1],
    unit: 'GB/s',
    work: 4 * rows * cols,
    check: (out) => same(out, rowSums(matrix, rows, cols)),
    note: `${rows} x ${cols}, sum of each row; GB/s read`,
  },
  ...scanCases(),
  {
    name: 'transpose',
    size: rows * cols,
    comp: transpose({ dtype: 'float32', shape: [rows, cols] }) as unknown as Computation,
    inputs: [matrix],
    outShape: [cols, rows],
    unit: 'GB/s',
    work: 8 * rows * cols,
    check: (out) => {
      for (let i = 0; i < rows; i++)
        for (let j = 0; j < cols; j++)
          if (out[j * rows + i] !== matrix[i * cols + j]) throw new Error(`out[${j}, ${i}] is ${out[j * rows + i]}`);
    },
    note: `${rows} x ${cols}; GB/s read + written`,
  },
  matmulCase(false),
  matmulCase(true),
  ...(options.flags.get('matmul-block-widths') ?? '')
    .split(',')
    .filter(Boolean)
    .map((w) => {
      if (!/^[1-9][0-9]*$/.test(w)) throw new Error(`--matmul-block-widths: '${w}' is not a block width`);
      return matmulCase(false, Number(w));
    }),
];

/** `--NAME=256x21,512x15`: work-group sizes x elements per work-item, each a case's suffix and cut. */
function blocksFlag(name: string): { suffix: string; options: { workGroupSize: number; perItem: number } }[] {
  return (options.flags.get(name) ?? '')
    .split(',')
    .filter(Boolean)
    .map((b) => {
      const [w, c] = b.split('x').map(Number);
      if (!Number.isInteger(w) || !Number.isInteger(c))
        throw new Error(`--${name}: '${b}' is not WxC (work-items x elements per work-item)`);
      return { suffix: ` (${w}x${c})`, options: { workGroupSize: w!, perItem: c! } };
    });
}

/**
 * The sum of every element, with reduce's default cut (its work-groups' sums combined by the last
 * of them where the device can), and with them combined by a next pass, a launch of its own
 * (`reduce all (next-pass)`, the form the devices without fences take); `--reduce-blocks=512x64,256x128`
 * adds it with these work-group sizes x elements per work-item (`reduce all (512x64)`, ...).
 */
function reduceAllCases(): Case[] {
  const variants: { suffix: string; options: ReduceOptions }[] = [
    { suffix: '', options: {} },
    { suffix: ' (next-pass)', options: { combine: 'next-pass' } },
    ...blocksFlag('reduce-blocks'),
  ];
  return variants.map(({ suffix, options: cut }) => ({
    name: `reduce all${suffix}`,
    size: total,
    comp: reduce(
      { dtype: 'float32', shape: [total] },
      predicateSum('float32'),
      undefined,
      cut,
    ) as unknown as Computation,
    inputs: [vector],
    outShape: [1],
    unit: 'GB/s' as const,
    work: 4 * total,
    check: (out: Float32Array) => same(out, [vector.reduce((s, v) => s + v, 0)]),
    note: 'sum of every element; GB/s read',
  }));
}

/**
 * The two scans, with scan's default blocks; `--scan-blocks=256x15,512x21` adds them with
 * these work-group sizes x elements per work-item (`scan all (256x15)`, ...), to tune the
 * defaults on a GPU.
 */
function scanCases(): Case[] {
  const variants: { suffix: string; options: ScanOptions }[] = [
    { suffix: '', options: {} },
    ...blocksFlag('scan-blocks'),
  ];
  return variants.flatMap(({ suffix, options: blockOptions }) => [
    {
      name: `scan all${suffix}`,
      size: total,
      comp: scan({ dtype: 'float32', shape: [total] }, predicateSum('float32'), blockOptions) as unknown as Computation,
      inputs: [vector],
      outShape: [total],
      unit: 'GB/s' as const,
      work: 8 * total,
      check: (out: Float32Array) => same(out, cumsum(vector, 1, total)),
      note: 'inclusive running sum; GB/s read + written',
    },
    {
      name: `scan last axis${suffix}`,
      size: rows * cols,
      comp: scan({ dtype: 'float32', shape: [rows, cols] }, predicateSum('float32'), {
        ...blockOptions,
        axes: [1],
      }) as unknown as Computation,
      inputs: [matrix],
      outShape: [rows, cols],
      unit: 'GB/s' as const,
      work: 8 * rows * cols,
      check: (out: Float32Array) => same(out, cumsum(matrix, rows, cols)),
      note: `${rows} x ${cols}, running sums along each row; GB/s read + written`,
    },
  ]);
}

function matmulCase(scaled: boolean, blockWidthOverride?: number): Case {
  const plain = matrixMul(
    { dtype: 'float32', shape: [n, n] },
    { dtype: 'float32', shape: [n, n] },
    blockWidthOverride ? { blockWidthOverride } : {},
  );
  const comp = scaled
    ? plain.attach('output', mulConst({ dtype: 'float32' }, K), 'input', { output: 'scaled' })
    : plain;
  return {
    name: scaled ? 'matmul * k' : blockWidthOverride ? `matmul (bw ${blockWidthOverride})` : 'matmul',
    size: n,
    comp: comp as unknown as Computation,
    inputs: [a, b],
    outShape: [n, n],
    unit: 'TFLOP/s',
    work: 2 * n ** 3,
    check: (out) => checkMatmul(out, scaled ? K : 1),
    note: scaled
      ? `${n}³, mulConst(${K}) attached to the output (one kernel)`
      : blockWidthOverride
        ? `${n}³, blocks of ${blockWidthOverride} x ${blockWidthOverride}, one element per work-item`
        : `${n}³, matrixMul alone`,
  };
}

const only = options.flags.has('only') ? new RegExp(options.flags.get('only')!) : undefined;
const perKernel = options.flags.has('per-kernel');
const devices = await openDevices(options.backends);
for (const d of devices) {
  reporter.info('device', { bench: 'computations', backend: d.backend, device: d.device.name, rows, cols, total, n });
  for (const c of cases) if (!only || only.test(c.name)) await measure(d, c);
}
reporter.printTable(
  `@loom/computation's library, float32: reduce/scan of ${total} and along the rows of ${rows} x ${cols}, transpose ${rows} x ${cols}, matmul ${n}³`,
);

/** Compiles the computation, prepares one call on device arrays, times it, checks its output. */
async function measure(d: BenchDevice, c: Case): Promise<void> {
  const arrays: DeviceArray[] = [];
  try {
    const compiled = await c.comp.compile(d.device);
    if (c.name === 'matmul * k' && compiled.kernels.length !== 1)
      throw new Error(`the scaled product takes ${compiled.kernels.length} kernels, not one`);
    const device = async (data: Float32Array, shape: readonly number[], dtype: DType = 'float32') => {
      const array = await DeviceArray.from(d.device, data, dtype, shape);
      arrays.push(array);
      return array;
    };
    const output = await device(new Float32Array(c.outShape.reduce((x, y) => x * y, 1)), c.outShape);
    const inputs = await Promise.all(
      c.inputs.map((data, k) => device(data, compiled.signature[k + 1].shape ?? [data.length])),
    );
    const prepared = await compiled.prepare(output, ...inputs);
    let seconds: number;
    const alone: number[] = [];
    try {
      seconds = await sequenceSeconds(d, prepared.launches, { maxSeconds: 3 });
      if (perKernel && prepared.launches.length > 1)
        for (const launch of prepared.launches) alone.push(await sequenceSeconds(d, [launch], { maxSeconds: 2 }));
    } finally {
      prepared.release();
    }
    c.check((await output.toHost()) as Float32Array);
    const value = c.unit === 'TFLOP/s' ? c.work / seconds / 1e12 : c.work / seconds / 1e9;
    const kernels = compiled.kernels.length;
    reporter.add({
      bench: 'computations',
      backend: d.backend,
      case: c.name,
      size: c.size,
      value,
      unit: c.unit,
      device: d.device.name,
      note: `${c.note}; ${kernels} kernel${kernels > 1 ? 's' : ''}`,
    });
    // each kernel alone, in the call's unit of work (its share of the call's time shows as a lower figure)
    alone.forEach((s, k) =>
      reporter.add({
        bench: 'computations',
        backend: d.backend,
        case: `${c.name}: ${compiled.kernels[k]!.name} (${k + 1} of ${kernels})`,
        size: c.size,
        value: c.unit === 'TFLOP/s' ? c.work / s / 1e12 : c.work / s / 1e9,
        unit: c.unit,
        device: d.device.name,
        note: `${(s * 1e6).toFixed(1)} us alone`,
      }),
    );
    compiled.release();
  } catch (e) {
    progress(`  ${d.backend} ${c.name}: FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
  } finally {
    for (const x of arrays) x.release();
  }
}

// --- the plain-JS references ------------------------------------------------------------------

function same(got: Float32Array, expected: ArrayLike<number>): void {
  if (got.length !== expected.length) throw new Error(`${got.length} elements instead of ${expected.length}`);
  for (let k = 0; k < got.length; k++)
    if (got[k] !== expected[k]) throw new Error(`wrong result at ${k}: ${got[k]} instead of ${expected[k]}`);
}

function rowSums(x: Float32Array, r: number, c: number): Float32Array {
  const out = new Float32Array(r);
  for (let i = 0; i < r; i++) {
    let s = 0;
    for (let j = 0; j < c; j++) s += x[i * c + j];
    out[i] = s;
  }
  return out;
}

/** Running sums along the rows of an r x c matrix. */
function cumsum(x: Float32Array, r: number, c: number): Float32Array {
  const out = new Float32Array(r * c);
  for (let i = 0; i < r; i++) {
    let s = 0;
    for (let j = 0; j < c; j++) out[i * c + j] = s += x[i * c + j];
  }
  return out;
}

/** A band of 4 rows and 256 scattered entries of k * a @ b, against plain JS. */
function checkMatmul(out: Float32Array, k: number): void {
  const entry = (i: number, j: number) => {
    let s = 0;
    for (let q = 0; q < n; q++) s += a[i * n + q] * b[q * n + j];
    return k * s;
  };
  const positions: [number, number][] = [];
  for (const i of [0, 1, Math.floor(n / 2), n - 1]) for (let j = 0; j < n; j++) positions.push([i, j]);
  for (let t = 0; t < 256; t++) positions.push([(t * 7919) % n, (t * 104729) % n]);
  for (const [i, j] of positions) {
    const want = entry(i, j);
    if (out[i * n + j] !== want) throw new Error(`c[${i}, ${j}] is ${out[i * n + j]} instead of ${want}`);
  }
}
