/**
 * Matrix products on tensor cores, the plain kernel made to use matrix instructions by
 * `tensorize` (examples/hgemm.ts): HGEMM (a and b float16, c float32) over HGEMM_CONFIGS, and
 * SGEMM with its factors rounded to TF32 over TF32_CONFIGS (n x n), each configuration timed and
 * checked, the fastest reported. TFLOP/s = 2n^3 / time. Only devices with matrix instructions
 * (CUDA) run it; on the others the kernel is refused (a notice). bench/torch_hgemm.py times
 * torch.matmul in half precision and with TF32 (cuBLAS on the tensor cores) for the reference.
 *
 *   node --import tsx bench/hgemm.ts [--json] [--sizes=1024,4096] [--backends=cuda] [--modes=hgemm,bf16,tf32,wgmma,wgmma-half,wgmma-bf16,wgmma-tf32] [--config='{...}']
 *
 * `--config` measures that one configuration, or a JSON list of them (a profiler's run: bench/ncu/cuda.sh);
 * `--modes` picks the products (hgemm, bf16, tf32, wgmma, wgmma-half (c in float16), wgmma-bf16: Hopper's warpgroup instructions).
 */
import {
  bfloat16Bits,
  bfloat16Value,
  DeviceArray,
  float16Bits,
  float16Value,
  LoomError,
  prepareLaunch,
  type LoopKernel,
} from '@loom/core';
import {
  bf16gemmKernel,
  HGEMM_CONFIGS,
  hgemmEntry,
  hgemmKernel,
  TF32_CONFIGS,
  tf32Kernel,
  type HgemmConfig,
} from '../examples/hgemm.ts';
import { WGMMA_CONFIGS, wgmmaHgemmKernel, type WgmmaConfig } from '../examples/hgemm-wgmma.ts';
import { TF32_WGMMA_CONFIGS, tf32WgmmaKernel, type Tf32WgmmaConfig } from '../examples/tf32-wgmma.ts';
import { pseudoRandom } from '../examples/matmul.ts';
import { listFlag, parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { kernelSeconds } from './lib/timing.ts';
import { progress, Reporter } from './lib/records.ts';

const options = parseOptions();
const sizes = listFlag(options, 'sizes', options.full ? [1024, 2048, 4096, 8192] : [512]);
const reporter = new Reporter(options.json);

/** n x n values in [-1, 1) rounded to a 16-bit float: their bits, and their values for the check. */
/** An n x n matrix's transpose, row after row. */
function transposed<T extends Float32Array | Uint16Array>(m: T, n: number): T {
  const t = m.slice() as T;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) t[j * n + i] = m[i * n + j];
  return t;
}

/** The factors made so far, by size, seed and dtype: every mode of a size takes the same ones. */
const madeMatrices = new Map<string, { bits: Uint16Array; values: Float32Array }>();

function narrowMatrix(
  n: number,
  seed: number,
  dtype: 'float16' | 'bfloat16',
): { bits: Uint16Array; values: Float32Array } {
  const key = `${n}|${seed}|${dtype}`;
  const made = madeMatrices.get(key);
  if (made) return made;
  const random = pseudoRandom(n * n, seed);
  const bits = new Uint16Array(random.length);
  const values = new Float32Array(random.length);
  const [toBits, toValue] = dtype === 'float16' ? [float16Bits, float16Value] : [bfloat16Bits, bfloat16Value];
  for (let k = 0; k < random.length; k++) {
    bits[k] = toBits(random[k]);
    values[k] = toValue(bits[k]);
  }
  madeMatrices.set(key, { bits, values });
  return { bits, values };
}

/**
 * The products: float16 factors, bfloat16 factors (their products exact in float32 too), and
 * float32 factors rounded to TF32 (2^-11 relative each; the factors are the halves' values).
 */
interface Mode {
  readonly name: string;
  readonly dtype: 'float16' | 'bfloat16' | 'float32';
  readonly configs: readonly object[];
  readonly kernel: (n: number, config: object) => LoopKernel;
  readonly tolerance: number;
  /** c's dtype where not float32: float16, the sums rounded as they are stored (torch.matmul of halves). */
  readonly output?: 'float16';
  /** b given transposed (its kernel computes a·bᵀ from bᵀ): the same product, b's rows along k. */
  readonly bTransposed?: true;
}
const MODES: readonly Mode[] = [
  {
    name: 'hgemm (tensor cores)',
    dtype: 'float16',
    configs: HGEMM_CONFIGS,
    kernel: (n, c) => hgemmKernel(n, c as HgemmConfig),
    tolerance: 1e-6,
  },
  {
    name: 'bf16 (tensor cores)',
    dtype: 'bfloat16',
    configs: HGEMM_CONFIGS,
    kernel: (n, c) => bf16gemmKernel(n, c as HgemmConfig),
    tolerance: 1e-6,
  },
  {
    name: 'sgemm tf32 (tensor cores)',
    dtype: 'float32',
    configs: TF32_CONFIGS,
    kernel: (n, c) => tf32Kernel(n, c as HgemmConfig),
    tolerance: 2e-3,
  },
  // Hopper's warpgroup instructions (examples/hgemm-wgmma.ts): refused on other GPUs
  {
    name: 'wgmma hgemm (tensor cores)',
    dtype: 'float16',
    configs: WGMMA_CONFIGS,
    kernel: (n, c) => wgmmaHgemmKernel(n, c as WgmmaConfig),
    tolerance: 1e-6,
  },
  {
    name: 'wgmma half out (tensor cores)',
    dtype: 'float16',
    configs: WGMMA_CONFIGS,
    kernel: (n, c) => wgmmaHgemmKernel(n, c as WgmmaConfig, { output: 'float16' }),
    // float32 sums rounded to halves as they are stored: half an ulp of a half
    tolerance: 2 ** -11,
    output: 'float16',
  },
  {
    name: 'wgmma bf16 (tensor cores)',
    dtype: 'bfloat16',
    configs: WGMMA_CONFIGS,
    kernel: (n, c) => wgmmaHgemmKernel(n, c as WgmmaConfig, { factors: 'bfloat16' }),
    tolerance: 1e-6,
  },
  // TF32 on warpgroup instructions (examples/tf32-wgmma.ts), against cuBLAS with TF32 on
  {
    name: 'wgmma tf32 (tensor cores)',
    dtype: 'float32',
    configs: TF32_WGMMA_CONFIGS,
    kernel: (n, c) => tf32WgmmaKernel(n, c as Tf32WgmmaConfig),
    tolerance: 2e-3,
  },
  // the same from bᵀ: both panels one request each a step (what a·b costs after a transposition of b)
  {
    name: 'wgmma tf32 from bT (tensor cores)',
    dtype: 'float32',
    configs: TF32_WGMMA_CONFIGS.filter((c) => c.bulkCopies && !c.transposeFirst),
    kernel: (n, c) => tf32WgmmaKernel(n, c as Tf32WgmmaConfig, { bTransposed: true }),
    tolerance: 2e-3,
    bTransposed: true,
  },
];

/** The `--modes` names, each the start of its mode's name. */
const MODE_FLAGS: Readonly<Record<string, string>> = {
  tf32: 'sgemm tf32',
  wgmma: 'wgmma hgemm',
  'wgmma-half': 'wgmma half out',
  'wgmma-bf16': 'wgmma bf16',
  'wgmma-tf32': 'wgmma tf32 (',
  'wgmma-tf32-bt': 'wgmma tf32 from bT',
};
const chosenModes = options.flags.get('modes')?.split(',');
const onlyConfig = options.flags.get('config');

/** Seconds per launch of one configuration, after checking 64 entries of c; undefined where refused. */
async function timeConfig(
  d: BenchDevice,
  n: number,
  mode: Mode,
  config: object,
  data: { a: DeviceArray; b: DeviceArray; c: DeviceArray; hostA: Float32Array; hostB: Float32Array },
): Promise<number | undefined> {
  let prepared: Awaited<ReturnType<typeof prepareLaunch>>;
  try {
    prepared = await prepareLaunch(mode.kernel(n, config), d.device, { a: data.a, b: data.b, c: data.c });
  } catch (e) {
    if (e instanceof LoomError) {
      progress(`  ${d.backend}: ${(e as Error).message}`);
      return undefined;
    }
    throw e;
  }
  try {
    const half = mode.output === 'float16';
    await d.device.write(data.c.buffer, half ? new Uint16Array(n * n) : new Float32Array(n * n));
    const seconds = await kernelSeconds(d, prepared, { samples: 9, maxSeconds: 3 });
    const stored = await data.c.toHost();
    // only the entries checked are converted (67 M halves at 8192² took seconds)
    const entry = (k: number) => (half ? float16Value((stored as Uint16Array)[k]!) : (stored as Float32Array)[k]!);
    for (let s = 0; s < 64; s++) {
      const i = s === 0 ? 0 : s === 1 ? n - 1 : (s * 7919) % n;
      const j = s === 0 ? 0 : s === 1 ? n - 1 : (s * 104729 + 13) % n;
      const { value, magnitude } = hgemmEntry(data.hostA, data.hostB, n, i, j);
      // exact products of halves (or of factors rounded to TF32), float32 sums in the tensor cores' order
      const bound = mode.tolerance * magnitude + 1e-6 * magnitude * Math.sqrt(n) + 1e-6;
      if (!(Math.abs(entry(i * n + j) - value) <= bound))
        throw new Error(
          `${mode.name} ${JSON.stringify(config)}: c[${i}, ${j}] is ${entry(i * n + j)}, expected ${value}`,
        );
    }
    return seconds;
  } finally {
    prepared.release();
  }
}

for (const d of await openDevices(options.backends)) {
  reporter.info('device', { bench: 'hgemm', backend: d.backend, device: d.device.name });
  for (const mode of MODES.filter(
    (m) => !chosenModes || chosenModes.some((c) => m.name.startsWith(MODE_FLAGS[c] ?? c)),
  ))
    for (const n of sizes) {
      const a = narrowMatrix(n, 1, mode.dtype === 'bfloat16' ? 'bfloat16' : 'float16');
      const b = narrowMatrix(n, 2, mode.dtype === 'bfloat16' ? 'bfloat16' : 'float16');
      // TF32's factors are the float32 values of the same halves (exact in float32)
      const host = (m: typeof a) => (mode.dtype === 'float32' ? m.values : m.bits);
      const data = {
        a: await DeviceArray.from(d.device, host(a), mode.dtype, [n, n]),
        b: await DeviceArray.from(d.device, mode.bTransposed ? transposed(host(b), n) : host(b), mode.dtype, [n, n]),
        c:
          mode.output === 'float16'
            ? await DeviceArray.from(d.device, new Uint16Array(n * n), 'float16', [n, n])
            : await DeviceArray.from(d.device, new Float32Array(n * n), 'float32', [n, n]),
        hostA: a.values,
        hostB: b.values,
      };
      let best: { seconds: number; config: object } | undefined;
      for (const config of onlyConfig ? [JSON.parse(onlyConfig) as object | object[]].flat() : mode.configs) {
        const seconds = await timeConfig(d, n, mode, config, data);
        if (seconds === undefined) continue;
        progress(
          `  ${d.backend} ${mode.name} ${n} ${JSON.stringify(config)}: ${((2 * n ** 3) / seconds / 1e12).toFixed(1)} TFLOP/s`,
        );
        if (!best || seconds < best.seconds) best = { seconds, config };
      }
      for (const x of [data.a, data.b, data.c]) x.release();
      if (!best) continue;
      reporter.add({
        bench: 'matmul',
        backend: d.backend,
        case: mode.name,
        size: n,
        value: (2 * n ** 3) / best.seconds / 1e12,
        unit: 'TFLOP/s',
        device: d.device.name,
        note: JSON.stringify(best.config),
      });
    }
}
reporter.printTable('Matrix products on tensor cores (float16 or TF32 factors, float32 out)');
