/**
 * The CUDA driver API (`libcuda.so.1`, installed with NVIDIA's driver), bound through koffi.
 *
 * Conventions, so the callers read plainly:
 *   - contexts, modules, functions and events are `Handle`s, the pointer as a bigint (koffi 3 passes
 *     pointers that way); device memory is a `CUdeviceptr`, a 64-bit integer, also a bigint;
 *   - output parameters are typed arrays the caller owns (`Int32Array(1)` for an int,
 *     `BigUint64Array(1)` for a handle, a pointer or a size_t), and host memory handed over is
 *     used only during the call (the copies are synchronous), the condition under which koffi
 *     may pass typed arrays as pointers;
 *   - every function returns a CUresult (0 is CUDA_SUCCESS), checked by `errors.ts`.
 *
 * Nothing native is touched when this module is imported: `loadDriver()` loads the library on
 * first use and remembers the outcome.
 */
import type { LibraryHandle } from 'koffi';
import { declareType, firstLine, loadFailure, loadKoffi, type Koffi } from './native.ts';

/** A CUcontext, CUmodule, CUfunction or CUevent, as the pointer value koffi gives. */
export type Handle = bigint;

/** The driver API functions the runtime calls. */
export interface DriverApi {
  cuInit(flags: number): number;
  cuDriverGetVersion(version: Int32Array): number;
  cuDeviceGetCount(count: Int32Array): number;
  cuDeviceGet(device: Int32Array, ordinal: number): number;
  cuDeviceGetName(name: Uint8Array, length: number, device: number): number;
  cuDeviceGetAttribute(value: Int32Array, attribute: number, device: number): number;
  cuDeviceTotalMem_v2(bytes: BigUint64Array, device: number): number;
  cuDevicePrimaryCtxRetain(context: BigUint64Array, device: number): number;
  cuDevicePrimaryCtxRelease_v2(device: number): number;
  cuCtxSetCurrent(context: Handle | null): number;
  cuCtxSynchronize(): number;

  cuModuleLoadData(module: BigUint64Array, image: Uint8Array): number;
  cuModuleUnload(module: Handle): number;
  cuModuleGetFunction(fn: BigUint64Array, module: Handle, name: string): number;
  cuFuncGetAttribute(value: Int32Array, attribute: number, fn: Handle): number;
  cuFuncSetAttribute(fn: Handle, attribute: number, value: number): number;
  /** CUDA 12.4 and later: the offset and size of a kernel's parameter (CUDA_ERROR_INVALID_VALUE past the last). */
  cuFuncGetParamInfo?(fn: Handle, index: number, offset: BigUint64Array, size: BigUint64Array): number;

  cuMemAlloc_v2(pointer: BigUint64Array, bytes: number): number;
  cuMemFree_v2(pointer: bigint): number;
  cuMemcpyHtoD_v2(target: bigint, source: ArrayBufferView, bytes: number): number;
  cuMemcpyDtoH_v2(target: ArrayBufferView, source: bigint, bytes: number): number;

  cuLaunchKernel(
    fn: Handle,
    gridX: number,
    gridY: number,
    gridZ: number,
    blockX: number,
    blockY: number,
    blockZ: number,
    sharedBytes: number,
    stream: null,
    parameters: BigUint64Array,
    extra: null,
  ): number;

  /**
   * CUDA 12 and later: a tensor map (128 bytes into `map`) viewing `rank` axes of global memory
   * from `address` (axis 0 contiguous; `strides`: axes 1 and on, in bytes), read by the tensor
   * memory accelerator in boxes of `box` elements; optional, since only bulk copies need it.
   */
  cuTensorMapEncodeTiled?(
    map: Uint8Array,
    dataType: number,
    rank: number,
    address: bigint,
    dims: BigUint64Array,
    strides: BigUint64Array,
    box: Uint32Array,
    elementStrides: Uint32Array,
    interleave: number,
    swizzle: number,
    l2Promotion: number,
    outOfBoundsFill: number,
  ): number;

  cuEventCreate(event: BigUint64Array, flags: number): number;
  cuEventRecord(event: Handle, stream: null): number;
  cuEventSynchronize(event: Handle): number;
  cuEventElapsedTime(milliseconds: Float32Array, start: Handle, end: Handle): number;
  cuEventDestroy_v2(event: Handle): number;

  cuGetErrorName(code: number, name: BigUint64Array): number;
  cuGetErrorString(code: number, text: BigUint64Array): number;
}

/** C prototypes as koffi parses them; output parameters are `void *`, so typed arrays can be passed for them. */
const PROTOTYPES: Record<keyof DriverApi, string> = {
  cuInit: 'CUresult cuInit(unsigned int flags)',
  cuDriverGetVersion: 'CUresult cuDriverGetVersion(void *version)',
  cuDeviceGetCount: 'CUresult cuDeviceGetCount(void *count)',
  cuDeviceGet: 'CUresult cuDeviceGet(void *device, int ordinal)',
  cuDeviceGetName: 'CUresult cuDeviceGetName(void *name, int length, CUdevice device)',
  cuDeviceGetAttribute: 'CUresult cuDeviceGetAttribute(void *value, int attribute, CUdevice device)',
  cuDeviceTotalMem_v2: 'CUresult cuDeviceTotalMem_v2(void *bytes, CUdevice device)',
  cuDevicePrimaryCtxRetain: 'CUresult cuDevicePrimaryCtxRetain(void *context, CUdevice device)',
  cuDevicePrimaryCtxRelease_v2: 'CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device)',
  cuCtxSetCurrent: 'CUresult cuCtxSetCurrent(CUcontext context)',
  cuCtxSynchronize: 'CUresult cuCtxSynchronize()',

  cuModuleLoadData: 'CUresult cuModuleLoadData(void *module, const void *image)',
  cuModuleUnload: 'CUresult cuModuleUnload(CUmodule module)',
  cuModuleGetFunction: 'CUresult cuModuleGetFunction(void *fn, CUmodule module, const char *name)',
  cuFuncGetAttribute: 'CUresult cuFuncGetAttribute(void *value, int attribute, CUfunction fn)',
  cuFuncSetAttribute: 'CUresult cuFuncSetAttribute(CUfunction fn, int attribute, int value)',
  cuFuncGetParamInfo: 'CUresult cuFuncGetParamInfo(CUfunction fn, size_t index, void *offset, void *size)',

  cuMemAlloc_v2: 'CUresult cuMemAlloc_v2(void *pointer, size_t bytes)',
  cuMemFree_v2: 'CUresult cuMemFree_v2(CUdeviceptr pointer)',
  cuMemcpyHtoD_v2: 'CUresult cuMemcpyHtoD_v2(CUdeviceptr target, const void *source, size_t bytes)',
  cuMemcpyDtoH_v2: 'CUresult cuMemcpyDtoH_v2(void *target, CUdeviceptr source, size_t bytes)',

  cuLaunchKernel:
    'CUresult cuLaunchKernel(CUfunction fn, unsigned int gridX, unsigned int gridY, unsigned int gridZ, ' +
    'unsigned int blockX, unsigned int blockY, unsigned int blockZ, unsigned int sharedBytes, CUstream stream, void *parameters, void *extra)',

  cuTensorMapEncodeTiled:
    'CUresult cuTensorMapEncodeTiled(void *map, int dataType, unsigned int rank, CUdeviceptr address, const void *dims, ' +
    'const void *strides, const void *box, const void *elementStrides, int interleave, int swizzle, int l2Promotion, int outOfBoundsFill)',

  cuEventCreate: 'CUresult cuEventCreate(void *event, unsigned int flags)',
  cuEventRecord: 'CUresult cuEventRecord(CUevent event, CUstream stream)',
  cuEventSynchronize: 'CUresult cuEventSynchronize(CUevent event)',
  cuEventElapsedTime: 'CUresult cuEventElapsedTime(void *milliseconds, CUevent start, CUevent end)',
  cuEventDestroy_v2: 'CUresult cuEventDestroy_v2(CUevent event)',

  cuGetErrorName: 'CUresult cuGetErrorName(CUresult code, void *name)',
  cuGetErrorString: 'CUresult cuGetErrorString(CUresult code, void *text)',
};

/** Functions an older driver may lack without CUDA being unusable. */
const OPTIONAL = new Set<keyof DriverApi>(['cuFuncGetParamInfo', 'cuTensorMapEncodeTiled']);

/** What loading gives: the bound API with koffi (to read the strings it returns), or why not. */
export type DriverLoad =
  | { readonly api: DriverApi; readonly koffi: Koffi; readonly library: string }
  | { readonly failure: string };

let loaded: DriverLoad | undefined;

/** The driver's library names, in the order tried; `LOOM_CUDA_LIBRARY` (a path or a soname) overrides. */
export function driverLibraryCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.LOOM_CUDA_LIBRARY) return [env.LOOM_CUDA_LIBRARY];
  return process.platform === 'win32' ? ['nvcuda.dll'] : ['libcuda.so.1', 'libcuda.so'];
}

/** The bound driver API, loaded on first use, or a one-line reason why there is none. */
export function loadDriver(): DriverLoad {
  loaded ??= loadDriverFrom(driverLibraryCandidates());
  return loaded;
}

/** The driver API from the first of `candidates` that loads (not remembered: `loadDriver` is what the runtime uses). */
export function loadDriverFrom(candidates: readonly string[]): DriverLoad {
  const k = loadKoffi();
  if ('failure' in k) return k;
  const { koffi } = k;
  const tried: string[] = [];
  for (const name of candidates) {
    let library: LibraryHandle;
    try {
      library = koffi.load(name);
    } catch (e) {
      tried.push(`${name} (${loadFailure(e)})`);
      continue;
    }
    try {
      return { api: bind(koffi, library), koffi, library: name };
    } catch (e) {
      return { failure: `${name} does not provide the CUDA driver API: ${firstLine(e)}` };
    }
  }
  return { failure: `no CUDA driver (the NVIDIA driver's CUDA library): could not load ${tried.join(', ')}` };
}

function bind(koffi: Koffi, library: LibraryHandle): DriverApi {
  declareType(koffi, 'CUresult', () => koffi.alias('CUresult', 'int'));
  declareType(koffi, 'CUdevice', () => koffi.alias('CUdevice', 'int'));
  declareType(koffi, 'CUdeviceptr', () => koffi.alias('CUdeviceptr', 'uint64_t'));
  for (const name of ['CUcontext', 'CUmodule', 'CUfunction', 'CUstream', 'CUevent']) {
    declareType(koffi, name, () => koffi.pointer(name, koffi.opaque()));
  }
  const api: Partial<Record<keyof DriverApi, unknown>> = {};
  for (const [name, prototype] of Object.entries(PROTOTYPES) as [keyof DriverApi, string][]) {
    try {
      api[name] = library.func(prototype);
    } catch (e) {
      if (!OPTIONAL.has(name)) throw e;
    }
  }
  return api as DriverApi;
}
