/**
 * Device memory. A buffer is released when its owner says so (`release()`), when its context is
 * disposed, or, as a safety net for buffers that were simply dropped, when it is garbage-collected.
 */
import { LoomError } from '@loom/core';
import type { Handle, OpenCLApi } from './bindings.ts';
import type { OpenCLContext } from './context.ts';

/** What the garbage-collection safety net needs to free a buffer; it must not reference the buffer itself. */
interface Allocation {
  readonly api: OpenCLApi;
  readonly handle: Handle;
  /** The context's set of live buffers, from which a collected buffer is removed. */
  readonly live: Set<WeakRef<OpenCLBuffer>>;
  readonly ref: WeakRef<OpenCLBuffer>;
}

const collected = new FinalizationRegistry<Allocation>((allocation) => {
  allocation.live.delete(allocation.ref);
  // a finalizer has nobody to report to; the return code is deliberately ignored
  allocation.api.clReleaseMemObject(allocation.handle);
});

export class OpenCLBuffer {
  #allocation: Allocation | undefined;

  /** Made by `OpenCLContext.createBuffer`. */
  constructor(
    /** The context the buffer lives in; only that context can read, write or launch with it. */
    readonly context: OpenCLContext,
    /** The size the user asked for (OpenCL allocates at least one byte, even for 0). */
    readonly byteLength: number,
    api: OpenCLApi,
    handle: Handle,
    live: Set<WeakRef<OpenCLBuffer>>,
  ) {
    const ref = new WeakRef(this);
    this.#allocation = { api, handle, live, ref };
    live.add(ref);
    collected.register(this, this.#allocation, this);
  }

  get released(): boolean {
    return this.#allocation === undefined;
  }

  /** Frees the device memory now. Releasing twice is harmless. */
  release(): void {
    const allocation = this.#allocation;
    if (!allocation) return;
    this.#allocation = undefined;
    collected.unregister(this);
    allocation.live.delete(allocation.ref);
    allocation.api.clReleaseMemObject(allocation.handle);
  }

  /**
   * The cl_mem, for the context's own calls: checks first that `context` may use this buffer, so that
   * a buffer from elsewhere or one already released is a LoomError and never a dangling handle.
   */
  handleFor(context: OpenCLContext, use: string): Handle {
    if (this.context !== context) throw new LoomError(`${use}: the buffer belongs to another OpenCLContext`);
    if (!this.#allocation) throw new LoomError(`${use}: the buffer was released`);
    return this.#allocation.handle;
  }

  toString(): string {
    return `OpenCLBuffer(${this.byteLength} bytes${this.released ? ', released' : ''})`;
  }
}
