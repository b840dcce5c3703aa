/**
 * The tuned SGEMM's configurations as the autotuner keeps them, for `matrixMul`: the name of
 * the tuning problem of a product's shape (examples/matmul.ts's `matmulTuning` names its
 * problems so), and the configuration a `TuningCache` holds for a device and a shape. A product
 * then runs the kernel tuned on that device where one was found, and `matrixMul`'s default
 * where none was (or where the cache's entry no longer describes a configuration).
 */
import type { Device, TuningCache } from '@loom/core';
import { configProblem, type MatmulConfig } from './matmul-config.ts';

/** A matrix product's shape: c (m x n) = a (m x k) · b (k x n), `batch` of them. */
export interface MatmulShape {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly batch?: number;
}

/** n x n x n as a shape. */
export function matmulShapeOf(size: number | MatmulShape): MatmulShape {
  return typeof size === 'number' ? { m: size, n: size, k: size } : size;
}

/** `4000x4100x3900`, `64 x 512x512x512`: a shape in a few characters. */
export function describeMatmulShape(size: number | MatmulShape): string {
  const { m, n, k, batch } = matmulShapeOf(size);
  return `${batch === undefined ? '' : `${batch} x `}${m}x${n}x${k}`;
}

/**
 * The autotuner's name for the float32 product of this shape: `sgemm n=4096` for a square
 * size, `sgemm 4000x4100x3900` or `sgemm 64 x 512x512x512` for a shape.
 */
export function sgemmProblemName(size: number | MatmulShape): string {
  return typeof size === 'number' ? `sgemm n=${size}` : `sgemm ${describeMatmulShape(size)}`;
}

/**
 * The configuration `cache` keeps for the float32 product of this shape on `device` (what
 * `autotune(matmulTuning(size), device, { cache })` found), for `matrixMul`'s `config`; undefined
 * where it keeps none, or an entry that is not a configuration of these transformations (a
 * cache written by another version), so that `matrixMul` takes its default.
 * ```ts
 * const config = await tunedMatrixMulConfig(cache, device, 4096);
 * const product = matrixMul(a, b, { config }); // the tuned kernel where the cache has one
 * ```
 */
export async function tunedMatrixMulConfig(
  cache: TuningCache,
  device: Device | string,
  size: number | MatmulShape,
): Promise<MatmulConfig | undefined> {
  const entry = await cache.get(sgemmProblemName(size), typeof device === 'string' ? device : device.name);
  const config = entry?.config;
  return isMatmulConfig(config) && configProblem(config) === undefined ? config : undefined;
}

/** Whether `x` has the fields every configuration has, of their types. */
function isMatmulConfig(x: unknown): x is MatmulConfig {
  if (typeof x !== 'object' || x === null) return false;
  const c = x as Record<string, unknown>;
  const whole = (v: unknown) => Number.isInteger(v) && (v as number) > 0;
  return (
    ['tileM', 'tileN', 'tileK', 'regM', 'regN'].every((f) => whole(c[f])) &&
    (c.layout === 'strided' || c.layout === 'blocked') &&
    typeof c.prefetch === 'boolean' &&
    typeof c.unrollK === 'boolean'
  );
}
