/**
 * Loading koffi, and declaring C types in its process-wide registry, for both native libraries
 * the CUDA device calls (the driver's `libcuda.so.1`, NVRTC). koffi is an optional peer
 * dependency: it is required only when a CUDA device is first asked for, so the package
 * imports (for its code generator, its types) where koffi or CUDA is missing.
 */
import { createRequire } from 'node:module';
import { isPackageNotFound, MissingPackageError } from '@loom/core';

/** The koffi module. */
export type Koffi = typeof import('koffi').default;

let loaded: { koffi: Koffi } | { failure: string } | undefined;

/** koffi, or a one-line reason why it cannot be loaded (remembered: later calls cost nothing). */
export function loadKoffi(): { koffi: Koffi } | { failure: string } {
  loaded ??= load();
  return loaded;
}

function load(): { koffi: Koffi } | { failure: string } {
  let koffi: Koffi;
  try {
    // a plain require keeps the native addon out of the import graph until CUDA is used
    koffi = createRequire(import.meta.url)('koffi') as Koffi;
  } catch (e) {
    if (isPackageNotFound(e, 'koffi'))
      return { failure: new MissingPackageError('koffi', 'the CUDA device (native calls from Node)').message };
    return { failure: `the koffi package (native calls from Node) could not be loaded: ${firstLine(e)}` };
  }
  // device pointers (CUdeviceptr) and sizes travel as 64-bit values
  if (koffi.sizeof('size_t') !== 8)
    return { failure: 'CUDA through koffi needs a 64-bit host (size_t is not 8 bytes)' };
  return { koffi };
}

/** Declares `name` with `make` unless the registry has it already (a second library, or another package, declared it). */
export function declareType(koffi: Koffi, name: string, make: () => unknown): void {
  try {
    koffi.type(name);
  } catch {
    make();
  }
}

/** The first line of an error's message. */
export function firstLine(e: unknown): string {
  return String(e instanceof Error ? e.message : e).split('\n')[0];
}

/** Why koffi could not load a library, short: `not found` for the usual missing file. */
export function loadFailure(e: unknown): string {
  const message = firstLine(e).replace(/^Failed to load shared library: /, '');
  return /cannot open shared object file: No such file or directory/.test(message) ? 'not found' : message;
}
