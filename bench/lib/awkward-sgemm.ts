/**
 * Issue 18's awkward SGEMM shapes, M x N x K as it writes them (c is M x N, the sum runs over
 * K), and their target against cuBLAS: what bench/matmul.ts measures, bench/torch_side.py
 * measures the same way (its own copy of these shapes), and bench/report.ts pairs and judges.
 * Rows are named `sgemm MxNxK` (`sgemm 64 x MxNxK` for a batch), sized batch*M*N*K.
 */
export interface AwkwardShape {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly batch?: number;
}

export const AWKWARD_SHAPES: readonly AwkwardShape[] = [
  // no size a multiple of any tile: every edge guarded
  { m: 4000, n: 4100, k: 3900 },
  // a wide c and a short sum
  { m: 1024, n: 8192, k: 1024 },
  // 64 products of 512³ in one launch
  { batch: 64, m: 512, n: 512, k: 512 },
];

/** The same kinds, small enough for CPU devices (runs without --full). */
export const SMALL_AWKWARD_SHAPES: readonly AwkwardShape[] = [
  { m: 100, n: 164, k: 92 },
  { m: 64, n: 512, k: 64 },
  { batch: 4, m: 64, n: 64, k: 64 },
];

export const AWKWARD_SGEMM_TARGET = 0.6;

/** `sgemm 4000x4100x3900`, `sgemm 64 x 512x512x512`. */
export function awkwardCase({ m, n, k, batch }: AwkwardShape): string {
  return `sgemm ${batch === undefined ? '' : `${batch} x `}${m}x${n}x${k}`;
}

/** Multiply-adds: batch*M*N*K. */
export function awkwardSize({ m, n, k, batch = 1 }: AwkwardShape): number {
  return batch * m * n * k;
}

/** The target's name for the report: 4000×4100×3900, batched 64 × 512³. */
export function awkwardTitle({ m, n, k, batch }: AwkwardShape): string {
  return batch === undefined
    ? `${m}×${n}×${k}`
    : m === n && n === k
      ? `batched ${batch} × ${m}³`
      : `batched ${batch} × ${m}×${n}×${k}`;
}
