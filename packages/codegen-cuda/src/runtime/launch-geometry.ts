/**
 * A launch's geometry, checked before the driver sees it: the grid as three block counts within the
 * device's largest grid, the block as three thread counts within the device's and the kernel's
 * limits (a kernel of many registers runs fewer threads a block), each refusal a LoomError saying why.
 */
import { LoomError } from '@loom/core';
import type { CudaDeviceInfo } from './info.ts';
import type { CudaFunction } from './module.ts';

const AXES = ['x', 'y', 'z'];

/** The grid as three block counts, checked against the device's largest grid. */
export function checkGrid(
  where: string,
  groupCount: readonly number[],
  max: readonly [number, number, number],
): [number, number, number] {
  if (!Array.isArray(groupCount) || groupCount.length < 1 || groupCount.length > 3) {
    throw new LoomError(`${where}: the grid needs 1 to 3 axes, got [${groupCount}]`);
  }
  const grid: [number, number, number] = [1, 1, 1];
  groupCount.forEach((n, axis) => {
    if (!Number.isSafeInteger(n) || n < 0)
      throw new LoomError(`${where}: grid [${groupCount.join(', ')}] is not whole numbers`);
    if (n > max[axis]) {
      throw new LoomError(
        `${where}: ${n} blocks along axis ${axis} (${AXES[axis]}) exceed the device's ${max[axis]}; ` +
          (axis > 0
            ? "tag the largest parallel iname 'g.0', which takes the most blocks"
            : 'split the problem into several launches'),
      );
    }
    grid[axis] = n;
  });
  return grid;
}

/** The block as three thread counts, checked against the device's and the kernel's limits. */
export function checkBlock(
  where: string,
  blockSize: readonly number[],
  axes: number,
  info: CudaDeviceInfo,
  fn: CudaFunction,
): [number, number, number] {
  if (!Array.isArray(blockSize) || blockSize.length !== axes) {
    throw new LoomError(`${where}: block size [${blockSize}] and grid differ in axes (${axes})`);
  }
  const block: [number, number, number] = [1, 1, 1];
  blockSize.forEach((n, axis) => {
    if (!Number.isSafeInteger(n) || n < 1)
      throw new LoomError(`${where}: block size [${blockSize.join(', ')}] is not positive whole numbers`);
    if (n > info.maxBlockSizes[axis])
      throw new LoomError(
        `${where}: ${n} threads along axis ${axis} (${AXES[axis]}) exceed the device's ${info.maxBlockSizes[axis]}`,
      );
    block[axis] = n;
  });
  const threads = block[0] * block[1] * block[2];
  if (threads > fn.maxThreadsPerBlock) {
    const why =
      fn.maxThreadsPerBlock < info.maxThreadsPerBlock
        ? ` (it uses ${fn.registers} registers per thread, so the device runs at most ${fn.maxThreadsPerBlock} of its threads per block)`
        : '';
    throw new LoomError(
      `${where}: a block of ${threads} threads exceeds the kernel's ${fn.maxThreadsPerBlock}${why}; use smaller work-groups (split an 'l.N' iname)`,
    );
  }
  return block;
}
