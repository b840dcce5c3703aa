/**
 * The H200 as a computation's plan sees it through NVIDIA's OpenCL (`deviceParameters`), for tests
 * that plan for a GPU this machine does not have: spread it and change what another target states.
 */
import type { DeviceParameters } from '@loom/computation';
import { wgslTarget } from '@loom/codegen-wgsl';

export const H200_OPENCL: DeviceParameters = {
  target: 'opencl',
  maxWorkGroupSize: 1024,
  maxWorkGroupSizes: [1024, 1024, 64],
  localMemoryBytes: 48 * 1024,
  subgroupSize: 32,
  subgroups: { dtypes: ['float32', 'int32', 'uint32'], size: 32 },
  vectorDTypes: ['float32'],
  preferVectorStatements: false,
  asyncCopies: false,
  unrollsConstantLoops: true,
  atomicFetches: { dtypes: ['int32', 'uint32', 'float32', 'float64'] },
  globalFences: true,
};

/** The H200 through Dawn, as a plan sees it: WGSL, whose compilers keep constant loops. */
export const H200_WGSL: DeviceParameters = {
  ...H200_OPENCL,
  target: 'wgsl',
  unrollsConstantLoops: false,
  atomicFetches: { dtypes: ['int32', 'uint32'] },
  globalFences: { refused: 'WGSL orders memory only within a work-group' },
};

/** The WGSL target as Dawn's adapter on the H200 states it: subgroups of 32, 1024 work-items, 48 KiB. */
export function h200WgslTarget(): ReturnType<typeof wgslTarget> {
  return wgslTarget({
    subgroups: { min: 32, max: 32 },
    limits: {
      maxComputeWorkgroupSizeX: 1024,
      maxComputeInvocationsPerWorkgroup: 1024,
      maxComputeWorkgroupStorageSize: 49152,
    },
  });
}
