/**
 * `getStatistics(knl, options)`: the three maps at once, from one preprocessing and one
 * linearization of the kernel, the loop nests counted once for all three (what the
 * builder's `.stats()` gives).
 */
import { compiledKernel } from '../program/resolve.ts';
import type { Program } from '../program/program.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { linearizedForCounting } from './linearized.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { InstructionCounts } from './instruction-counts.ts';
import { memAccessMapOf, type MemAccessMap } from './mem-access-map.ts';
import { opMapOf, type OpMap, type OpMapOptions } from './op-map.ts';
import { syncMapOf, type SyncMap } from './sync-map.ts';

/** The options getStatistics reads; any other key is an error. */
const GET_STATISTICS_OPTIONS = optionKeys<OpMapOptions>()([
  'countRedundantWork',
  'countWithinSubscripts',
  'subgroupSize',
  'within',
]);

/** A kernel's operation, memory access and synchronization counts, together. */
export interface KernelStatistics {
  /** `getOpMap`'s counts. */
  readonly ops: OpMap;
  /** `getMemAccessMap`'s counts. */
  readonly memAccesses: MemAccessMap;
  /** `getSynchronizationMap`'s counts. */
  readonly sync: SyncMap;
}

/** All of a kernel's counts at once: `getOpMap`, `getMemAccessMap` and `getSynchronizationMap`. */
export function getStatistics(program: LoopKernel | Program, options: OpMapOptions = {}): KernelStatistics {
  const knl = compiledKernel(program);
  checkOptionKeys('getStatistics', options, GET_STATISTICS_OPTIONS);
  const split = linearizedForCounting(knl);
  const kernel = split.kernel;
  const counts = new InstructionCounts(kernel, options, 'getStatistics');
  return {
    ops: opMapOf(counts, options),
    memAccesses: memAccessMapOf(counts, options),
    sync: syncMapOf(split, counts),
  };
}
