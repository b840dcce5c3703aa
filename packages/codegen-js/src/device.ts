/**
 * The CPU device: buffers are host ArrayBuffers, "compiling" turns the generated
 * JavaScript into functions, and a launch runs every work-group and work-item on
 * this thread. It needs nothing installed, so it is the device of last resort, and
 * being exact it is the one other devices' results are compared with.
 */
import {
  byteSize,
  checkBufferSize,
  checkProgramLimits,
  targetFacts,
  COMMON_LIMITS,
  evaluateInt,
  valuesEnv,
  type Expr,
  getDefaultCacheSize,
  hostArrayConstructor,
  LoomError,
  LruCache,
  type Device,
  type DeviceBuffer,
  type DeviceKernel,
  type DeviceLimits,
  type GeneratedCode,
  type KernelFunction,
  type LaunchArgument,
  InternalError,
  checkOptionKeys,
  optionKeys,
} from '@loom/core';
import { HELPERS_PARAM } from './names.ts';
import { runtimeHelpers, toRepresentation } from './runtime-helpers.ts';
import { jsTarget, type JsExtra } from './target.ts';
import { runWorkGroups, type CompiledKernel } from './workgroups.ts';

/** The options cpuDevice reads; any other key is an error. */
const CPU_DEVICE_OPTIONS = optionKeys<CpuDeviceOptions>()(['cacheSize', 'limits']);

/** The CPU device's name (`cpuDevice().name`). */
export const CPU_DEVICE_NAME = 'CPU (generated JavaScript)';

class HostBuffer implements DeviceBuffer {
  #data: ArrayBuffer | undefined;

  constructor(readonly byteLength: number) {
    this.#data = new ArrayBuffer(byteLength); // zero-filled
  }

  get data(): ArrayBuffer {
    if (!this.#data) throw new LoomError('a CPU buffer was used after it was released');
    return this.#data;
  }

  release(): void {
    this.#data = undefined;
  }
}

/** A compiled program: its kernels by (Loom) name. */
export class CpuProgram {
  /** @param kernels the program's kernels, by (Loom) name */
  constructor(readonly kernels: ReadonlyMap<string, CompiledKernel>) {}
}

/** The CPU device's type: it runs the JavaScript target's code, compiled to `CpuProgram`s. */
export type CpuDevice = Device<JsExtra, CpuProgram>;

export interface CpuDeviceOptions {
  /** How many compiled programs the device keeps (least recently used dropped first); default `getDefaultCacheSize()`. */
  readonly cacheSize?: number;
  /**
   * Limits in place of a typical GPU's (`COMMON_LIMITS`): those of the device whose kernels this
   * one checks, as a reference (a GPU with 48 KiB of local memory runs tiles a 32 KiB one refuses).
   */
  readonly limits?: Partial<DeviceLimits>;
}

/**
 * A CPU device. It has no hardware limits, so it takes those of a typical GPU
 * (`COMMON_LIMITS`): a kernel it accepts runs on the GPUs too, and one they refuse it
 * refuses, with the same LoomError, instead of running a 100,000-wide work-group. To check
 * another device's kernels, give it that device's limits:
 * ```ts
 * const reference = cpuDevice({ limits: gpu.limits });
 * ```
 */
export function cpuDevice(options: CpuDeviceOptions = {}): CpuDevice {
  checkOptionKeys('cpuDevice', options, CPU_DEVICE_OPTIONS);
  const limits = options.limits ? Object.freeze({ ...COMMON_LIMITS, ...options.limits }) : COMMON_LIMITS;
  return new JsDevice(options.cacheSize ?? getDefaultCacheSize(), limits);
}

// TypeScript-private members, not #fields: wrappers made with Object.create(device) (tests
// count compilations so) call these methods with themselves as `this`
class JsDevice implements CpuDevice {
  readonly name = CPU_DEVICE_NAME;
  readonly target = jsTarget();
  readonly limits: DeviceLimits;
  // exact and unhurried: the device where a wrong data-dependent index should be found
  readonly checksBoundsByDefault = true;
  /** Compiled programs by source text: the same text always compiles to the same functions. */
  private readonly programs: LruCache<string, CpuProgram>;
  private disposed = false;

  constructor(cacheSize: number, limits: DeviceLimits) {
    this.programs = new LruCache(cacheSize);
    this.limits = limits;
  }

  async compile(code: GeneratedCode<JsExtra>): Promise<CpuProgram> {
    this.alive('compile');
    if (code.target !== 'js') throw new LoomError(`the CPU device runs JavaScript, not ${code.target} code`);
    const cached = this.programs.get(code.code);
    if (cached) return cached;
    checkProgramLimits(code.program, this.limits, this.name, targetFacts(this.target).heldInFloat);
    const program = compileProgram(code);
    this.programs.set(code.code, program);
    return program;
  }

  allocate(byteLength: number): DeviceBuffer {
    this.alive('allocate');
    checkBufferSize(byteLength, this.limits, this.name);
    return new HostBuffer(byteLength);
  }

  async write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void> {
    this.alive('write');
    const target = hostBuffer(buffer);
    if (data.byteLength > target.byteLength) {
      throw new LoomError(`cannot write ${data.byteLength} bytes into a CPU buffer of ${target.byteLength}`);
    }
    new Uint8Array(target.data).set(bytesOf(data));
  }

  async read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void> {
    this.alive('read');
    const source = hostBuffer(buffer);
    if (into.byteLength > source.byteLength) {
      throw new LoomError(`cannot read ${into.byteLength} bytes from a CPU buffer of ${source.byteLength}`);
    }
    bytesOf(into).set(new Uint8Array(source.data, 0, into.byteLength));
  }

  async launch(
    program: CpuProgram,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): Promise<void> {
    this.alive('launch');
    const entry = program.kernels.get(kernel.name);
    if (!entry) throw new LoomError(`the compiled program has no kernel '${kernel.name}'`);
    const values = kernelArguments(kernel.function, args);
    try {
      runWorkGroups(entry, values, groupCount, localSize, launchLengths(kernel.function, args));
    } catch (e) {
      if (e instanceof LoomError) throw e;
      throw withCause(
        new LoomError(`kernel '${kernel.name}' failed on the CPU: ${e instanceof Error ? e.message : String(e)}`),
        e,
      );
    }
  }

  release(buffer: DeviceBuffer): void {
    hostBuffer(buffer).release();
  }

  cacheStats(): Readonly<Record<string, number>> {
    return { programs: this.programs.size };
  }

  /** Drops the compiled programs; the buffers' memory goes with the last reference to them. */
  dispose(): void {
    this.programs.clear();
    this.disposed = true;
  }

  private alive(use: string): void {
    if (this.disposed) throw new LoomError(`${use}: the CPU device was disposed; make a new one with cpuDevice()`);
  }
}

function compileProgram(code: GeneratedCode<JsExtra>): CpuProgram {
  // the layouts the printer wrote the functions by, never worked out again
  const layouts = code.extra.layouts;
  // computed keys: a kernel called `__proto__` is exported as itself, not as the object's prototype
  const exports = layouts.map((l) => `[${JSON.stringify(l.name)}]: ${l.jsName}`).join(', ');
  let functions: Record<string, (...args: unknown[]) => unknown>;
  try {
    // the code's own 'use strict' applies: it opens the function body
    // the user functions beside the runtime helpers, in an object without a prototype (a key is any name)
    const user = Object.freeze(Object.assign(Object.create(null), Object.fromEntries(code.extra.userFunctions ?? [])));
    const helpers = code.extra.userFunctions?.size ? Object.freeze({ ...runtimeHelpers, user }) : runtimeHelpers;
    functions = new Function(HELPERS_PARAM, `${code.code}\nreturn { ${exports} };`)(helpers);
  } catch (e) {
    const names = layouts.map((l) => `'${l.name}'`).join(', ');
    throw new InternalError(
      `the JavaScript generated for kernel ${names} does not compile: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
  return new CpuProgram(new Map(layouts.map((layout) => [layout.name, { layout, fn: functions[layout.name] }])));
}

/** Buffers viewed as TypedArrays of their parameter's dtype; values in the dtype's representation. */
function kernelArguments(kernel: KernelFunction, args: readonly LaunchArgument[]): unknown[] {
  if (args.length !== kernel.params.length) {
    throw new LoomError(`kernel '${kernel.name}' takes ${kernel.params.length} arguments, got ${args.length}`);
  }
  return kernel.params.map((p, k) => {
    const arg = args[k];
    if (p.kind === 'value') {
      if (arg.kind !== 'value')
        throw new LoomError(`argument '${p.name}' of kernel '${kernel.name}' is a value, not a buffer`);
      return toRepresentation(arg.value, p.dtype);
    }
    if (arg.kind !== 'buffer')
      throw new LoomError(`argument '${p.name}' of kernel '${kernel.name}' is an array: pass a buffer`);
    const buffer = hostBuffer(arg.buffer);
    const Ctor = hostArrayConstructor(p.dtype);
    return new Ctor(buffer.data, 0, Math.floor(buffer.byteLength / byteSize(p.dtype)));
  });
}

/** Evaluates a temporary's size known only at launch in this launch's value arguments. */
function launchLengths(kernel: KernelFunction, args: readonly LaunchArgument[]): (length: Expr) => number {
  const values = new Map<string, number | bigint>();
  kernel.params.forEach((p, k) => {
    const arg = args[k];
    if (arg?.kind === 'value') values.set(p.name, arg.value);
  });
  const what = `the size of a temporary of kernel '${kernel.name}'`;
  return (length) => evaluateInt(length, valuesEnv(values, what), what);
}

function hostBuffer(b: DeviceBuffer): HostBuffer {
  if (!(b instanceof HostBuffer)) throw new LoomError('this buffer belongs to another device, not the CPU device');
  return b;
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function withCause(error: LoomError, cause: unknown): LoomError {
  Object.defineProperty(error, 'cause', { value: cause, configurable: true, writable: true });
  return error;
}
