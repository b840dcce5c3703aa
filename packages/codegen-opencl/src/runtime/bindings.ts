/**
 * The OpenCL C API, bound through koffi to the ICD loader (`libOpenCL.so.1`), which dispatches each
 * call to whichever driver owns the object: PoCL on the CPU machines, NVIDIA's driver on the GPU one.
 *
 * Nothing native is touched when this module is imported: koffi itself and the loader library are
 * loaded on the first call to `openCLApi()`, so the package can be imported (for its code generator,
 * its types) on machines without OpenCL, and even where koffi has no prebuilt binary.
 *
 * Conventions of the bindings, so the callers read plainly:
 *   - every OpenCL object (platform, device, context, queue, program, kernel, mem, event) is a `Handle`,
 *     the pointer as a bigint (koffi 3 passes pointers that way);
 *   - output parameters are typed arrays the caller owns (`Uint32Array(1)` for a count,
 *     `BigUint64Array` for handles and sizes, `Int32Array(1)` for an `errcode_ret`), or `null`;
 *   - the calls are synchronous. Host memory handed over is only used during the call (blocking
 *     reads and writes; `clSetKernelArg` and `clEnqueueFillBuffer` copy their input), which is
 *     the condition under which koffi may pass typed arrays as pointers.
 */
import { createRequire } from 'node:module';
import { isPackageNotFound, MissingPackageError } from '@loom/core';
import type { LibraryHandle } from 'koffi';

/** An OpenCL object (cl_platform_id, cl_context, cl_mem, ...) as the pointer value koffi gives. */
export type Handle = bigint;

/** Host memory passed by pointer for the duration of one call. */
type HostPointer = ArrayBufferView | null;

export interface OpenCLApi {
  clGetPlatformIDs(numEntries: number, platforms: BigUint64Array | null, numPlatforms: Uint32Array | null): number;
  clGetPlatformInfo(
    platform: Handle,
    name: number,
    size: number,
    value: HostPointer,
    sizeRet: BigUint64Array | null,
  ): number;
  clGetDeviceIDs(
    platform: Handle,
    type: bigint,
    numEntries: number,
    devices: BigUint64Array | null,
    numDevices: Uint32Array | null,
  ): number;
  clGetDeviceInfo(
    device: Handle,
    name: number,
    size: number,
    value: HostPointer,
    sizeRet: BigUint64Array | null,
  ): number;

  clCreateContext(
    properties: null,
    numDevices: number,
    devices: BigUint64Array,
    notify: null,
    userData: null,
    error: Int32Array,
  ): Handle | null;
  clReleaseContext(context: Handle): number;

  /** OpenCL 2.0 and later; absent from an OpenCL 1.x loader. */
  clCreateCommandQueueWithProperties?(
    context: Handle,
    device: Handle,
    properties: BigUint64Array | null,
    error: Int32Array,
  ): Handle | null;
  /** OpenCL 1.x (deprecated since 2.0, but still exported by loaders for old platforms). */
  clCreateCommandQueue?(context: Handle, device: Handle, properties: bigint, error: Int32Array): Handle | null;
  clReleaseCommandQueue(queue: Handle): number;
  clFinish(queue: Handle): number;

  clCreateProgramWithSource(
    context: Handle,
    count: number,
    strings: string[],
    lengths: null,
    error: Int32Array,
  ): Handle | null;
  clBuildProgram(
    program: Handle,
    numDevices: number,
    devices: BigUint64Array,
    options: string,
    notify: null,
    userData: null,
  ): number;
  clGetProgramBuildInfo(
    program: Handle,
    device: Handle,
    name: number,
    size: number,
    value: HostPointer,
    sizeRet: BigUint64Array | null,
  ): number;
  clGetProgramInfo(
    program: Handle,
    name: number,
    size: number,
    value: HostPointer,
    sizeRet: BigUint64Array | null,
  ): number;
  clReleaseProgram(program: Handle): number;

  clCreateKernel(program: Handle, name: string, error: Int32Array): Handle | null;
  clGetKernelInfo(
    kernel: Handle,
    name: number,
    size: number,
    value: HostPointer,
    sizeRet: BigUint64Array | null,
  ): number;
  clSetKernelArg(kernel: Handle, index: number, size: number, value: HostPointer): number;
  clReleaseKernel(kernel: Handle): number;

  clCreateBuffer(context: Handle, flags: bigint, size: number, hostPtr: null, error: Int32Array): Handle | null;
  clReleaseMemObject(buffer: Handle): number;
  clCreateImage?(
    context: Handle,
    flags: bigint,
    format: Uint32Array,
    descriptor: BigUint64Array,
    hostPtr: null,
    error: Int32Array,
  ): Handle | null;
  clEnqueueCopyBufferToImage?(
    queue: Handle,
    buffer: Handle,
    image: Handle,
    offset: number,
    origin: BigUint64Array,
    region: BigUint64Array,
    numWait: 0,
    waitList: null,
    event: null,
  ): number;
  clEnqueueWriteBuffer(
    queue: Handle,
    buffer: Handle,
    blocking: number,
    offset: number,
    size: number,
    data: ArrayBufferView,
    numWait: 0,
    waitList: null,
    event: null,
  ): number;
  clEnqueueReadBuffer(
    queue: Handle,
    buffer: Handle,
    blocking: number,
    offset: number,
    size: number,
    into: ArrayBufferView,
    numWait: 0,
    waitList: null,
    event: null,
  ): number;
  clEnqueueFillBuffer(
    queue: Handle,
    buffer: Handle,
    pattern: ArrayBufferView,
    patternSize: number,
    offset: number,
    size: number,
    numWait: 0,
    waitList: null,
    event: null,
  ): number;
  clEnqueueCopyBuffer(
    queue: Handle,
    source: Handle,
    target: Handle,
    sourceOffset: number,
    targetOffset: number,
    size: number,
    numWait: 0,
    waitList: null,
    event: null,
  ): number;

  clEnqueueNDRangeKernel(
    queue: Handle,
    kernel: Handle,
    workDim: number,
    globalOffset: null,
    globalSize: BigUint64Array,
    localSize: BigUint64Array | null,
    numWait: 0,
    waitList: null,
    event: BigUint64Array | null,
  ): number;
  clWaitForEvents(numEvents: number, events: BigUint64Array): number;
  clGetEventProfilingInfo(
    event: Handle,
    name: number,
    size: number,
    value: HostPointer,
    sizeRet: BigUint64Array | null,
  ): number;
  clReleaseEvent(event: Handle): number;
}

/**
 * C prototypes, as koffi parses them. Handles are named opaque pointer types, so each line reads like
 * the header; output parameters are `void *` so typed arrays can be passed for them.
 */
const PROTOTYPES: Record<keyof OpenCLApi, string> = {
  clGetPlatformIDs: 'cl_int clGetPlatformIDs(cl_uint num_entries, void *platforms, void *num_platforms)',
  clGetPlatformInfo:
    'cl_int clGetPlatformInfo(cl_platform_id platform, cl_uint name, size_t size, void *value, void *size_ret)',
  clGetDeviceIDs:
    'cl_int clGetDeviceIDs(cl_platform_id platform, cl_ulong type, cl_uint num_entries, void *devices, void *num_devices)',
  clGetDeviceInfo:
    'cl_int clGetDeviceInfo(cl_device_id device, cl_uint name, size_t size, void *value, void *size_ret)',

  clCreateContext:
    'cl_context clCreateContext(void *properties, cl_uint num_devices, void *devices, void *notify, void *user_data, void *errcode_ret)',
  clReleaseContext: 'cl_int clReleaseContext(cl_context context)',

  clCreateCommandQueueWithProperties:
    'cl_command_queue clCreateCommandQueueWithProperties(cl_context context, cl_device_id device, void *properties, void *errcode_ret)',
  clCreateCommandQueue:
    'cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device, cl_ulong properties, void *errcode_ret)',
  clReleaseCommandQueue: 'cl_int clReleaseCommandQueue(cl_command_queue queue)',
  clFinish: 'cl_int clFinish(cl_command_queue queue)',

  clCreateProgramWithSource:
    'cl_program clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings, void *lengths, void *errcode_ret)',
  clBuildProgram:
    'cl_int clBuildProgram(cl_program program, cl_uint num_devices, void *devices, const char *options, void *notify, void *user_data)',
  clGetProgramBuildInfo:
    'cl_int clGetProgramBuildInfo(cl_program program, cl_device_id device, cl_uint name, size_t size, void *value, void *size_ret)',
  clGetProgramInfo:
    'cl_int clGetProgramInfo(cl_program program, cl_uint name, size_t size, void *value, void *size_ret)',
  clReleaseProgram: 'cl_int clReleaseProgram(cl_program program)',

  clCreateKernel: 'cl_kernel clCreateKernel(cl_program program, const char *name, void *errcode_ret)',
  clGetKernelInfo: 'cl_int clGetKernelInfo(cl_kernel kernel, cl_uint name, size_t size, void *value, void *size_ret)',
  clSetKernelArg: 'cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value)',
  clReleaseKernel: 'cl_int clReleaseKernel(cl_kernel kernel)',

  clCreateBuffer:
    'cl_mem clCreateBuffer(cl_context context, cl_ulong flags, size_t size, void *host_ptr, void *errcode_ret)',
  clReleaseMemObject: 'cl_int clReleaseMemObject(cl_mem buffer)',
  clCreateImage:
    'cl_mem clCreateImage(cl_context context, cl_ulong flags, const void *format, const void *descriptor, void *host_ptr, void *errcode_ret)',
  clEnqueueCopyBufferToImage:
    'cl_int clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem buffer, cl_mem image, size_t offset, const void *origin, const void *region, cl_uint num_wait, void *wait_list, void *event)',
  clEnqueueWriteBuffer:
    'cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_uint blocking, size_t offset, size_t size, const void *data, cl_uint num_wait, void *wait_list, void *event)',
  clEnqueueReadBuffer:
    'cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_uint blocking, size_t offset, size_t size, void *into, cl_uint num_wait, void *wait_list, void *event)',
  clEnqueueFillBuffer:
    'cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern, size_t pattern_size, size_t offset, size_t size, cl_uint num_wait, void *wait_list, void *event)',
  clEnqueueCopyBuffer:
    'cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem source, cl_mem target, size_t source_offset, size_t target_offset, size_t size, cl_uint num_wait, void *wait_list, void *event)',

  clEnqueueNDRangeKernel:
    'cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim, void *global_offset, void *global_size, void *local_size, cl_uint num_wait, void *wait_list, void *event)',
  clWaitForEvents: 'cl_int clWaitForEvents(cl_uint num_events, void *events)',
  clGetEventProfilingInfo:
    'cl_int clGetEventProfilingInfo(cl_event event, cl_uint name, size_t size, void *value, void *size_ret)',
  clReleaseEvent: 'cl_int clReleaseEvent(cl_event event)',
};

/** Functions a loader may lack without OpenCL being unusable: one queue constructor is enough. */
const OPTIONAL = new Set<keyof OpenCLApi>([
  'clCreateCommandQueueWithProperties',
  'clCreateCommandQueue',
  // OpenCL 1.2's images: a loader without them has no images (info.ts reports none)
  'clCreateImage',
  'clEnqueueCopyBufferToImage',
]);

/** Where the ICD loader lives on each system; `LOOM_OPENCL_LIBRARY` overrides (a path or a soname). */
function libraryCandidates(): string[] {
  const override = process.env.LOOM_OPENCL_LIBRARY;
  if (override) return [override];
  switch (process.platform) {
    case 'darwin':
      return ['/System/Library/Frameworks/OpenCL.framework/OpenCL'];
    case 'win32':
      return ['OpenCL.dll'];
    default:
      return ['libOpenCL.so.1', 'libOpenCL.so'];
  }
}

type Koffi = typeof import('koffi').default;

type LoadResult = { api: OpenCLApi; library: string } | { failure: string };
let loaded: LoadResult | undefined;

/**
 * The bound API, loading it on first use. Returns a one-line reason instead when koffi or the
 * loader library cannot be loaded; the outcome is remembered, so later calls cost nothing.
 */
export function loadOpenCLApi(): LoadResult {
  loaded ??= load();
  return loaded;
}

function load(): LoadResult {
  let koffi: Koffi;
  try {
    // A plain require keeps the native addon out of the import graph until OpenCL is actually used.
    koffi = createRequire(import.meta.url)('koffi') as Koffi;
  } catch (e) {
    // koffi is an optional peer dependency: without it there is no OpenCL device, and the reason says what to install
    if (isPackageNotFound(e, 'koffi'))
      return { failure: new MissingPackageError('koffi', 'the OpenCL device (native calls from Node)').message };
    return { failure: `the koffi package (native calls from Node) could not be loaded: ${firstLine(e)}` };
  }

  // The bindings pass sizes and handles as 64-bit values (BigUint64Array), as on every host Node ships for.
  if (koffi.sizeof('size_t') !== 8)
    return { failure: 'OpenCL through koffi needs a 64-bit host (size_t is not 8 bytes)' };

  const tried: string[] = [];
  for (const name of libraryCandidates()) {
    let library: LibraryHandle;
    try {
      library = koffi.load(name);
    } catch (e) {
      tried.push(`${name} (${firstLine(e)})`);
      continue;
    }
    try {
      return { api: bind(koffi, library), library: name };
    } catch (e) {
      return { failure: `${name} does not provide the OpenCL API: ${firstLine(e)}` };
    }
  }
  return { failure: `no OpenCL library: could not load ${tried.join(', ')}` };
}

function bind(koffi: Koffi, library: LibraryHandle): OpenCLApi {
  declareTypes(koffi);
  const api: Partial<Record<keyof OpenCLApi, unknown>> = {};
  for (const [name, prototype] of Object.entries(PROTOTYPES) as [keyof OpenCLApi, string][]) {
    try {
      api[name] = library.func(prototype);
    } catch (e) {
      if (!OPTIONAL.has(name)) throw e;
    }
  }
  if (!api.clCreateCommandQueueWithProperties && !api.clCreateCommandQueue) {
    throw new Error('neither clCreateCommandQueueWithProperties nor clCreateCommandQueue is exported');
  }
  return api as OpenCLApi;
}

/** The header's typedefs, in koffi's process-wide type registry (kept if something declared them first). */
function declareTypes(koffi: Koffi): void {
  const declare = (name: string, make: () => unknown) => {
    try {
      koffi.type(name);
    } catch {
      make();
    }
  };
  declare('cl_int', () => koffi.alias('cl_int', 'int32_t'));
  declare('cl_uint', () => koffi.alias('cl_uint', 'uint32_t'));
  declare('cl_ulong', () => koffi.alias('cl_ulong', 'uint64_t'));
  for (const name of [
    'cl_platform_id',
    'cl_device_id',
    'cl_context',
    'cl_command_queue',
    'cl_program',
    'cl_kernel',
    'cl_mem',
    'cl_event',
  ]) {
    declare(name, () => koffi.pointer(name, koffi.opaque()));
  }
}

function firstLine(e: unknown): string {
  return String(e instanceof Error ? e.message : e).split('\n')[0];
}
