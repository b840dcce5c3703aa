/**
 * The device memory `loom stats --device` would allocate to run a kernel at the parameters
 * asked for, worked out before anything is allocated (core's `measuredArrays`, the very arrays
 * `measureKernelSeconds` makes), and the limit above which it refuses: a typo in --params
 * (n=1048576000) must not have the device swap or run for minutes before failing.
 */
import { LoomError, measuredArrays, type LoopKernel, type MeasuredArray } from '@loom/core';

/** The limit `--max-memory` raises. */
export const DEFAULT_MAX_MEMORY = 2 ** 30;

const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  k: 2 ** 10,
  kib: 2 ** 10,
  m: 2 ** 20,
  mib: 2 ** 20,
  g: 2 ** 30,
  gib: 2 ** 30,
  t: 2 ** 40,
  tib: 2 ** 40,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
};

/**
 * Bytes from a size as a user writes it: `2GiB`, `512MiB`, `100MB`, `4096`. K, M, G, T and KiB,
 * MiB, GiB, TiB are powers of 1024; KB, MB, GB, TB powers of 1000. Undefined when it is none.
 */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[(m[2] || 'b').toLowerCase()] : undefined;
  if (!m || unit === undefined) return undefined;
  const bytes = Math.round(Number(m[1]) * unit);
  return bytes > 0 ? bytes : undefined;
}

/** `1.50 GiB`, `512 KiB`, `40 B`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let k = 0;
  while (bytes >= 1024 ** (k + 1) && k < units.length - 1) k++;
  return k === 0 ? `${bytes} B` : `${(bytes / 1024 ** k).toPrecision(3)} ${units[k]}`;
}

/** The arrays a run of the kernel allocates at `params`, or why they cannot be known (a parameter not given). */
export function arraysOf(
  kernel: LoopKernel,
  params: Readonly<Record<string, number>>,
): readonly MeasuredArray[] | string {
  try {
    return measuredArrays(kernel, params);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return e.message;
  }
}

export const totalBytes = (arrays: readonly MeasuredArray[]) => arrays.reduce((sum, a) => sum + a.bytes, 0);

/** `a: float32 [1024, 1024], 4.00 MiB`. */
export function describeArray(a: MeasuredArray): string {
  return `${a.name}: ${a.dtype} [${a.shape.join(', ')}], ${formatBytes(a.bytes)}`;
}
