/**
 * The native drivers are optional peer dependencies: `webgpu` (Dawn) for the WebGPU device, `koffi`
 * (calls into the OpenCL library) for the OpenCL device. Installing Loom downloads neither; a device
 * loads its driver package when it is asked for. A driver package that is not installed means no
 * such device, as a machine without the driver does: `openclDevice()` and `webgpuDevice()` return
 * undefined, and their unavailable reason is a `MissingPackageError`'s message, which says what to
 * install (so `openclDevice() ?? cpuDevice()` never throws for a missing package).
 */
import { LoomError } from '../errors.ts';

/** An optional package (a driver such as koffi or webgpu) that is not installed: says which and how to install it. */
export class MissingPackageError extends LoomError {
  /** @param what the feature that needs the package, as the message's subject ("the WebGPU device") */
  constructor(
    /** The npm package to install. */
    readonly packageName: string,
    what: string,
  ) {
    super(`${what} needs the '${packageName}' package, which is not installed: npm install ${packageName}`);
  }
}

/**
 * Whether `error`, thrown by `import(name)` or `require(name)`, says that the package `name` itself
 * is not installed (rather than that it is there but fails to load, e.g. a native binary missing).
 */
export function isPackageNotFound(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const notFound = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
  return (
    notFound &&
    typeof message === 'string' &&
    (message.includes(`package '${name}'`) || message.includes(`module '${name}'`))
  );
}
