/**
 * A built OpenCL program and the kernels taken from it. Building is the expensive step (a compiler
 * run), so the context caches programs by source and options; kernels are cached here by name.
 */
import { LoomError } from '@loom/core';
import type { Handle, OpenCLApi } from './bindings.ts';
import * as CL from './constants.ts';
import { OpenCLBuildError, OpenCLError, check, created } from './errors.ts';
import { asString, asUint32, readInfo } from './info.ts';
import type { OpenCLContext } from './context.ts';

/** A kernel object and the number of parameters its signature declares. */
export interface KernelHandle {
  readonly handle: Handle;
  readonly argumentCount: number;
}

export class OpenCLProgram {
  #handle: Handle | undefined;
  readonly #api: OpenCLApi;
  readonly #kernels = new Map<string, KernelHandle>();

  /** Made by `OpenCLContext.buildProgram`. */
  constructor(
    readonly context: OpenCLContext,
    api: OpenCLApi,
    handle: Handle,
    readonly source: string,
    readonly options: readonly string[],
    /** The compiler's output for a successful build: usually empty, otherwise its warnings. */
    readonly buildLog: string,
  ) {
    this.#api = api;
    this.#handle = handle;
  }

  /** The kernels the program defines, as the driver lists them. */
  get kernelNames(): string[] {
    const handle = this.#live('kernelNames');
    const bytes = readInfo('clGetProgramInfo', (size, value, ret) =>
      this.#api.clGetProgramInfo(handle, CL.CL_PROGRAM_KERNEL_NAMES, size, value, ret));
    return asString(bytes).split(';').filter(Boolean);
  }

  /** The kernel called `name`, created on first use. */
  kernel(name: string): KernelHandle {
    const cached = this.#kernels.get(name);
    if (cached) return cached;
    const program = this.#live(`kernel '${name}'`);
    let handle: Handle;
    try {
      handle = created('clCreateKernel', (error) => this.#api.clCreateKernel(program, name, error));
    } catch (e) {
      if (e instanceof OpenCLError && e.codeName === 'CL_INVALID_KERNEL_NAME') {
        throw new OpenCLError(e.call, e.code, `the program has no kernel '${name}' (it has: ${this.kernelNames.join(', ') || 'none'})`);
      }
      throw e;
    }
    const count = readInfo('clGetKernelInfo', (size, value, ret) =>
      this.#api.clGetKernelInfo(handle, CL.CL_KERNEL_NUM_ARGS, size, value, ret));
    const kernel = { handle, argumentCount: asUint32(count) };
    this.#kernels.set(name, kernel);
    return kernel;
  }

  /** Releases the kernels and the program; done by the context when it is disposed. */
  release(): void {
    for (const kernel of this.#kernels.values()) this.#api.clReleaseKernel(kernel.handle);
    this.#kernels.clear();
    if (this.#handle !== undefined) this.#api.clReleaseProgram(this.#handle);
    this.#handle = undefined;
  }

  #live(use: string): Handle {
    if (this.#handle === undefined) throw new LoomError(`${use}: the program was released with its OpenCLContext`);
    return this.#handle;
  }
}

/**
 * Compiles `source` for one device. A compile error becomes an `OpenCLBuildError` carrying the build
 * log, with the first line it blames shown from the source.
 */
export function compileProgram(
  api: OpenCLApi, context: Handle, device: Handle, source: string, options: readonly string[],
): { handle: Handle; buildLog: string } {
  const handle = created('clCreateProgramWithSource', (error) => api.clCreateProgramWithSource(context, 1, [source], null, error));
  const buildLog = () => asString(readInfo('clGetProgramBuildInfo', (size, value, ret) =>
    api.clGetProgramBuildInfo(handle, device, CL.CL_PROGRAM_BUILD_LOG, size, value, ret)));
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
