/** The axes a library computation works over, as its callers may give them. */
import { LoomError } from '@loom/core';

/** Axes in range, negative ones counted from the end, each once; sorted. */
export function normalizeAxes(what: string, axes: readonly number[], rank: number): number[] {
  const out = axes.map((a) => {
    if (!Number.isInteger(a) || a < -rank || a >= rank)
      throw new LoomError(`${what}: axis ${a} is out of bounds for an array of rank ${rank}`);
    return a < 0 ? a + rank : a;
  });
  if (new Set(out).size !== out.length) throw new LoomError(`${what}: axes (${axes.join(', ')}) repeat an axis`);
  return out.sort((a, b) => a - b);
}
