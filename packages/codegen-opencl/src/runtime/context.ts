/**
 * `OpenCLContext`: one device, one in-order command queue, and the programs and buffers made on them.
 *
 * Everything here is synchronous. Reads and writes block until the data has moved; launches are
 * queued, and the queue's order guarantees a later read sees their results. `finish()` waits for
 * everything, and `launchTimed()` (`launchSequenceTimed()`) waits for its own kernel (kernels) to
 * report the device's timing.
 *
 * Opening never throws: without a library, a platform or a matching device, `open()` returns
 * undefined and `OpenCLContext.unavailableReason()` says why in one line, so callers (tests,
 * `openclDevice()`) can decide between skipping and failing. Everything after opening reports
 * problems as `LoomError`s.
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
import { loadOpenCLApi, type Handle, type OpenCLApi } from './bindings.ts';
import * as CL from './constants.ts';
import { check, created, errorName } from './errors.ts';
import {
  deviceAvailable,
  deviceString,
  deviceType,
  parseVersion,
  platformString,
  readDeviceInfo,
  type DeviceType,
  type OpenCLDeviceInfo,
} from './info.ts';
import { imageFromBuffer } from './images.ts';
import { setArgument, type KernelArgument } from './arguments.ts';
import { OpenCLBuffer } from './buffer.ts';
import { compileProgram, OpenCLProgram } from './program.ts';

/** One launch of `launchSequenceTimed`: the arguments `launch` takes. */
export interface OpenCLLaunch {
  readonly program: OpenCLProgram;
  readonly kernelName: string;
  readonly args: readonly KernelArgument[];
  readonly globalSize: readonly number[];
  readonly localSize?: readonly number[];
}

export interface OpenCLContextOptions {
  /** Keep platforms whose name matches (a string matches as a case-insensitive substring). */
  platform?: string | RegExp;
  /** Keep devices whose name matches (a string matches as a case-insensitive substring). */
  device?: string | RegExp;
  /** Which kind of device; 'all' (the default) still prefers a GPU when there is one. */
  type?: 'gpu' | 'cpu' | 'all';
  /** How many built programs the context keeps (least recently used dropped first); default `getDefaultCacheSize()`. */
  cacheSize?: number;
  /** How many bytes of released buffers the context keeps to reuse (`BufferPool`); default `DEFAULT_POOL_BYTES` (1 GiB), 0 for none. */
  bufferPoolBytes?: number;
}

/** A device found while opening, before any context exists for it. */
interface Candidate {
  platform: Handle;
  device: Handle;
  platformName: string;
  deviceName: string;
  type: DeviceType;
}

const PREFERENCE: DeviceType[] = ['gpu', 'accelerator', 'cpu', 'other'];

export class OpenCLContext {
  static #lastFailure: string | undefined;

  /**
   * Opens a context on the first device that matches `options` (GPUs before other devices), or
   * returns undefined when OpenCL or such a device is not there.
   */
  static open(options: OpenCLContextOptions = {}): OpenCLContext | undefined {
    const failed = (reason: string) => {
      OpenCLContext.#lastFailure = reason;
      return undefined;
    };
    const loaded = loadOpenCLApi();
    if ('failure' in loaded) return failed(loaded.failure);
    try {
      const choice = chooseDevice(loaded.api, options);
      if (typeof choice === 'string') return failed(choice);
      const context = new OpenCLContext(
        loaded.api,
        choice.platform,
        choice.device,
        options.cacheSize ?? getDefaultCacheSize(),
        options.bufferPoolBytes ?? DEFAULT_POOL_BYTES,
      );
      OpenCLContext.#lastFailure = undefined;
      return context;
    } catch (e) {
      return failed(`OpenCL could not be set up: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
    }
  }

  /** Why the last `open()` returned undefined (one line); undefined when it succeeded or was never called. */
  static unavailableReason(): string | undefined {
    return OpenCLContext.#lastFailure;
  }

  /** What is known of the device the context runs on. */
  readonly info: OpenCLDeviceInfo;
  readonly #api: OpenCLApi;
  readonly #device: Handle;
  #context: Handle | undefined;
  #queue: Handle | undefined;
  /** Built programs by options and source, the recently used ones (a dropped one is released once unreachable). */
  readonly #programs: LruCache<string, OpenCLProgram>;
  /** Every program not yet released, cached or not: disposing releases them all. */
  readonly #livePrograms = new Set<WeakRef<OpenCLProgram>>();
  readonly #buffers = new Set<WeakRef<OpenCLBuffer>>();
  /** Released cl_mems, by size class, for `createBuffer` to hand out again. */
  readonly #pool: BufferPool<Handle>;
  /**
   * Counts the cl_mems freed for good. A kernel remembers what each argument was last set to
   * (`setArgument` skips setting it again); a freed handle's number may come back for a new
   * cl_mem, so a remembered buffer argument is only trusted within its generation.
   */
  #freedGeneration = 0;

  private constructor(api: OpenCLApi, platform: Handle, device: Handle, cacheSize: number, poolBytes: number) {
    this.#programs = new LruCache(cacheSize);
    this.#pool = new BufferPool(poolBytes, (handle) => {
      this.#freedGeneration++;
      // nobody to report to (a release, a finalizer): the return code is deliberately ignored
      this.#api.clReleaseMemObject(handle);
    });
    this.#api = api;
    this.#device = device;
    this.info = readDeviceInfo(api, platform, device);
    const context = created('clCreateContext', (error) =>
      api.clCreateContext(null, 1, new BigUint64Array([device]), null, null, error),
    );
    try {
      this.#queue = createProfilingQueue(api, context, device, this.info.version);
    } catch (e) {
      api.clReleaseContext(context);
      throw e;
    }
    this.#context = context;
  }

  // --- programs -------------------------------------------------------------------------------

  /**
   * Compiles OpenCL C source (with compiler options such as `-cl-fast-relaxed-math`). The same source
   * and options give back the same program without compiling again. A compile error throws an
   * `OpenCLBuildError` whose message holds the compiler's log and the source line it blames.
   */
  buildProgram(source: string, options: readonly string[] = []): OpenCLProgram {
    const context = this.#contextFor('buildProgram');
    const key = `${options.join('\u0000')}\u0001${source}`;
    const cached = this.#programs.get(key);
    if (cached) return cached;
    const { handle, buildLog } = compileProgram(this.#api, context, this.#device, source, options);
    const program = new OpenCLProgram(this, this.#api, handle, source, [...options], buildLog, this.#livePrograms);
    this.#programs.set(key, program);
    return program;
  }

  // --- buffers --------------------------------------------------------------------------------

  /**
   * Device memory of `byteLength` bytes, contents undefined (a released buffer's memory is
   * handed out again: see `poolStats`). A zero-byte buffer is allowed.
   */
  createBuffer(byteLength: number): OpenCLBuffer {
    const context = this.#contextFor('createBuffer');
    if (!Number.isSafeInteger(byteLength) || byteLength < 0) {
      throw new LoomError(`createBuffer: the size must be a whole number of bytes, got ${byteLength}`);
    }
    if (byteLength > this.info.maxMemAllocSize) {
      throw new LoomError(
        `createBuffer: ${byteLength} bytes exceed the device's largest allocation (${this.info.maxMemAllocSize} bytes)`,
      );
    }
    // a size class, unless that would pass the largest allocation; OpenCL refuses size 0
    // (CL_INVALID_BUFFER_SIZE), and the class of 0 bytes stands in, never read or written
    const classBytes = sizeClass(byteLength);
    const bytes = classBytes <= this.info.maxMemAllocSize ? classBytes : byteLength;
    const create = () =>
      created(
        'clCreateBuffer',
        (error) => this.#api.clCreateBuffer(context, CL.CL_MEM_READ_WRITE, bytes, null, error),
        () => `${byteLength} bytes`,
      );
    let handle = this.#pool.take(bytes);
    if (handle === undefined) {
      try {
        handle = create();
      } catch (e) {
        if (this.#pool.stats().pooledBuffers === 0) throw e;
        // out of memory, perhaps because of what the pool holds: free it and try once more
        this.#pool.clear();
        handle = create();
      }
    }
    return new OpenCLBuffer(this, byteLength, handle, bytes, this.#recycle, this.#buffers);
  }

  /** Where released buffers go: back to the pool while the context lives, freed afterwards. */
  readonly #recycle = (handle: Handle, bytes: number): void => this.#pool.give(handle, bytes);

  /** The pool of released buffers: how many it holds, and how often it served an allocation. */
  poolStats(): BufferPoolStats {
    return this.#pool.stats();
  }

  /** Frees the pooled buffers now (the context's live buffers stay). */
  trimPool(): void {
    this.#pool.clear();
  }

  /** A buffer holding a copy of `data`. */
  createBufferFrom(data: ArrayBufferView): OpenCLBuffer {
    const buffer = this.createBuffer(data.byteLength);
    this.write(buffer, data);
    return buffer;
  }

  /** Copies `data` into the buffer at `offsetBytes`; returns when the copy is done. */
  write(buffer: OpenCLBuffer, data: ArrayBufferView, offsetBytes = 0): void {
    const queue = this.#queueFor('write');
    const handle = buffer.handleFor(this, 'write');
    const bytes = asBytes(data, 'write');
    checkRange('write', buffer, offsetBytes, bytes.byteLength);
    if (bytes.byteLength === 0) return;
    check(
      'clEnqueueWriteBuffer',
      this.#api.clEnqueueWriteBuffer(queue, handle, CL.CL_TRUE, offsetBytes, bytes.byteLength, bytes, 0, null, null),
    );
  }

  /**
   * Copies `into.byteLength` bytes from the buffer, starting at `offsetBytes`, into `into` (which may
   * be a view into a larger array); returns when they have arrived, after all queued work.
   */
  read(buffer: OpenCLBuffer, into: ArrayBufferView, offsetBytes = 0): void {
    const queue = this.#queueFor('read');
    const handle = buffer.handleFor(this, 'read');
    const bytes = asBytes(into, 'read');
    checkRange('read', buffer, offsetBytes, bytes.byteLength);
    if (bytes.byteLength === 0) return;
    check(
      'clEnqueueReadBuffer',
      this.#api.clEnqueueReadBuffer(queue, handle, CL.CL_TRUE, offsetBytes, bytes.byteLength, bytes, 0, null, null),
    );
  }

  /**
   * Fills the whole buffer with a repeated pattern: a byte value (0 by default) or the bytes of a view
   * (1, 2, 4, ... 128 bytes, as OpenCL requires, e.g. `new Float32Array([1])`).
   */
  fill(buffer: OpenCLBuffer, pattern: number | ArrayBufferView = 0): void {
    const queue = this.#queueFor('fill');
    const handle = buffer.handleFor(this, 'fill');
    const bytes = typeof pattern === 'number' ? bytePattern(pattern) : asBytes(pattern, 'fill');
    const size = bytes.byteLength;
    if (size === 0 || size > 128 || (size & (size - 1)) !== 0) {
      throw new LoomError(`fill: the pattern must be 1, 2, 4, 8, 16, 32, 64 or 128 bytes, got ${size}`);
    }
    if (buffer.byteLength % size !== 0) {
      throw new LoomError(`fill: a ${buffer.byteLength}-byte buffer is not a whole number of ${size}-byte patterns`);
    }
    if (buffer.byteLength === 0) return;
    check(
      'clEnqueueFillBuffer',
      this.#api.clEnqueueFillBuffer(queue, handle, bytes, size, 0, buffer.byteLength, 0, null, null),
    );
  }

  /** Queues a device-side copy of `byteLength` bytes (by default, the rest of `source`). */
  copy(
    source: OpenCLBuffer,
    target: OpenCLBuffer,
    options: { byteLength?: number; sourceOffset?: number; targetOffset?: number } = {},
  ): void {
    const queue = this.#queueFor('copy');
    const from = source.handleFor(this, 'copy');
    const to = target.handleFor(this, 'copy');
    const { sourceOffset = 0, targetOffset = 0 } = options;
    const byteLength = options.byteLength ?? source.byteLength - sourceOffset;
    checkRange('copy (from)', source, sourceOffset, byteLength);
    checkRange('copy (to)', target, targetOffset, byteLength);
    if (byteLength === 0) return;
    check(
      'clEnqueueCopyBuffer',
      this.#api.clEnqueueCopyBuffer(queue, from, to, sourceOffset, targetOffset, byteLength, 0, null, null),
    );
  }

  // --- kernels --------------------------------------------------------------------------------

  /**
   * Queues `kernelName` from `program` over an NDRange of `globalSize` work-items (1 to 3 dimensions),
   * in work-groups of `localSize` (the driver chooses when it is left out). Returns once queued.
   * An empty range (a 0 in `globalSize`) runs nothing.
   */
  launch(
    program: OpenCLProgram,
    kernelName: string,
    args: readonly KernelArgument[],
    globalSize: readonly number[],
    localSize?: readonly number[],
  ): void {
    this.#enqueue(program, kernelName, args, globalSize, localSize, null);
  }

  /**
   * Like `launch`, but waits for the kernel and returns how long it ran on the device, in nanoseconds
   * (from event profiling: the time between the command's start and end, excluding queueing).
   */
  launchTimed(
    program: OpenCLProgram,
    kernelName: string,
    args: readonly KernelArgument[],
    globalSize: readonly number[],
    localSize?: readonly number[],
  ): number {
    return this.launchSequenceTimed([{ program, kernelName, args, globalSize, localSize }]);
  }

  /**
   * Queues `launches` back to back, waits for them, and returns how long the device took from the
   * first one's start to the last one's end, in nanoseconds (event profiling): what CUDA events
   * around a stream's kernels measure, the gaps between the kernels included (the sum of each
   * launch's `launchTimed` leaves them out, and times each kernel from an idle device). Launches
   * of an empty range run nothing and are not counted; 0 when none runs.
   */
  launchSequenceTimed(launches: readonly OpenCLLaunch[]): number {
    const events: BigUint64Array[] = [];
    try {
      for (const l of launches) {
        const event = new BigUint64Array(1);
        if (this.#enqueue(l.program, l.kernelName, l.args, l.globalSize, l.localSize, event)) events.push(event);
      }
      if (events.length === 0) return 0;
      const [first, last] = [events[0]!, events.at(-1)!];
      check('clWaitForEvents', this.#api.clWaitForEvents(1, last));
      const start = new BigUint64Array(1);
      const end = new BigUint64Array(1);
      check(
        'clGetEventProfilingInfo',
        this.#api.clGetEventProfilingInfo(first[0], CL.CL_PROFILING_COMMAND_START, 8, start, null),
      );
      check(
        'clGetEventProfilingInfo',
        this.#api.clGetEventProfilingInfo(last[0], CL.CL_PROFILING_COMMAND_END, 8, end, null),
      );
      return Number(end[0] - start[0]);
    } finally {
      for (const event of events) this.#api.clReleaseEvent(event[0]);
    }
  }

  /** Waits until everything queued has finished. */
  finish(): void {
    check('clFinish', this.#api.clFinish(this.#queueFor('finish')));
  }

  /** Sets the arguments and queues the kernel; false when the range is empty and nothing was queued. */
  #enqueue(
    program: OpenCLProgram,
    kernelName: string,
    args: readonly KernelArgument[],
    globalSize: readonly number[],
    localSize: readonly number[] | undefined,
    event: BigUint64Array | null,
  ): boolean {
    const queue = this.#queueFor('launch');
    const where = `launch of kernel '${kernelName}'`;
    if (!(program instanceof OpenCLProgram))
      throw new LoomError(`${where}: expected an OpenCLProgram from buildProgram`);
    if (program.context !== this) throw new LoomError(`${where}: the program was built by another OpenCLContext`);
    if (!Array.isArray(args)) throw new LoomError(`${where}: the arguments must be an array`);
    checkNDRange(where, globalSize, localSize, this.info);
    const kernel = program.kernel(kernelName);
    if (args.length !== kernel.argumentCount) {
      throw new LoomError(`${where}: the kernel takes ${kernel.argumentCount} arguments, ${args.length} given`);
    }
    // the images made for this launch, released once it is queued (OpenCL keeps them until it has run)
    const images: Handle[] = [];
    try {
      for (let index = 0; index < args.length; index++) {
        const arg = args[index];
        const where = `kernel '${kernelName}', argument ${index}`;
        let handle = 0n;
        if (arg?.kind === 'buffer' || arg?.kind === 'image') {
          if (!(arg.buffer instanceof OpenCLBuffer))
            throw new LoomError(`${where}: expected an OpenCLBuffer from createBuffer`);
          handle = arg.buffer.handleFor(this, where); // a released buffer fails here, remembered or not
        }
        if (arg?.kind === 'image') {
          handle = imageFromBuffer(this.#api, this.#contextFor('launch'), queue, handle, arg, where);
          images.push(handle);
        }
        setArgument(this.#api, kernel, index, arg, {
          handle,
          generation: this.#freedGeneration,
          localMemSize: this.info.localMemSize,
          where,
        });
      }
      if (globalSize.some((n) => n === 0)) return false;

      const global = new BigUint64Array(globalSize.map(BigInt));
      const local = localSize ? new BigUint64Array(localSize.map(BigInt)) : null;
      check(
        'clEnqueueNDRangeKernel',
        this.#api.clEnqueueNDRangeKernel(queue, kernel.handle, globalSize.length, null, global, local, 0, null, event),
        () =>
          `${where} with global size [${globalSize.join(', ')}]${localSize ? `, local size [${localSize.join(', ')}]` : ''}`,
      );
      return true;
    } finally {
      for (const image of images) this.#api.clReleaseMemObject(image);
    }
  }

  // --- lifetime -------------------------------------------------------------------------------

  /** How many programs the cache holds, how many are alive in all (cached or still held elsewhere), and live buffers. */
  cacheStats(): { programs: number; livePrograms: number; buffers: number } {
    return { programs: this.#programs.size, livePrograms: this.#livePrograms.size, buffers: this.#buffers.size };
  }

  /** Whether `dispose()` was called; a disposed context refuses every use with a LoomError. */
  get disposed(): boolean {
    return this.#context === undefined;
  }

  /** Releases every program, kernel and buffer of the context, then the queue and the context. */
  dispose(): void {
    if (this.#context === undefined || this.#queue === undefined) return;
    this.#api.clFinish(this.#queue);
    for (const ref of [...this.#livePrograms]) ref.deref()?.release();
    this.#livePrograms.clear();
    this.#programs.clear();
    // closed first: the live buffers released next are freed, not pooled
    this.#pool.clear(true);
    for (const ref of [...this.#buffers]) ref.deref()?.release();
    this.#buffers.clear();
    this.#api.clReleaseCommandQueue(this.#queue);
    this.#api.clReleaseContext(this.#context);
    this.#queue = undefined;
    this.#context = undefined;
  }

  /** `OpenCLContext(platform: device)`, `, disposed` added once it is. */
  toString(): string {
    return `OpenCLContext(${this.info.platformName}: ${this.info.deviceName}${this.disposed ? ', disposed' : ''})`;
  }

  /** The command queue, or a LoomError naming `use` once the context is disposed. */
  #queueFor(use: string): Handle {
    if (this.#queue === undefined) throw new LoomError(`${use}: the OpenCLContext was disposed`);
    return this.#queue;
  }

  /** The cl_context, or a LoomError naming `use` once the context is disposed. */
  #contextFor(use: string): Handle {
    if (this.#context === undefined) throw new LoomError(`${use}: the OpenCLContext was disposed`);
    return this.#context;
  }
}

// --- choosing a device ------------------------------------------------------------------------

/** The device `open()` should use, or a one-line reason why there is none. */
function chooseDevice(api: OpenCLApi, options: OpenCLContextOptions): Candidate | string {
  const platforms = listPlatforms(api);
  if (typeof platforms === 'string') return platforms;

  const all: Candidate[] = [];
  for (const platform of platforms) {
    const platformName = platformString(api, platform, CL.CL_PLATFORM_NAME);
    for (const device of listDevices(api, platform)) {
      if (!deviceAvailable(api, device)) continue;
      all.push({
        platform,
        device,
        platformName,
        deviceName: deviceString(api, device, CL.CL_DEVICE_NAME),
        type: deviceType(api, device),
      });
    }
  }
  const wantedType = options.type ?? 'all';
  const matching = all
    .filter((c) => matches(c.platformName, options.platform) && matches(c.deviceName, options.device))
    .filter((c) => wantedType === 'all' || c.type === wantedType)
    .sort((a, b) => PREFERENCE.indexOf(a.type) - PREFERENCE.indexOf(b.type));
  if (matching.length > 0) return matching[0];

  const found = all.map((c) => `${c.platformName}: ${c.deviceName} (${c.type})`).join('; ');
  if (all.length === 0) return 'OpenCL platforms exist but none has an available device';
  return `no OpenCL device matches ${describeOptions(options)}; found ${found}`;
}

function listPlatforms(api: OpenCLApi): Handle[] | string {
  const count = new Uint32Array(1);
  const code = api.clGetPlatformIDs(0, null, count);
  if (code === -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (code === CL.CL_SUCCESS && count[0] === 0)) {
    return "no OpenCL platform: the ICD loader found no driver (install one: a GPU vendor's driver, or PoCL for the CPU, e.g. apt install pocl-opencl-icd on Debian and Ubuntu)";
  }
  if (code !== CL.CL_SUCCESS) return `clGetPlatformIDs failed: ${errorName(code)}`;
  const platforms = new BigUint64Array(count[0]);
  check('clGetPlatformIDs', api.clGetPlatformIDs(count[0], platforms, null));
  return [...platforms];
}

function listDevices(api: OpenCLApi, platform: Handle): Handle[] {
  const count = new Uint32Array(1);
  const code = api.clGetDeviceIDs(platform, CL.CL_DEVICE_TYPE_ALL, 0, null, count);
  if (code === -1 /* CL_DEVICE_NOT_FOUND */ || count[0] === 0) return [];
  check('clGetDeviceIDs', code);
  const devices = new BigUint64Array(count[0]);
  check('clGetDeviceIDs', api.clGetDeviceIDs(platform, CL.CL_DEVICE_TYPE_ALL, count[0], devices, null));
  return [...devices];
}

function matches(name: string, pattern: string | RegExp | undefined): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === 'string') return name.toLowerCase().includes(pattern.toLowerCase());
  pattern.lastIndex = 0; // a /g or /y pattern keeps state between test() calls
  return pattern.test(name);
}

function describeOptions(options: OpenCLContextOptions): string {
  const parts: string[] = [];
  if (options.platform !== undefined) parts.push(`platform ${String(options.platform)}`);
  if (options.device !== undefined) parts.push(`device ${String(options.device)}`);
  if (options.type !== undefined && options.type !== 'all') parts.push(`type ${options.type}`);
  return parts.length ? parts.join(', ') : 'the request';
}

/**
 * An in-order queue with profiling on, so `launchTimed` can read kernel times. OpenCL 2.0 replaced the
 * queue constructor; 1.x platforms (and loaders) only have the old one.
 */
function createProfilingQueue(api: OpenCLApi, context: Handle, device: Handle, deviceVersion: string): Handle {
  const [major] = parseVersion(deviceVersion);
  if (major >= 2 && api.clCreateCommandQueueWithProperties) {
    const properties = new BigUint64Array([BigInt(CL.CL_QUEUE_PROPERTIES), CL.CL_QUEUE_PROFILING_ENABLE, 0n]);
    const create = api.clCreateCommandQueueWithProperties;
    return created('clCreateCommandQueueWithProperties', (error) => create(context, device, properties, error));
  }
  const create = api.clCreateCommandQueue;
  if (!create)
    throw new LoomError(`the OpenCL library lacks clCreateCommandQueue, which this ${deviceVersion} device needs`);
  return created('clCreateCommandQueue', (error) => create(context, device, CL.CL_QUEUE_PROFILING_ENABLE, error));
}

// --- small checks -----------------------------------------------------------------------------

function asBytes(view: ArrayBufferView, use: string): Uint8Array {
  if (!ArrayBuffer.isView(view)) throw new LoomError(`${use}: expected a typed array or DataView, got ${typeof view}`);
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function bytePattern(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 255) {
    throw new LoomError(`fill: a byte pattern is a whole number from 0 to 255, got ${value}`);
  }
  return new Uint8Array([value]);
}

function checkRange(use: string, buffer: OpenCLBuffer, offset: number, byteLength: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new LoomError(`${use}: the offset must be a whole number of bytes, got ${offset}`);
  if (!Number.isSafeInteger(byteLength) || byteLength < 0)
    throw new LoomError(`${use}: the length must be a whole number of bytes, got ${byteLength}`);
  if (offset + byteLength > buffer.byteLength) {
    throw new LoomError(
      `${use}: bytes ${offset} .. ${offset + byteLength} are outside the ${buffer.byteLength}-byte buffer`,
    );
  }
}

/** Checks an NDRange against the device before OpenCL gets to reply with a bare error code. */
function checkNDRange(
  where: string,
  globalSize: readonly number[],
  localSize: readonly number[] | undefined,
  info: OpenCLDeviceInfo,
): void {
  const dimensions = info.maxWorkItemSizes.length || 3;
  if (!Array.isArray(globalSize) || globalSize.length < 1 || globalSize.length > dimensions) {
    throw new LoomError(`${where}: the global size needs 1 to ${dimensions} dimensions, got [${globalSize}]`);
  }
  for (const n of globalSize) {
    if (!Number.isSafeInteger(n) || n < 0)
      throw new LoomError(`${where}: global size [${globalSize.join(', ')}] is not whole numbers`);
  }
  if (localSize === undefined) return;
  if (localSize.length !== globalSize.length) {
    throw new LoomError(
      `${where}: local size [${localSize.join(', ')}] and global size [${globalSize.join(', ')}] differ in dimensions`,
    );
  }
  localSize.forEach((n, d) => {
    if (!Number.isSafeInteger(n) || n < 1)
      throw new LoomError(`${where}: local size [${localSize.join(', ')}] is not positive whole numbers`);
    if (n > info.maxWorkItemSizes[d]) {
      throw new LoomError(
        `${where}: local size ${n} in dimension ${d} exceeds the device's ${info.maxWorkItemSizes[d]}`,
      );
    }
  });
  const groupSize = localSize.reduce((a, b) => a * b, 1);
  if (groupSize > info.maxWorkGroupSize) {
    throw new LoomError(`${where}: a work-group of ${groupSize} items exceeds the device's ${info.maxWorkGroupSize}`);
  }
}
