/**
 * `openclDevice()`: runs Loom kernels through any OpenCL driver (PoCL on CPUs,
 * NVIDIA's on the GPU machine), built on the koffi runtime in `runtime/`.
 */
import { LoomError, noteBackendMissing, type Device, type DeviceBuffer, type GeneratedCode, type KernelFunction, type LaunchArgument } from '@loom/core';
import { OpenCLContext, type OpenCLContextOptions } from './runtime/context.ts';
import type { OpenCLBuffer } from './runtime/buffer.ts';
import type { OpenCLProgram } from './runtime/program.ts';
import { openclTarget } from './target.ts';

export interface OpenCLDevice extends Device {
  readonly context: OpenCLContext;
}

/**
 * An OpenCL device, or `undefined` when no OpenCL driver or device is present
 * (use `openclDeviceOrSkip` in tests to honour `CI` / `LOOM_REQUIRE`).
 * Without the `koffi` package installed, it throws a MissingPackageError instead.
 */
export function openclDevice(options: OpenCLContextOptions = {}): OpenCLDevice | undefined {
  const context = OpenCLContext.open(options);
  if (!context) return undefined;
  return new ClDevice(context);
}

/** Why `openclDevice()` returned undefined. */
export function openclUnavailableReason(): string {
  return OpenCLContext.unavailableReason() ?? 'unknown reason';
}

/** The device, or undefined after reporting it missing (which throws when the backend is required). */
export function openclDeviceOrSkip(options: OpenCLContextOptions = {}): OpenCLDevice | undefined {
  const device = openclDevice(options);
  if (!device) noteBackendMissing('opencl', openclUnavailableReason());
  return device;
}

class ClDevice implements OpenCLDevice {
  readonly target = openclTarget();
  readonly name: string;

  constructor(readonly context: OpenCLContext) {
    this.name = `OpenCL: ${context.info.deviceName} (${context.info.platformName})`;
  }

  async compile(code: GeneratedCode, options: { buildOptions?: readonly string[] } = {}): Promise<OpenCLProgram> {
    if (code.target !== 'opencl') throw new LoomError(`an OpenCL device cannot run ${code.target} code`);
    return this.context.buildProgram(code.code, options.buildOptions ?? []);
  }

  allocate(byteLength: number): DeviceBuffer {
    return this.context.createBuffer(byteLength);
  }

  async write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void> {
    this.context.write(buffer as OpenCLBuffer, data);
  }

  async read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void> {
    this.context.read(buffer as OpenCLBuffer, into);
  }

  async launch(
    compiled: unknown,
    kernel: KernelFunction,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): Promise<void> {
    const global = groupCount.map((g, axis) => g * (localSize[axis] ?? 1));
    const local = groupCount.map((_, axis) => localSize[axis] ?? 1);
    this.context.launch(
      compiled as OpenCLProgram,
      kernel.name,
      args.map((a) => (a.kind === 'buffer' ? { kind: 'buffer', buffer: a.buffer as OpenCLBuffer } : { kind: 'scalar', dtype: a.dtype, value: a.value })),
      global,
      local,
    );
  }

  release(buffer: DeviceBuffer): void {
    (buffer as OpenCLBuffer).release();
  }
}
