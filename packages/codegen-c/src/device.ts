/**
 * `cDevice()`: runs Loom kernels as native code on the CPU. A program is compiled by the system's
 * C compiler into a shared library (cached on disk, runtime/compiler.ts), loaded with koffi,
 * and each launch calls its kernel's launcher (launchers.ts), which runs the work-groups on
 * every core (OpenMP).
 */
import {
  checkBufferSize,
  checkOptionKeys,
  checkProgramLimits,
  targetFacts,
  COMMON_LIMITS,
  getDefaultCacheSize,
  LoomError,
  LruCache,
  optionKeys,
  roundToBfloat16,
  roundToFloat16,
  type Device,
  type DeviceBuffer,
  type DType,
  type DeviceKernel,
  type DeviceLimits,
  type GeneratedCode,
  type LaunchArgument,
} from '@loom/core';
import type { LibraryHandle } from 'koffi';
import { LAUNCH_SUFFIX } from './launchers.ts';
import { checkExtraFlags, compileToCache, findCompiler, type CCompiler } from './runtime/compiler.ts';
import { loadKoffi, NativeBuffer, type Koffi } from './runtime/native.ts';
import { checkGroupStack, cTarget, type CExtra } from './target.ts';

/** The options cDevice reads; any other key is an error. */
const C_DEVICE_OPTIONS = optionKeys<CDeviceOptions>()(['cacheSize', 'flags']);

/** Options of `cDevice`. */
export interface CDeviceOptions {
  /** How many loaded programs the device keeps (least recently used unloaded first); default `getDefaultCacheSize()`. */
  readonly cacheSize?: number;
  /**
   * Compiler flags added after Loom's own, e.g. `['-march=native']` to compile for this machine's
   * CPU (the programs run where they are compiled). A flag that would change what the code
   * computes (`-ffast-math`, `-Ofast`, `-ffp-contract=fast`, `-fno-wrapv`, ...) is a LoomError.
   *
   *     const device = cDevice({ flags: ['-march=native'] });
   */
  readonly flags?: readonly string[];
}

/** A launcher: `void K__launch(void *const *args, const int32_t *group_count)`. */
type Launcher = (args: BigUint64Array, groupCount: Int32Array) => void;

/** A compiled program: its shared library, loaded, and its kernels' launchers by entry point. */
export class CProgram {
  /** @param library the loaded library @param launchers each kernel's launcher, by entry point */
  constructor(
    readonly library: LibraryHandle,
    readonly launchers: ReadonlyMap<string, Launcher>,
  ) {}
}

/** The C device's type: it runs the C target's code, compiled to `CProgram`s. */
export interface CDevice extends Device<CExtra, CProgram> {
  /** The compiler it builds with (its command, version, and whether it has OpenMP). */
  readonly compiler: CCompiler;
}

/**
 * The C device, or `undefined` where no C compiler or no koffi is found (`cUnavailableReason()`
 * says which). Asking never throws for a missing compiler.
 */
export function cDevice(options: CDeviceOptions = {}): CDevice | undefined {
  checkOptionKeys('cDevice', options, C_DEVICE_OPTIONS);
  const flags = checkExtraFlags(options.flags ?? []);
  const k = loadKoffi();
  if ('failure' in k) return undefined;
  const found = findCompiler();
  if ('failure' in found) return undefined;
  return new NativeDevice(k.koffi, found.compiler, options.cacheSize ?? getDefaultCacheSize(), flags);
}

/** Why `cDevice()` returned undefined. */
export function cUnavailableReason(): string {
  const k = loadKoffi();
  if ('failure' in k) return k.failure;
  const found = findCompiler();
  return 'failure' in found ? found.failure : 'unknown reason';
}

class NativeDevice implements CDevice {
  readonly name: string;
  readonly target = cTarget();
  readonly limits: DeviceLimits = COMMON_LIMITS;
  // native code: a wrong data-dependent index would crash the process, so it is checked
  readonly checksBoundsByDefault = true;
  private readonly programs: LruCache<string, CProgram>;
  /** One launch's scalar arguments, in native memory that `args` can point into (grown on need). */
  private scalars: NativeBuffer | undefined;
  private disposed = false;

  constructor(
    private readonly koffi: Koffi,
    readonly compiler: CCompiler,
    cacheSize: number,
    private readonly flags: readonly string[],
  ) {
    const extra = flags.length > 0 ? `, ${flags.join(' ')}` : '';
    this.name = `C: ${compiler.version}${compiler.openmp ? ' with OpenMP' : ''}${extra}`;
    const unloads = !compiler.openmp || pinOpenMPRuntime(koffi);
    this.unload = (program) => {
      if (unloads) program.library.unload();
    };
    this.programs = new LruCache(cacheSize, this.unload);
  }

  /** Unloads a program's library, unless OpenMP's runtime could not be kept loaded (see pinOpenMPRuntime). */
  private readonly unload: (program: CProgram) => void;

  async compile(code: GeneratedCode<CExtra>): Promise<CProgram> {
    this.alive('compile');
    if (code.target !== 'c') throw new LoomError(`the C device runs C, not ${code.target} code`);
    const cached = this.programs.get(code.code);
    if (cached) return cached;
    checkProgramLimits(code.program, this.limits, this.name, targetFacts(this.target).heldInFloat);
    code.program.kernels.forEach((k, i) => checkGroupStack(k.name, k.localSize, code.extra.groupStackBytes[i]));
    const { library: file } = await compileToCache(this.compiler, code.code, this.flags);
    const library = this.koffi.load(file);
    const launchers = new Map<string, Launcher>();
    for (const k of code.kernels) {
      launchers.set(
        k.entryPoint,
        library.func(`${k.entryPoint}${LAUNCH_SUFFIX}`, 'void', ['void *', 'void *']) as Launcher,
      );
    }
    const program = new CProgram(library, launchers);
    this.programs.set(code.code, program);
    return program;
  }

  allocate(byteLength: number): DeviceBuffer {
    this.alive('allocate');
    checkBufferSize(byteLength, this.limits, this.name);
    return new NativeBuffer(this.koffi, byteLength);
  }

  async write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void> {
    this.alive('write');
    const target = nativeBuffer(buffer);
    if (data.byteLength > target.byteLength)
      throw new LoomError(`cannot write ${data.byteLength} bytes into a C device buffer of ${target.byteLength}`);
    target.bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }

  async read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void> {
    this.alive('read');
    const source = nativeBuffer(buffer);
    if (into.byteLength > source.byteLength)
      throw new LoomError(`cannot read ${into.byteLength} bytes from a C device buffer of ${source.byteLength}`);
    new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(source.bytes.subarray(0, into.byteLength));
  }

  async launch(
    program: CProgram,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
  ): Promise<void> {
    this.alive('launch');
    const launcher = program.launchers.get(kernel.entryPoint);
    if (!launcher) throw new LoomError(`the compiled program has no kernel '${kernel.name}'`);
    const params = kernel.function.params;
    if (args.length !== params.length)
      throw new LoomError(`kernel '${kernel.name}' takes ${params.length} arguments, got ${args.length}`);
    const scalars = this.scalarSlots(args.length);
    const view = new DataView(scalars.bytes.buffer, scalars.bytes.byteOffset, scalars.bytes.byteLength);
    const pointers = new BigUint64Array(args.length);
    args.forEach((a, k) => {
      const p = params[k];
      if (p.kind === 'value') {
        if (a.kind !== 'value')
          throw new LoomError(`argument '${p.name}' of kernel '${kernel.name}' is a value, not a buffer`);
        writeScalar(view, 8 * k, a.dtype, a.value);
        pointers[k] = scalars.address + BigInt(8 * k);
      } else {
        if (a.kind !== 'buffer')
          throw new LoomError(`argument '${p.name}' of kernel '${kernel.name}' is an array: pass a buffer`);
        pointers[k] = nativeBuffer(a.buffer).address;
      }
    });
    const counts = new Int32Array([groupCount[0] ?? 1, groupCount[1] ?? 1, groupCount[2] ?? 1]);
    if (counts.some((c) => c === 0)) return;
    launcher(pointers, counts);
  }

  release(buffer: DeviceBuffer): void {
    nativeBuffer(buffer).release();
  }

  cacheStats(): Readonly<Record<string, number>> {
    return { programs: this.programs.size };
  }

  /** Unloads the programs; buffers stay the caller's to release. */
  dispose(): void {
    for (const program of this.programs.values()) this.unload(program);
    this.programs.clear();
    this.scalars?.release();
    this.scalars = undefined;
    this.disposed = true;
  }

  private scalarSlots(count: number): NativeBuffer {
    const bytes = Math.max(8 * count, 8);
    if (!this.scalars || this.scalars.byteLength < bytes) {
      this.scalars?.release();
      this.scalars = new NativeBuffer(this.koffi, Math.max(bytes, 256));
    }
    return this.scalars;
  }

  private alive(use: string): void {
    if (this.disposed) throw new LoomError(`${use}: the C device was disposed; make a new one with cDevice()`);
  }
}

/** A value argument's bytes, as the kernel's C parameter holds it (a float16 or bfloat16 as the float of its value). */
function writeScalar(view: DataView, at: number, dtype: DType, value: number | bigint): void {
  switch (dtype) {
    case 'bool':
    case 'uint8':
      return view.setUint8(at, Number(value));
    case 'int8':
      return view.setInt8(at, Number(value));
    case 'int16':
      return view.setInt16(at, Number(value), true);
    case 'uint16':
      return view.setUint16(at, Number(value), true);
    case 'int32':
      return view.setInt32(at, Number(value), true);
    case 'uint32':
      return view.setUint32(at, Number(value), true);
    case 'int64':
      return view.setBigInt64(at, BigInt(value), true);
    case 'uint64':
      return view.setBigUint64(at, BigInt(value), true);
    case 'float16':
      return view.setFloat32(at, roundToFloat16(Number(value)), true);
    case 'bfloat16':
      return view.setFloat32(at, roundToBfloat16(Number(value)), true);
    case 'float32':
      return view.setFloat32(at, Number(value), true);
    case 'float64':
      return view.setFloat64(at, Number(value), true);
    case 'complex64':
    case 'complex128':
      throw new LoomError(`a ${dtype} value argument reached the C device: complex values are passed as their parts`);
  }
}

function nativeBuffer(b: DeviceBuffer): NativeBuffer {
  if (!(b instanceof NativeBuffer)) throw new LoomError('this buffer belongs to another device, not the C device');
  return b;
}

/**
 * Keeps the OpenMP runtime loaded for the life of the process. A program's library links it, so
 * unloading the last such library unloads the runtime too, while its worker threads still wait
 * in its code for the next parallel region: the process then crashes (SIGSEGV) at the next
 * unload or at exit. Loaded once more here, never unloaded, the runtime outlives every program.
 * False when no runtime by a known name loads: programs are then never unloaded.
 */
let openMPPinned: boolean | undefined;
function pinOpenMPRuntime(koffi: Koffi): boolean {
  if (openMPPinned !== undefined) return openMPPinned;
  openMPPinned = false;
  for (const name of ['libgomp.so.1', 'libomp.so.5', 'libomp.so', 'libiomp5.so', 'libgomp.1.dylib', 'libomp.dylib'])
    try {
      koffi.load(name);
      openMPPinned = true;
      break;
    } catch {
      // not this runtime's name here
    }
  return openMPPinned;
}
