/** Statistics of kernels: operations, memory accesses, synchronizations, footprints (loopy's statistics.py). */
export { getOpMap, type OpMap, type OpMapOptions } from './op-map.ts';
export { getMemAccessMap, type MemAccessMap, type MemAccessMapOptions } from './mem-access-map.ts';
export { getSynchronizationMap, type SyncMap } from './sync-map.ts';
export { getStatistics, type KernelStatistics } from './all.ts';
export {
  gatherAccessFootprints,
  gatherAccessFootprintBytes,
  AccessFootprint,
  AccessFootprints,
  type FootprintDirection,
  type FootprintOptions,
} from './footprints.ts';
export { ToCountMap, type FieldFilter, type KeyKind } from './count-map.ts';
export { GuardedPwQPolynomial } from './guarded.ts';
export {
  Op,
  MemAccess,
  Sync,
  CountGranularity,
  type CountKey,
  type OpFields,
  type MemAccessFields,
  type SyncFields,
  type Stride,
  type Strides,
  type StridesInput,
} from './keys.ts';
export type { InstructionCountOptions } from './instruction-counts.ts';
export { estimateTime, kernelWork, type DeviceProfile, type TimeEstimate, type KernelWork } from './roofline.ts';
export {
  measureDeviceProfile,
  measureKernelSeconds,
  measuredArrays,
  type MeasuredArray,
  type ProfileOptions,
} from './profile.ts';
