/**
 * A loaded CUDA module (CUmodule) and the kernels taken from it. Compiling is the expensive
 * step (an NVRTC run), so the context caches modules by source and options (a bounded cache);
 * kernels are cached here by name.
 */
import { LoomError } from '@loom/core';
import type { CudaContext } from './context.ts';

/** A kernel of a module (CUfunction), and what the driver says about it. */
export interface CudaFunction {
  /** Its name, as `extern "C"` left it. */
  readonly name: string;
  readonly handle: bigint;
  /** The most threads a block may have for this kernel (fewer than the device's when it needs many registers). */
  readonly maxThreadsPerBlock: number;
  /** Registers per thread. */
  readonly registers: number;
  /** The static `__shared__` bytes it declares. */
  readonly staticSharedBytes: number;
  /** Each parameter's bytes, in order, where the driver can say (CUDA 12.4 and later); else undefined. */
  readonly parameterSizes: readonly number[] | undefined;
}

/** What the context does for a module: find a kernel in it, unload it. They must not reference the module itself. */
export interface ModuleNatives {
  readonly lookup: (module: bigint, name: string) => CudaFunction;
  readonly unload: (module: bigint) => void;
}

/** What releasing a module takes; the garbage-collection safety net holds it. */
interface NativeModule {
  readonly handle: bigint;
  readonly natives: ModuleNatives;
  readonly functions: Map<string, CudaFunction>;
  /** The context's set of live modules, from which a collected module is removed. */
  readonly live: Set<WeakRef<CudaModule>>;
  readonly ref: WeakRef<CudaModule>;
}

function releaseNative(native: NativeModule): void {
  native.live.delete(native.ref);
  native.functions.clear();
  native.natives.unload(native.handle);
}

/**
 * The context's module cache is bounded: a module it drops may still be held (by a prepared
 * launch, by `run`'s per-kernel cache), so it is unloaded when nobody holds it any more, here,
 * or when the context is disposed.
 */
const collected = new FinalizationRegistry<NativeModule>(releaseNative);

/** A compiled and loaded CUDA module; release it when done (its context does, when disposed). */
export class CudaModule {
  #native: NativeModule | undefined;

  /** Made by `CudaContext.buildModule`. */
  constructor(
    /** The context it was loaded in. */
    readonly context: CudaContext,
    handle: bigint,
    natives: ModuleNatives,
    /** The CUDA C++ source it was compiled from. */
    readonly source: string,
    /** The NVRTC options it was compiled with (the architecture among them). */
    readonly options: readonly string[],
    /** NVRTC's output for a successful compile: usually empty, otherwise its warnings. */
    readonly log: string,
    live: Set<WeakRef<CudaModule>>,
  ) {
    const ref = new WeakRef(this);
    this.#native = { handle, natives, functions: new Map(), live, ref };
    live.add(ref);
    collected.register(this, this.#native, this);
  }

  /** Whether the module was released (by `release()`, or with its context); its kernels can no longer run. */
  get released(): boolean {
    return this.#native === undefined;
  }

  /** The kernel called `name`, looked up on first use. */
  kernel(name: string): CudaFunction {
    const native = this.#native;
    if (!native) throw new LoomError(`kernel '${name}': the module was released`);
    let fn = native.functions.get(name);
    if (!fn) native.functions.set(name, (fn = native.natives.lookup(native.handle, name)));
    return fn;
  }

  /** Unloads the module now (the context does, when disposed). Releasing twice is harmless. */
  release(): void {
    const native = this.#native;
    if (!native) return;
    this.#native = undefined;
    collected.unregister(this);
    releaseNative(native);
  }
}
