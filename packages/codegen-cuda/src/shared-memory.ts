/**
 * CUDA's dynamic shared memory: the local arrays of a size known only at launch, carved out of
 * one `extern __shared__` byte array in order (the dialect prints the carving), each at a
 * multiple of `DYNAMIC_SHARED_ALIGNMENT` bytes; the device passes their total bytes as
 * cuLaunchKernel's sharedMemBytes. Both sides round the same way, here.
 */

/** Where each carved array starts: a multiple of 16 bytes, enough for any element (double2, float4). */
export const DYNAMIC_SHARED_ALIGNMENT = 16;

/** The dynamic shared memory a launch needs for arrays of these bytes, each rounded up to the alignment. */
export function dynamicSharedBytes(arrays: readonly number[]): number {
  const a = DYNAMIC_SHARED_ALIGNMENT;
  return arrays.reduce((sum, bytes) => sum + Math.ceil(bytes / a) * a, 0);
}
