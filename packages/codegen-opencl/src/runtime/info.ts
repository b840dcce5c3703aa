/**
 * Reading OpenCL's `clGet*Info` queries. They all follow one protocol (ask for the size, then for the
 * bytes), so one helper reads the bytes and small decoders turn them into strings and numbers.
 */
import type { Handle, OpenCLApi } from './bindings.ts';
import * as CL from './constants.ts';
import { check } from './errors.ts';

/** A `clGet*Info` call with everything but its size, value and size_ret arguments bound. */
export type InfoQuery = (size: number, value: Uint8Array | null, sizeRet: BigUint64Array | null) => number;

/** The raw bytes of one info query. */
export function readInfo(call: string, query: InfoQuery): Uint8Array {
  const size = new BigUint64Array(1);
  check(call, query(0, null, size));
  const value = new Uint8Array(Number(size[0]));
  if (value.length > 0) check(call, query(value.length, value, null));
  return value;
}

const utf8 = new TextDecoder();

/** A `char[]` value: up to its NUL terminator, without the padding some drivers add. */
export function asString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return utf8.decode(end < 0 ? bytes : bytes.subarray(0, end)).trim();
}

/** A `cl_uint` / `cl_bool` value. */
export function asUint32(bytes: Uint8Array): number {
  return new Uint32Array(bytes.buffer, bytes.byteOffset, 1)[0];
}

/** A `cl_ulong` / `size_t` value (64-bit hosts only, which the bindings check), as a JS number. */
export function asUint64(bytes: Uint8Array): number {
  return Number(new BigUint64Array(bytes.buffer, bytes.byteOffset, 1)[0]);
}

/** A `size_t[]` value. */
export function asSizes(bytes: Uint8Array): number[] {
  return Array.from(new BigUint64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8), Number);
}

/** The kind of an OpenCL device. */
export type DeviceType = 'gpu' | 'cpu' | 'accelerator' | 'other';

/** What Loom (and a user choosing launch sizes) needs to know about the device a context runs on. */
export interface OpenCLDeviceInfo {
  /** The platform's name (CL_PLATFORM_NAME), e.g. `Portable Computing Language`. */
  readonly platformName: string;
  /** The platform's OpenCL version string (CL_PLATFORM_VERSION). */
  readonly platformVersion: string;
  /** The device's name (CL_DEVICE_NAME). */
  readonly deviceName: string;
  /** The kind of device (CL_DEVICE_TYPE). */
  readonly type: DeviceType;
  /** The device's vendor (CL_DEVICE_VENDOR). */
  readonly vendor: string;
  /** The device's OpenCL version string, e.g. `OpenCL 3.0 PoCL ...`. */
  readonly version: string;
  /** The driver's version (CL_DRIVER_VERSION). */
  readonly driverVersion: string;
  /** The OpenCL C version the compiler accepts, e.g. `OpenCL C 1.2 PoCL`. */
  readonly openclCVersion: string;
  /** Parallel compute units (CL_DEVICE_MAX_COMPUTE_UNITS). */
  readonly computeUnits: number;
  /** The most work-items in a work-group (CL_DEVICE_MAX_WORK_GROUP_SIZE). */
  readonly maxWorkGroupSize: number;
  /** The largest local size in each dimension (its length is the number of dimensions). */
  readonly maxWorkItemSizes: readonly number[];
  /** Bytes of local memory per work-group (CL_DEVICE_LOCAL_MEM_SIZE). */
  readonly localMemSize: number;
  /** The largest buffer, in bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE). */
  readonly maxMemAllocSize: number;
  /** Bytes of global memory (CL_DEVICE_GLOBAL_MEM_SIZE). */
  readonly globalMemSize: number;
  /** The extensions the device supports (CL_DEVICE_EXTENSIONS), e.g. `cl_khr_fp64`. */
  readonly extensions: readonly string[];
  /** Whether kernels may use `double` (cl_khr_fp64). */
  readonly supportsFloat64: boolean;
  /** Whether kernels may use `half` arithmetic (cl_khr_fp16). */
  readonly supportsFloat16: boolean;
  /**
   * Whether float32 `/` and `sqrt` can be correctly rounded (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT):
   * OpenCL's default allows 2.5 ulp, and NVIDIA's driver uses it.
   */
  readonly correctlyRoundedDivideSqrt: boolean;
  /**
   * The 32-bit registers a compute unit gives its work-groups, where the compiler takes a cap on each
   * work-item's (NVIDIA's `-cl-nv-maxrregcount`, cl_nv_compiler_options, with the count from
   * cl_nv_device_attribute_query); undefined elsewhere.
   */
  readonly registersPerComputeUnit?: number;
  /**
   * The largest 2D and 3D images, width first (CL_DEVICE_IMAGE2D_MAX_WIDTH...), or undefined
   * when the device has no images (CL_DEVICE_IMAGE_SUPPORT false, or a loader without OpenCL
   * 1.2's clCreateImage).
   */
  readonly images?: { readonly 2: readonly [number, number]; readonly 3: readonly [number, number, number] };
}

export function platformString(api: OpenCLApi, platform: Handle, name: number): string {
  return asString(
    readInfo('clGetPlatformInfo', (size, value, ret) => api.clGetPlatformInfo(platform, name, size, value, ret)),
  );
}

function deviceInfo(api: OpenCLApi, device: Handle, name: number): Uint8Array {
  return readInfo('clGetDeviceInfo', (size, value, ret) => api.clGetDeviceInfo(device, name, size, value, ret));
}

export function deviceString(api: OpenCLApi, device: Handle, name: number): string {
  return asString(deviceInfo(api, device, name));
}

export function deviceType(api: OpenCLApi, device: Handle): DeviceType {
  const bits = new BigUint64Array(deviceInfo(api, device, CL.CL_DEVICE_TYPE).buffer, 0, 1)[0];
  if (bits & CL.CL_DEVICE_TYPE_GPU) return 'gpu';
  if (bits & CL.CL_DEVICE_TYPE_CPU) return 'cpu';
  if (bits & CL.CL_DEVICE_TYPE_ACCELERATOR) return 'accelerator';
  return 'other';
}

export function deviceAvailable(api: OpenCLApi, device: Handle): boolean {
  return asUint32(deviceInfo(api, device, CL.CL_DEVICE_AVAILABLE)) !== 0;
}

export function readDeviceInfo(api: OpenCLApi, platform: Handle, device: Handle): OpenCLDeviceInfo {
  const text = (name: number) => deviceString(api, device, name);
  const uint32 = (name: number) => asUint32(deviceInfo(api, device, name));
  const uint64 = (name: number) => asUint64(deviceInfo(api, device, name));
  const extensions = text(CL.CL_DEVICE_EXTENSIONS).split(/\s+/).filter(Boolean);
  return {
    platformName: platformString(api, platform, CL.CL_PLATFORM_NAME),
    platformVersion: platformString(api, platform, CL.CL_PLATFORM_VERSION),
    deviceName: text(CL.CL_DEVICE_NAME),
    type: deviceType(api, device),
    vendor: text(CL.CL_DEVICE_VENDOR),
    version: text(CL.CL_DEVICE_VERSION),
    driverVersion: text(CL.CL_DRIVER_VERSION),
    openclCVersion: text(CL.CL_DEVICE_OPENCL_C_VERSION),
    computeUnits: uint32(CL.CL_DEVICE_MAX_COMPUTE_UNITS),
    maxWorkGroupSize: uint64(CL.CL_DEVICE_MAX_WORK_GROUP_SIZE),
    maxWorkItemSizes: asSizes(deviceInfo(api, device, CL.CL_DEVICE_MAX_WORK_ITEM_SIZES)),
    localMemSize: uint64(CL.CL_DEVICE_LOCAL_MEM_SIZE),
    maxMemAllocSize: uint64(CL.CL_DEVICE_MAX_MEM_ALLOC_SIZE),
    globalMemSize: uint64(CL.CL_DEVICE_GLOBAL_MEM_SIZE),
    extensions,
    // OpenCL 3.0 made doubles optional and reports them through the FP config; 1.x through the extension
    supportsFloat64: extensions.includes('cl_khr_fp64') || deviceFloat64Config(api, device) !== 0n,
    supportsFloat16: extensions.includes('cl_khr_fp16'),
    correctlyRoundedDivideSqrt: (deviceSingleFpConfig(api, device) & CL.CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) !== 0n,
    ...registerInfo(api, device, extensions),
    ...imageInfo(api, device),
  };
}

/** The registers a work-group may hold, where NVIDIA's compiler can be asked to cap them. */
function registerInfo(
  api: OpenCLApi,
  device: Handle,
  extensions: readonly string[],
): Pick<OpenCLDeviceInfo, 'registersPerComputeUnit'> {
  if (!extensions.includes('cl_nv_compiler_options') || !extensions.includes('cl_nv_device_attribute_query')) return {};
  try {
    const registers = asUint32(deviceInfo(api, device, CL.CL_DEVICE_REGISTERS_PER_BLOCK_NV));
    return registers > 0 ? { registersPerComputeUnit: registers } : {};
  } catch {
    return {};
  }
}

/** The device's image limits, where it has images and the loader makes them. */
function imageInfo(api: OpenCLApi, device: Handle): Pick<OpenCLDeviceInfo, 'images'> {
  if (!api.clCreateImage || !api.clEnqueueCopyBufferToImage) return {};
  if (asUint32(deviceInfo(api, device, CL.CL_DEVICE_IMAGE_SUPPORT)) === 0) return {};
  const size = (name: number) => asUint64(deviceInfo(api, device, name));
  return {
    images: {
      2: [size(CL.CL_DEVICE_IMAGE2D_MAX_WIDTH), size(CL.CL_DEVICE_IMAGE2D_MAX_HEIGHT)],
      3: [
        size(CL.CL_DEVICE_IMAGE3D_MAX_WIDTH),
        size(CL.CL_DEVICE_IMAGE3D_MAX_HEIGHT),
        size(CL.CL_DEVICE_IMAGE3D_MAX_DEPTH),
      ],
    },
  };
}

function deviceSingleFpConfig(api: OpenCLApi, device: Handle): bigint {
  try {
    return new BigUint64Array(deviceInfo(api, device, CL.CL_DEVICE_SINGLE_FP_CONFIG).buffer, 0, 1)[0];
  } catch {
    return 0n;
  }
}

function deviceFloat64Config(api: OpenCLApi, device: Handle): bigint {
  try {
    return new BigUint64Array(deviceInfo(api, device, CL.CL_DEVICE_DOUBLE_FP_CONFIG).buffer, 0, 1)[0];
  } catch {
    return 0n; // a 1.0 device without the query: the extension string decides
  }
}

/** `OpenCL 2.1 ...` → [2, 1]; anything unreadable counts as 1.0. */
export function parseVersion(version: string): [major: number, minor: number] {
  const match = /OpenCL (\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : [1, 0];
}
