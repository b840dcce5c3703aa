/**
 * What the runtime knows of a CUDA device: its name, compute capability and the attributes
 * Loom's limits come from, read once when a context is opened.
 */
import * as CU from './constants.ts';

/** What Loom (and a user choosing launch sizes) needs to know about the CUDA device a context runs on. */
export interface CudaDeviceInfo {
  /** The device's ordinal (`cuDeviceGet`). */
  readonly ordinal: number;
  /** The device's name, e.g. `NVIDIA H200`. */
  readonly name: string;
  /** The CUDA version the driver supports, e.g. `13.0`. */
  readonly driverVersion: string;
  /** NVRTC's version, e.g. `13.0`. */
  readonly nvrtcVersion: string;
  /** Compute capability `[major, minor]`, e.g. `[9, 0]`. */
  readonly computeCapability: readonly [number, number];
  /** The architecture NVRTC compiles for, e.g. `sm_90` (`compute_90` when it compiles PTX for a newer device). */
  readonly architecture: string;
  /** Streaming multiprocessors. */
  readonly multiprocessors: number;
  /** Threads in a warp (32 on every NVIDIA GPU so far). */
  readonly warpSize: number;
  /** The most threads in a block. */
  readonly maxThreadsPerBlock: number;
  /** The most threads along each axis of a block: x, y, z. */
  readonly maxBlockSizes: readonly [number, number, number];
  /** The most blocks along each axis of a grid: x, y, z. */
  readonly maxGridSizes: readonly [number, number, number];
  /** Bytes of static `__shared__` memory one block may declare. */
  readonly sharedMemoryPerBlock: number;
  /** Bytes of shared memory one block may use, static and dynamic, once its function opts in (at least `sharedMemoryPerBlock`). */
  readonly sharedMemoryPerBlockOptin: number;
  /** 32-bit registers one block may use. */
  readonly registersPerBlock: number;
  /** Bytes of global memory. */
  readonly totalMemory: number;
}

/** Reads one `CUdevice_attribute` (the caller checks the code through `check`). */
export type AttributeReader = (attribute: number) => number;

/** Reads a device's attributes with `attribute`; the name, memory size and versions are read by the caller. */
export function describeDevice(
  attribute: AttributeReader,
  known: Pick<CudaDeviceInfo, 'ordinal' | 'name' | 'driverVersion' | 'nvrtcVersion' | 'architecture' | 'totalMemory'>,
): CudaDeviceInfo {
  return {
    ...known,
    computeCapability: [
      attribute(CU.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
      attribute(CU.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
    ],
    multiprocessors: attribute(CU.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
    warpSize: attribute(CU.CU_DEVICE_ATTRIBUTE_WARP_SIZE),
    maxThreadsPerBlock: attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
    maxBlockSizes: [
      attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
      attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
      attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z),
    ],
    maxGridSizes: [
      attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
      attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
      attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
    ],
    sharedMemoryPerBlock: attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
    // a device before Volta has no opt-in (0): its blocks keep the static limit
    sharedMemoryPerBlockOptin: Math.max(
      attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
      attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
    ),
    registersPerBlock: attribute(CU.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
  };
}

/** `13000` (cuDriverGetVersion) → `13.0`. */
export function cudaVersionString(version: number): string {
  return `${Math.floor(version / 1000)}.${Math.floor((version % 1000) / 10)}`;
}
