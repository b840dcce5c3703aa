/**
 * The H200 as a computation's plan sees it through NVIDIA's OpenCL (`deviceParameters`), for tests
 * that plan for a GPU this machine does not have: spread it and change what another target states.
 */
import type { DeviceParameters } from '@loom/computation';

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
};
