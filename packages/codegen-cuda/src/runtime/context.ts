/**
 * `CudaContext`: one CUDA device's primary context, NVRTC to compile for it, and the modules
 * and buffers made there.
 *
 * Everything here is synchronous and runs on the device's default (NULL) stream, so the work
 * keeps the order it was asked in: a launch is queued and returns; a write copies the data
 * before it returns; a read waits for everything queued before it. `synchronize()` waits for
 * all of it.
 *
 * Opening never throws: without koffi, the driver library, NVRTC or a usable device, `open()`
 * returns undefined and `CudaContext.unavailableReason()` says why in one line, so callers
 * (tests, `cudaDevice()`) can decide between skipping and failing. Everything after opening
 * reports problems as `LoomError`s.
 */
import {
  BufferPool,
  DEFAULT_POOL_BYTES,
  getDefaultCacheSize,
  LoomError,
  LruCache,
  sizeClass,
  type BufferPoolStats,
} from '@loom/core';
import { ParameterArena, type CudaKernelArgument } from './arguments.ts';
import { CudaBuffer } from './buffer.ts';

import { compileImage } from './compile.ts';
import * as CU from './constants.ts';
import { loadDriver, type DriverApi, type Handle } from './driver.ts';
import { cudaError, describeResult } from './errors.ts';
import { cudaVersionString, describeDevice, type CudaDeviceInfo } from './info.ts';
import { CudaModule, type CudaFunction } from './module.ts';
import { tensorMapEncoding, type TensorMapView } from './tensor-maps.ts';
import { checkBlock, checkGrid } from './launch-geometry.ts';
import type { Koffi } from './native.ts';
import { chooseArchitecture, loadNvrtc, type Nvrtc } from './nvrtc.ts';

/** Which device, and how much the context keeps. */
export interface CudaContextOptions {
  /** The device: its ordinal, or a pattern its name matches (a string as a case-insensitive substring); default the first. */
  device?: number | string | RegExp;
  /** How many compiled modules the context keeps (least recently used dropped first); default `getDefaultCacheSize()`. */
  cacheSize?: number;
  /** How many bytes of released buffers the context keeps to reuse (`BufferPool`); default `DEFAULT_POOL_BYTES` (1 GiB), 0 for none. */
  bufferPoolBytes?: number;
}

/** The CUcontext last made current on this thread (`cuCtxSetCurrent`), so that it is set only when it changes. */
let currentContext: Handle | undefined;

/** What `open` found: the libraries, the device and what to compile for it. */
interface Opening {
  readonly api: DriverApi;
  readonly koffi: Koffi;
  readonly nvrtc: Nvrtc;
  readonly ordinal: number;
  readonly name: string;
  readonly architecture: { readonly option: string; readonly output: 'cubin' | 'ptx' };
}

/** One CUDA device's primary context, with NVRTC to compile for it, and the modules and buffers made there. */
export class CudaContext {
  static #lastFailure: string | undefined;

  /** Opens the primary context of the device that matches `options`, or returns undefined when CUDA or such a device is not there. */
  static open(options: CudaContextOptions = {}): CudaContext | undefined {
    const failed = (reason: string) => {
      CudaContext.#lastFailure = reason;
      return undefined;
    };
    const found = findDevice(options);
    if (typeof found === 'string') return failed(found);
    try {
      const context = new CudaContext(
        found,
        options.cacheSize ?? getDefaultCacheSize(),
        options.bufferPoolBytes ?? DEFAULT_POOL_BYTES,
      );
      CudaContext.#lastFailure = undefined;
      return context;
    } catch (e) {
      return failed(`CUDA could not be set up: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
    }
  }

  /** Why the last `open()` returned undefined (one line); undefined when it succeeded or was never called. */
  static unavailableReason(): string | undefined {
    return CudaContext.#lastFailure;
  }

  /** What is known of the device the context runs on. */
  readonly info: CudaDeviceInfo;
  readonly #api: DriverApi;
  readonly #koffi: Koffi;
  readonly #nvrtc: Nvrtc;
  readonly #ordinal: number;
  readonly #architecture: Opening['architecture'];
  /** The primary context; undefined once disposed. */
  #context: Handle | undefined;
  /** Compiled modules by options and source, the recently used ones (a dropped one is unloaded once unreachable). */
  readonly #modules: LruCache<string, CudaModule>;
  /** Every module not yet unloaded, cached or not: disposing unloads them all. */
  readonly #liveModules = new Set<WeakRef<CudaModule>>();
  readonly #buffers = new Set<WeakRef<CudaBuffer>>();
  /** Released allocations, by size class, for `createBuffer` to hand out again. */
  readonly #pool: BufferPool<bigint>;
  readonly #arena: ParameterArena;
  /** The two events `timeQueued` records, made on its first call; destroyed with the context. */
  #timingEvents: readonly [Handle, Handle] | undefined;

  private constructor(found: Opening, cacheSize: number, poolBytes: number) {
    const { api, koffi, nvrtc, ordinal } = found;
    this.#api = api;
    this.#koffi = koffi;
    this.#nvrtc = nvrtc;
    this.#ordinal = ordinal;
    this.#architecture = found.architecture;
    this.#modules = new LruCache(cacheSize);
    this.#arena = new ParameterArena(koffi);
    this.#pool = new BufferPool(poolBytes, (pointer) => {
      // nobody to report to (a release, a finalizer): the result is deliberately ignored
      if (this.#context !== undefined && this.#makeCurrent()) api.cuMemFree_v2(pointer);
    });
    const cell = new BigUint64Array(1);
    this.#check('cuDevicePrimaryCtxRetain', api.cuDevicePrimaryCtxRetain(cell, ordinal));
    this.#context = cell[0];
    try {
      this.#makeCurrent();
      this.info = this.#readInfo(found);
    } catch (e) {
      api.cuDevicePrimaryCtxRelease_v2(ordinal);
      this.#context = undefined;
      throw e;
    }
  }

  // --- modules --------------------------------------------------------------------------------

  /**
   * Compiles CUDA C++ source with NVRTC for this device (its architecture, C++17, CUDA's include
   * folder, then `options`, whose `--gpu-architecture` replaces the device's) and loads it. The same source and options give back the same module
   * without compiling again. A compile error throws a `CudaCompileError` whose message holds
   * NVRTC's log and the source line it blames.
   */
  buildModule(source: string, options: readonly string[] = []): CudaModule {
    this.#live('buildModule');
    if (typeof source !== 'string')
      throw new LoomError(`buildModule: the source must be a string, got ${typeof source}`);
    const key = `${options.join('\u0000')}\u0001${source}`;
    const cached = this.#modules.get(key);
    if (cached) return cached;
    // an architecture among the options (`sm_90a` for wgmma) replaces the device's own
    const own = options.some((o) => o.startsWith('--gpu-architecture='));
    const all = [...this.compileOptions().filter((o) => !own || !o.startsWith('--gpu-architecture=')), ...options];
    const { image, output, log } = compileImage(this.#nvrtc, source, all, this.#architecture.output);
    this.#makeCurrent();
    const cell = new BigUint64Array(1);
    // PTX is loaded as a NUL-terminated string: NVRTC's PTX ends in its NUL already
    this.#check(
      'cuModuleLoadData',
      this.#api.cuModuleLoadData(cell, image),
      () => `loading the ${output} NVRTC made for ${this.#architecture.option}`,
    );
    const natives = { lookup: this.#lookupFunction, unload: this.#unloadModule };
    const module = new CudaModule(this, cell[0], natives, source, all, log, this.#liveModules);
    this.#modules.set(key, module);
    return module;
  }

  /**
   * The options every compile starts with: the device's architecture, C++17 (what the generated
   * code is written in), and CUDA's include folder where one was found (for `cuda_fp16.h`).
   * NVRTC's own defaults stand otherwise: IEEE-rounded float32 division and square root, no
   * flushing of subnormals, and multiply-adds contracted to fused ones, as NVIDIA's OpenCL does.
   */
  compileOptions(): string[] {
    const include = this.#nvrtc.includeDir ? [`--include-path=${this.#nvrtc.includeDir}`] : [];
    return [this.#architecture.option, '-std=c++17', ...include];
  }

  /** Finds a kernel of a loaded module and reads what the driver says about it. */
  readonly #lookupFunction = (module: bigint, name: string): CudaFunction => {
    this.#live(`kernel '${name}'`);
    this.#makeCurrent();
    const cell = new BigUint64Array(1);
    const code = this.#api.cuModuleGetFunction(cell, module, name);
    if (code === CU.CUDA_ERROR_NOT_FOUND) {
      throw new LoomError(
        `the module has no kernel '${name}' (the driver finds a kernel by its name as declared: is it extern "C" __global__?)`,
      );
    }
    this.#check('cuModuleGetFunction', code, () => `kernel '${name}'`);
    const handle = cell[0];
    const attribute = (which: number) => {
      const value = new Int32Array(1);
      this.#check('cuFuncGetAttribute', this.#api.cuFuncGetAttribute(value, which, handle), () => `kernel '${name}'`);
      return value[0];
    };
    return {
      name,
      handle,
      maxThreadsPerBlock: attribute(CU.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
      registers: attribute(CU.CU_FUNC_ATTRIBUTE_NUM_REGS),
      staticSharedBytes: attribute(CU.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
      parameterSizes: this.#parameterSizes(handle),
    };
  };

  /** Each parameter's bytes, from cuFuncGetParamInfo (which answers CUDA_ERROR_INVALID_VALUE past the last); undefined where the driver cannot say. */
  #parameterSizes(fn: bigint): number[] | undefined {
    const get = this.#api.cuFuncGetParamInfo;
    if (!get) return undefined;
    const offset = new BigUint64Array(1);
    const size = new BigUint64Array(1);
    const sizes: number[] = [];
    for (let k = 0; k < 4096; k++) {
      const code = get(fn, k, offset, size);
      if (code === CU.CUDA_ERROR_INVALID_VALUE) return sizes;
      if (code !== CU.CUDA_SUCCESS) return undefined;
      sizes.push(Number(size[0]));
    }
    return undefined;
  }

  /** Unloads a module, once its kernels have finished (nobody to report to: the results are ignored). */
  readonly #unloadModule = (module: bigint): void => {
    if (this.#context === undefined || !this.#makeCurrent()) return;
    this.#api.cuCtxSynchronize();
    this.#api.cuModuleUnload(module);
  };

  // --- tensor maps ----------------------------------------------------------------------------

  /**
   * A tensor map (CUtensorMap's 128 bytes) viewing `buffer` as the axes of `view` (the first
   * contiguous; strides in elements; the last axis's extent, where absent, as many of its strides
   * as the buffer holds), read in boxes of `box` elements along each axis, swizzled as `view` says; what
   * a kernel's bulk copies take as a parameter. A LoomError where the driver has no tensor maps
   * (before CUDA 12) or refuses the view.
   */
  encodeTensorMap(buffer: CudaBuffer, view: TensorMapView, use: string): Uint8Array {
    this.#makeCurrent();
    const encode = this.#api.cuTensorMapEncodeTiled;
    if (!encode) throw new LoomError(`${use}: this CUDA driver has no tensor maps (cuTensorMapEncodeTiled, CUDA 12)`);
    const e = tensorMapEncoding(view, buffer.byteLength, use);
    const map = new Uint8Array(128);
    const address = pointerOf(this, buffer, use);
    // no interleaving, L2 promotion of 128 bytes, zeros past the extents
    const code = encode(
      map,
      e.dataType,
      e.rank,
      address,
      e.dims,
      e.strides,
      e.box,
      e.elementStrides,
      0,
      e.swizzle,
      2,
      0,
    );
    this.#check('cuTensorMapEncodeTiled', code, () => `${use}: ${e.description}`);
    return map;
  }

  // --- buffers --------------------------------------------------------------------------------

  /**
   * Device memory of `byteLength` bytes, contents undefined (a released buffer's memory is
   * handed out again: see `poolStats`). A zero-byte buffer is allowed.
   */
  createBuffer(byteLength: number): CudaBuffer {
    this.#live('createBuffer');
    if (!Number.isSafeInteger(byteLength) || byteLength < 0) {
      throw new LoomError(`createBuffer: the size must be a whole number of bytes, got ${byteLength}`);
    }
    if (byteLength > this.info.totalMemory) {
      throw new LoomError(
        `createBuffer: ${byteLength} bytes exceed the device's memory (${this.info.totalMemory} bytes)`,
      );
    }
    // a size class, unless that would pass the device's memory; CUDA refuses 0 bytes, and the
    // class of 0 bytes stands in, never read or written
    const classBytes = sizeClass(byteLength);
    const bytes = classBytes <= this.info.totalMemory ? classBytes : byteLength;
    const allocate = (): bigint => {
      this.#makeCurrent();
      const cell = new BigUint64Array(1);
      this.#check('cuMemAlloc_v2', this.#api.cuMemAlloc_v2(cell, bytes), () => `${byteLength} bytes`);
      return cell[0];
    };
    let pointer = this.#pool.take(bytes);
    if (pointer === undefined) {
      try {
        pointer = allocate();
      } catch (e) {
        if (this.#pool.stats().pooledBuffers === 0) throw e;
        // out of memory, perhaps because of what the pool holds: free it and try once more
        this.#pool.clear();
        pointer = allocate();
      }
    }
    return new CudaBuffer(this, byteLength, pointer, bytes, this.#recycle, this.#buffers);
  }

  /** Where released buffers go: back to the pool while the context lives, freed afterwards. */
  readonly #recycle = (pointer: bigint, bytes: number): void => this.#pool.give(pointer, bytes);

  /** The pool of released buffers: how many it holds, and how often it served an allocation. */
  poolStats(): BufferPoolStats {
    return this.#pool.stats();
  }

  /** Frees the pooled buffers now (the context's live buffers stay). */
  trimPool(): void {
    this.#pool.clear();
  }

  /** Copies `data` into the buffer at `offsetBytes`, after the work queued before; the data may be reused when it returns. */
  write(buffer: CudaBuffer, data: ArrayBufferView, offsetBytes = 0): void {
    this.#live('write');
    const pointer = pointerOf(this, buffer, 'write');
    const bytes = asBytes(data, 'write');
    checkRange('write', buffer, offsetBytes, bytes.byteLength);
    if (bytes.byteLength === 0) return;
    this.#makeCurrent();
    this.#check('cuMemcpyHtoD_v2', this.#api.cuMemcpyHtoD_v2(pointer + BigInt(offsetBytes), bytes, bytes.byteLength));
  }

  /**
   * Copies `into.byteLength` bytes from the buffer, starting at `offsetBytes`, into `into` (which
   * may be a view into a larger array); returns when they have arrived, after all queued work.
   */
  read(buffer: CudaBuffer, into: ArrayBufferView, offsetBytes = 0): void {
    this.#live('read');
    const pointer = pointerOf(this, buffer, 'read');
    const bytes = asBytes(into, 'read');
    checkRange('read', buffer, offsetBytes, bytes.byteLength);
    if (bytes.byteLength === 0) return;
    this.#makeCurrent();
    this.#check('cuMemcpyDtoH_v2', this.#api.cuMemcpyDtoH_v2(bytes, pointer + BigInt(offsetBytes), bytes.byteLength));
  }

  // --- kernels --------------------------------------------------------------------------------

  /**
   * Queues `kernelName` from `module` over a grid of `groupCount` blocks (1 to 3 axes, x first)
   * of `blockSize` threads each, with `args` for its parameters and `sharedBytes` of dynamic
   * shared memory per block (its `extern __shared__` array); returns once queued. An empty
   * grid (a 0 in `groupCount`) runs nothing. The sizes are checked against the device's and
   * the kernel's limits first, so that the driver never answers with a bare error code.
   */
  launch(
    module: CudaModule,
    kernelName: string,
    args: readonly CudaKernelArgument[],
    groupCount: readonly number[],
    blockSize: readonly number[],
    sharedBytes = 0,
  ): void {
    this.#live('launch');
    const where = `launch of kernel '${kernelName}'`;
    if (!(module instanceof CudaModule)) throw new LoomError(`${where}: expected a CudaModule from buildModule`);
    if (module.context !== this) throw new LoomError(`${where}: the module was built by another CudaContext`);
    const fn = module.kernel(kernelName);
    const grid = checkGrid(where, groupCount, this.info.maxGridSizes);
    const block = checkBlock(where, blockSize, groupCount.length, this.info, fn);
    const parameters = this.#arena.pack(this, fn, args);
    if (grid.some((n) => n === 0)) return;
    if (sharedBytes > 0) this.#allowDynamicShared(fn, sharedBytes, where);
    this.#makeCurrent();
    const code = this.#api.cuLaunchKernel(
      fn.handle,
      grid[0],
      grid[1],
      grid[2],
      block[0],
      block[1],
      block[2],
      sharedBytes,
      null,
      parameters,
      null,
    );
    this.#check(
      'cuLaunchKernel',
      code,
      () => `${where} over [${groupCount.join(', ')}] blocks of [${blockSize.join(', ')}] threads`,
    );
  }

  /** The dynamic shared memory each function was opted in to (`#allowDynamicShared`). */
  readonly #dynamicSharedAllowed = new WeakMap<CudaFunction, number>();

  /**
   * Opts `fn` in to `bytes` of dynamic shared memory per block, once for the largest asked: by
   * default a block may use 48 KiB in all, static and dynamic; past that up to the device's
   * opt-in limit (227 KiB on an H100). Beyond it, a LoomError before the driver answers.
   */
  #allowDynamicShared(fn: CudaFunction, bytes: number, where: string): void {
    if (bytes <= (this.#dynamicSharedAllowed.get(fn) ?? 0)) return;
    const limit = this.info.sharedMemoryPerBlockOptin;
    if (fn.staticSharedBytes + bytes > limit)
      throw new LoomError(
        `${where}: ${bytes} bytes of dynamic shared memory (and ${fn.staticSharedBytes} static) exceed the ${limit} a block may use on ${this.info.name}`,
      );
    this.#makeCurrent();
    this.#check(
      'cuFuncSetAttribute',
      this.#api.cuFuncSetAttribute(fn.handle, CU.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
      () => `${where}: opting in to ${bytes} bytes of dynamic shared memory`,
    );
    this.#dynamicSharedAllowed.set(fn, bytes);
  }

  /** Waits until everything queued has finished (and reports a kernel's failure, if one failed). */
  synchronize(): void {
    this.#live('synchronize');
    this.#makeCurrent();
    this.#check('cuCtxSynchronize', this.#api.cuCtxSynchronize());
  }

  // --- timing ---------------------------------------------------------------------------------

  /**
   * The GPU time, in milliseconds, of the work `queue` puts on the device: an event recorded on
   * the default stream before and one after it, the second waited for, and the time between
   * them (the driver's resolution is about half a microsecond). Work queued before runs first
   * and is not counted; the host's time to queue is counted only where the device waited for it.
   */
  timeQueued(queue: () => void): number {
    this.#live('timeQueued');
    this.#makeCurrent();
    const [start, end] = this.#events();
    this.#check('cuEventRecord', this.#api.cuEventRecord(start, null));
    queue();
    this.#makeCurrent();
    this.#check('cuEventRecord', this.#api.cuEventRecord(end, null));
    this.#check('cuEventSynchronize', this.#api.cuEventSynchronize(end));
    const milliseconds = new Float32Array(1);
    this.#check('cuEventElapsedTime', this.#api.cuEventElapsedTime(milliseconds, start, end));
    return milliseconds[0];
  }

  /** The start and end events of `timeQueued`, made once (events with timing, CU_EVENT_DEFAULT). */
  #events(): readonly [Handle, Handle] {
    if (this.#timingEvents) return this.#timingEvents;
    const make = () => {
      const cell = new BigUint64Array(1);
      this.#check('cuEventCreate', this.#api.cuEventCreate(cell, CU.CU_EVENT_DEFAULT));
      return cell[0];
    };
    const start = make();
    try {
      this.#timingEvents = [start, make()];
    } catch (e) {
      this.#api.cuEventDestroy_v2(start);
      throw e;
    }
    return this.#timingEvents;
  }

  // --- lifetime -------------------------------------------------------------------------------

  /** How many modules the cache holds, how many are loaded in all (cached or still held elsewhere), and live buffers. */
  cacheStats(): { modules: number; liveModules: number; buffers: number } {
    return { modules: this.#modules.size, liveModules: this.#liveModules.size, buffers: this.#buffers.size };
  }

  /** Whether `dispose()` was called; a disposed context refuses every use with a LoomError. */
  get disposed(): boolean {
    return this.#context === undefined;
  }

  /** Waits for the device, unloads every module, frees every buffer, then releases the primary context. */
  dispose(): void {
    if (this.#context === undefined) return;
    // nobody to report to: a failed kernel's error was (or will not be) reported elsewhere
    if (this.#makeCurrent()) this.#api.cuCtxSynchronize();
    for (const ref of [...this.#liveModules]) ref.deref()?.release();
    this.#liveModules.clear();
    this.#modules.clear();
    // closed first: the live buffers released next are freed, not pooled
    this.#pool.clear(true);
    for (const ref of [...this.#buffers]) ref.deref()?.release();
    this.#buffers.clear();
    this.#arena.free();
    for (const event of this.#timingEvents ?? []) this.#api.cuEventDestroy_v2(event);
    this.#timingEvents = undefined;
    this.#api.cuDevicePrimaryCtxRelease_v2(this.#ordinal);
    if (currentContext === this.#context) currentContext = undefined;
    this.#context = undefined;
  }

  /** `CudaContext(NVIDIA H200, sm_90)`, `, disposed` added once it is. */
  toString(): string {
    return `CudaContext(${this.info.name}, ${this.info.architecture}${this.disposed ? ', disposed' : ''})`;
  }

  // --- the driver -----------------------------------------------------------------------------

  /** Throws a LoomError naming `use` once the context is disposed. */
  #live(use: string): void {
    if (this.#context === undefined) throw new LoomError(`${use}: the CudaContext was disposed`);
  }

  /** Makes this context current, unless it is already; false when the driver refuses (nothing to report it to). */
  #makeCurrent(): boolean {
    if (this.#context === undefined) return false;
    if (currentContext === this.#context) return true;
    const code = this.#api.cuCtxSetCurrent(this.#context);
    if (code !== CU.CUDA_SUCCESS) return false;
    currentContext = this.#context;
    return true;
  }

  /** Throws a `CudaError` unless `code` is CUDA_SUCCESS; `detail` is only evaluated on failure. */
  #check(call: string, code: number, detail?: () => string): void {
    if (code !== CU.CUDA_SUCCESS) throw cudaError(this.#api, this.#koffi, call, code, detail?.());
  }

  #readInfo(found: Opening): CudaDeviceInfo {
    const { api, ordinal } = found;
    const attribute = (which: number) => {
      const value = new Int32Array(1);
      this.#check('cuDeviceGetAttribute', api.cuDeviceGetAttribute(value, which, ordinal), () => `attribute ${which}`);
      return value[0];
    };
    const version = new Int32Array(1);
    this.#check('cuDriverGetVersion', api.cuDriverGetVersion(version));
    const memory = new BigUint64Array(1);
    this.#check('cuDeviceTotalMem_v2', api.cuDeviceTotalMem_v2(memory, ordinal));
    return describeDevice(attribute, {
      ordinal,
      name: found.name,
      driverVersion: cudaVersionString(version[0]),
      nvrtcVersion: found.nvrtc.version.join('.'),
      architecture: found.architecture.option.replace('--gpu-architecture=', ''),
      totalMemory: Number(memory[0]),
    });
  }
}

// --- choosing a device ------------------------------------------------------------------------

/** The device `open()` should use, or a one-line reason why there is none. */
function findDevice(options: CudaContextOptions): Opening | string {
  const driver = loadDriver();
  const compiler = loadNvrtc();
  if ('failure' in driver) return 'failure' in compiler ? `${driver.failure}; and ${compiler.failure}` : driver.failure;
  const { api, koffi } = driver;
  const describe = (call: string, code: number) => {
    const { name, description } = describeResult(api, koffi, code);
    return `${call} failed: ${name}${description ? ` (${description})` : ''}`;
  };
  const init = api.cuInit(0);
  if (init === CU.CUDA_ERROR_NO_DEVICE)
    return 'the CUDA driver found no CUDA-capable device (cuInit: CUDA_ERROR_NO_DEVICE)';
  if (init !== CU.CUDA_SUCCESS) return describe('cuInit', init);
  if ('failure' in compiler) return compiler.failure;
  const { nvrtc } = compiler;

  const count = new Int32Array(1);
  const counted = api.cuDeviceGetCount(count);
  if (counted !== CU.CUDA_SUCCESS) return describe('cuDeviceGetCount', counted);
  if (count[0] === 0) return 'the CUDA driver found no CUDA-capable device';
  const devices: { ordinal: number; name: string; prohibited: boolean }[] = [];
  for (let ordinal = 0; ordinal < count[0]; ordinal++) {
    const cell = new Int32Array(1);
    const got = api.cuDeviceGet(cell, ordinal);
    if (got !== CU.CUDA_SUCCESS) return describe('cuDeviceGet', got);
    const name = new Uint8Array(256);
    const named = api.cuDeviceGetName(name, name.length, cell[0]);
    if (named !== CU.CUDA_SUCCESS) return describe('cuDeviceGetName', named);
    const mode = new Int32Array(1);
    api.cuDeviceGetAttribute(mode, CU.CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, cell[0]);
    devices.push({ ordinal: cell[0], name: cString(name), prohibited: mode[0] === CU.CU_COMPUTEMODE_PROHIBITED });
  }
  const matching = devices.filter((d, k) => matches(d.name, k, options.device));
  const usable = matching.find((d) => !d.prohibited);
  const found = devices.map((d, k) => `${k}: ${d.name}${d.prohibited ? ' (compute mode prohibited)' : ''}`).join('; ');
  if (!usable)
    return matching.length > 0
      ? `no usable CUDA device matches device ${String(options.device)}; found ${found}`
      : `no CUDA device matches device ${String(options.device)}; found ${found}`;

  const major = new Int32Array(1);
  const minor = new Int32Array(1);
  const a = api.cuDeviceGetAttribute(major, CU.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, usable.ordinal);
  const b = api.cuDeviceGetAttribute(minor, CU.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, usable.ordinal);
  if (a !== CU.CUDA_SUCCESS || b !== CU.CUDA_SUCCESS)
    return describe('cuDeviceGetAttribute', a !== CU.CUDA_SUCCESS ? a : b);
  const architecture = chooseArchitecture(nvrtc, major[0], minor[0]);
  if (typeof architecture === 'string') return architecture;
  return { api, koffi, nvrtc, ordinal: usable.ordinal, name: usable.name, architecture };
}

function matches(name: string, ordinal: number, pattern: number | string | RegExp | undefined): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === 'number') return ordinal === pattern;
  if (typeof pattern === 'string') return name.toLowerCase().includes(pattern.toLowerCase());
  pattern.lastIndex = 0; // a /g or /y pattern keeps state between test() calls
  return pattern.test(name);
}

// --- small checks -----------------------------------------------------------------------------

function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end)).trim();
}

function pointerOf(context: CudaContext, buffer: CudaBuffer, use: string): bigint {
  if (!(buffer instanceof CudaBuffer)) throw new LoomError(`${use}: expected a CudaBuffer from createBuffer`);
  return buffer.handleFor(context, use);
}

function asBytes(view: ArrayBufferView, use: string): Uint8Array {
  if (!ArrayBuffer.isView(view)) throw new LoomError(`${use}: expected a typed array or DataView, got ${typeof view}`);
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function checkRange(use: string, buffer: CudaBuffer, offset: number, byteLength: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new LoomError(`${use}: the offset must be a whole number of bytes, got ${offset}`);
  if (offset + byteLength > buffer.byteLength) {
    throw new LoomError(
      `${use}: bytes ${offset} .. ${offset + byteLength} are outside the ${buffer.byteLength}-byte buffer`,
    );
  }
}
