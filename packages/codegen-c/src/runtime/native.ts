/**
 * Native memory and libraries through koffi. koffi is loaded on first use (`loadKoffi`), so the
 * package can be imported for its target where koffi is not installed.
 *
 * Buffers are malloc'd memory (`koffi.alloc`) that Node sees through `koffi.view`, an
 * ArrayBuffer over the same bytes: copies in and out are plain typed-array copies, and no
 * Node-owned memory is ever handed to C beyond the call it is passed to.
 */
import { createRequire } from 'node:module';
import { isPackageNotFound, LoomError, MissingPackageError, type DeviceBuffer } from '@loom/core';

/** The koffi module's type. */
export type Koffi = typeof import('koffi').default;

type Loaded = { koffi: Koffi } | { failure: string };
let loaded: Loaded | undefined;

/** koffi, loaded once, or why it cannot be. */
export function loadKoffi(): Loaded {
  loaded ??= load();
  return loaded;
}

function load(): Loaded {
  try {
    // a plain require keeps the native addon out of the import graph until the C device is used
    return { koffi: createRequire(import.meta.url)('koffi') as Koffi };
  } catch (e) {
    if (isPackageNotFound(e, 'koffi'))
      return { failure: new MissingPackageError('koffi', 'the C device (native calls from Node)').message };
    return {
      failure: `the koffi package (native calls from Node) could not be loaded: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
    };
  }
}

/** A buffer of the C device: native memory, seen from Node as `bytes`. */
export class NativeBuffer implements DeviceBuffer {
  #address: bigint | undefined;
  #bytes: Uint8Array | undefined;

  constructor(
    private readonly koffi: Koffi,
    readonly byteLength: number,
  ) {
    // one byte at least: koffi allocates nothing for zero
    const size = Math.max(byteLength, 1);
    const address = koffi.alloc('uint8_t', size) as unknown as bigint;
    this.#address = address;
    this.#bytes = new Uint8Array(koffi.view(address as never, size) as ArrayBuffer, 0, byteLength);
  }

  /** The memory's address, for a launch's arguments. */
  get address(): bigint {
    if (this.#address === undefined) throw new LoomError('a C device buffer was used after it was released');
    return this.#address;
  }

  /** The buffer's bytes, in place. */
  get bytes(): Uint8Array {
    if (this.#bytes === undefined) throw new LoomError('a C device buffer was used after it was released');
    return this.#bytes;
  }

  /** Frees the memory (once; the views of it are dropped first). */
  release(): void {
    if (this.#address === undefined) return;
    const address = this.#address;
    this.#address = undefined;
    this.#bytes = undefined;
    this.koffi.free(address as never);
  }
}
