/**
 * CUDA's dynamic shared memory: the local arrays of a size known only at launch, and all of a
 * kernel's local arrays where they take more than the 48 KiB a block may declare statically
 * (`STATIC_SHARED_BYTES`), carved out of one `extern __shared__` byte array in order (the dialect
 * prints the carving), each at a multiple of `DYNAMIC_SHARED_ALIGNMENT` bytes; the device passes
 * their total bytes as cuLaunchKernel's sharedMemBytes, opting the kernel in where that is more
 * than 48 KiB. Both sides round the same way, here.
 */

/** Where each carved array starts: a multiple of 128 bytes, enough for any element (double4), WMMA's tile loads and bulk copies. */
export const DYNAMIC_SHARED_ALIGNMENT = 128;

/** The bytes of `__shared__` arrays a kernel may declare with constant sizes: 48 KiB on every GPU CUDA runs. */
export const STATIC_SHARED_BYTES = 48 * 1024;

/**
 * The dynamic shared memory a launch needs for arrays of these bytes, each rounded up to the
 * alignment (`DYNAMIC_SHARED_ALIGNMENT`, or a kernel's larger one: `sharedAlignment`).
 */
export function dynamicSharedBytes(arrays: readonly number[], alignment = DYNAMIC_SHARED_ALIGNMENT): number {
  const a = Math.max(alignment, DYNAMIC_SHARED_ALIGNMENT);
  return arrays.reduce((sum, bytes) => sum + Math.ceil(bytes / a) * a, 0);
}
