/**
 * A built OpenCL program and the kernels taken from it. Building is the expensive step (a compiler
 * run), so the context caches programs by source and options (a bounded cache); kernels are
 * cached here by name.
 */
import { LoomError } from '@loom/core';
import type { Handle, OpenCLApi } from './bindings.ts';
import * as CL from './constants.ts';
import { OpenCLBuildError, OpenCLError, check, created } from './errors.ts';
import { asString, asUint32, readInfo } from './info.ts';
import type { OpenCLContext } from './context.ts';
import type { SetArgument } from './arguments.ts';

/** A kernel object, the number of parameters its signature declares, and what each was last set to. */
export interface KernelHandle {
  readonly handle: Handle;
  readonly argumentCount: number;
  /**
   * Per argument index, what `clSetKernelArg` last set there (undefined: unknown). A kernel
   * keeps its arguments between launches, so setting the same one again is skipped.
   */
  readonly lastSet: (SetArgument | undefined)[];
}

/**
 * What releasing a program takes; the garbage-collection safety net holds it, so it must not
 * reference the program itself.
 */
interface NativeProgram {
  readonly api: OpenCLApi;
  readonly handle: Handle;
  /** The kernels made from the program, by name: released with it. */
  readonly kernels: Map<string, KernelHandle>;
  /** The context's set of live programs, from which a collected program is removed. */
  readonly live: Set<WeakRef<OpenCLProgram>>;
  readonly ref: WeakRef<OpenCLProgram>;
}

function releaseNative(native: NativeProgram): void {
  native.live.delete(native.ref);
  // nobody to report a failure to (a finalizer, a dispose): return codes are deliberately ignored
  for (const kernel of native.kernels.values()) native.api.clReleaseKernel(kernel.handle);
  native.kernels.clear();
  native.api.clReleaseProgram(native.handle);
}

/**
 * The context's program cache is bounded: a program it drops may still be held (by a
 * prepared launch, by `run`'s per-kernel cache), so it is not released then, but when
 * nobody holds it any more, here, or when the context is disposed.
 */
const collected = new FinalizationRegistry<NativeProgram>(releaseNative);

/** A built OpenCL program (cl_program) and its kernels; release it when done. */
export class OpenCLProgram {
  #native: NativeProgram | undefined;

  /** Made by `OpenCLContext.buildProgram`. */
  constructor(
    /** The context it was built in. */
    readonly context: OpenCLContext,
    api: OpenCLApi,
    handle: Handle,
    /** The OpenCL C source it was built from. */
    readonly source: string,
    /** The build options it was built with. */
    readonly options: readonly string[],
    /** The compiler's output for a successful build: usually empty, otherwise its warnings. */
    readonly buildLog: string,
    live: Set<WeakRef<OpenCLProgram>>,
  ) {
    const ref = new WeakRef(this);
    this.#native = { api, handle, kernels: new Map(), live, ref };
    live.add(ref);
    collected.register(this, this.#native, this);
  }

  /** Whether the program was released (by `release()`, or with its context); its kernels can no longer run. */
  get released(): boolean {
    return this.#native === undefined;
  }

  /** The kernels the program defines, as the driver lists them. */
  get kernelNames(): string[] {
    const { api, handle } = this.#live('kernelNames');
    const bytes = readInfo('clGetProgramInfo', (size, value, ret) =>
      api.clGetProgramInfo(handle, CL.CL_PROGRAM_KERNEL_NAMES, size, value, ret),
    );
    return asString(bytes).split(';').filter(Boolean);
  }

  /** The kernel called `name`, created on first use. */
  kernel(name: string): KernelHandle {
    const native = this.#live(`kernel '${name}'`);
    const cached = native.kernels.get(name);
    if (cached) return cached;
    const { api } = native;
    let handle: Handle;
    try {
      handle = created('clCreateKernel', (error) => api.clCreateKernel(native.handle, name, error));
    } catch (e) {
      if (e instanceof OpenCLError && e.codeName === 'CL_INVALID_KERNEL_NAME') {
        throw new OpenCLError(
          e.call,
          e.code,
          `the program has no kernel '${name}' (it has: ${this.kernelNames.join(', ') || 'none'})`,
        );
      }
      throw e;
    }
    const count = readInfo('clGetKernelInfo', (size, value, ret) =>
      api.clGetKernelInfo(handle, CL.CL_KERNEL_NUM_ARGS, size, value, ret),
    );
    const argumentCount = asUint32(count);
    const kernel = { handle, argumentCount, lastSet: new Array<SetArgument | undefined>(argumentCount) };
    native.kernels.set(name, kernel);
    return kernel;
  }

  /** Releases the kernels and the program now (the context does, when disposed). Releasing twice is harmless. */
  release(): void {
    const native = this.#native;
    if (!native) return;
    this.#native = undefined;
    collected.unregister(this);
    releaseNative(native);
  }

  #live(use: string): NativeProgram {
    if (this.#native === undefined) throw new LoomError(`${use}: the program was released with its OpenCLContext`);
    return this.#native;
  }
}

/**
 * Compiles `source` for one device. A compile error becomes an `OpenCLBuildError` carrying the build
 * log, with the first line it blames shown from the source.
 */
export function compileProgram(
  api: OpenCLApi,
  context: Handle,
  device: Handle,
  source: string,
  options: readonly string[],
): { handle: Handle; buildLog: string } {
  const handle = created('clCreateProgramWithSource', (error) =>
    api.clCreateProgramWithSource(context, 1, [source], null, error),
  );
  const buildLog = () =>
    asString(
      readInfo('clGetProgramBuildInfo', (size, value, ret) =>
        api.clGetProgramBuildInfo(handle, device, CL.CL_PROGRAM_BUILD_LOG, size, value, ret),
      ),
    );
  try {
    const code = api.clBuildProgram(handle, 1, new BigUint64Array([device]), options.join(' '), null, null);
    if (code === -11 /* CL_BUILD_PROGRAM_FAILURE */) throw new OpenCLBuildError(code, buildLog(), source);
    check('clBuildProgram', code, () => (options.length ? `build options: ${options.join(' ')}` : ''));
    return { handle, buildLog: buildLog() };
  } catch (e) {
    api.clReleaseProgram(handle);
    throw e;
  }
}
