/**
 * Device memory. A buffer is released when its owner says so (`release()`), when its context is
 * disposed, or, as a safety net for buffers that were simply dropped, when it is garbage-collected.
 * Released memory goes back to its context's pool (`BufferPool` in @loom/core), which hands it to
 * a new buffer object later: this one stays released.
 */
import { LoomError } from '@loom/core';
import type { Handle } from './bindings.ts';
import type { OpenCLContext } from './context.ts';

/** What the garbage-collection safety net needs to give a buffer back; it must not reference the buffer itself. */
interface Allocation {
  readonly handle: Handle;
  /** The bytes of the cl_mem (its pool size class), at least `byteLength`. */
  readonly allocatedBytes: number;
  /** Gives the cl_mem back to the context (its pool, or clReleaseMemObject). */
  readonly recycle: (handle: Handle, allocatedBytes: number) => void;
  /** The context's set of live buffers, from which a collected buffer is removed. */
  readonly live: Set<WeakRef<OpenCLBuffer>>;
  readonly ref: WeakRef<OpenCLBuffer>;
}

const collected = new FinalizationRegistry<Allocation>((allocation) => {
  allocation.live.delete(allocation.ref);
  allocation.recycle(allocation.handle, allocation.allocatedBytes);
});

/** An OpenCL buffer (cl_mem) of a context; release it when done. */
export class OpenCLBuffer {
  #allocation: Allocation | undefined;

  /** Made by `OpenCLContext.createBuffer`. */
  constructor(
    /** The context the buffer lives in; only that context can read, write or launch with it. */
    readonly context: OpenCLContext,
    /** The size the user asked for (the cl_mem may be larger: a pool's size class, and never 0 bytes). */
    readonly byteLength: number,
    handle: Handle,
    allocatedBytes: number,
    recycle: Allocation['recycle'],
    live: Set<WeakRef<OpenCLBuffer>>,
  ) {
    const ref = new WeakRef(this);
    this.#allocation = { handle, allocatedBytes, recycle, live, ref };
    live.add(ref);
    collected.register(this, this.#allocation, this);
  }

  /** Whether the buffer was released (by `release()`, or with its context); a released buffer cannot be used. */
  get released(): boolean {
    return this.#allocation === undefined;
  }

  /**
   * Gives the device memory back now (to the context's pool: work already queued with it
   * still runs first, the queue being in order). Releasing twice is harmless.
   */
  release(): void {
    const allocation = this.#allocation;
    if (!allocation) return;
    this.#allocation = undefined;
    collected.unregister(this);
    allocation.live.delete(allocation.ref);
    allocation.recycle(allocation.handle, allocation.allocatedBytes);
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

  /** `OpenCLBuffer(1024 bytes)`, `, released` added once it is. */
  toString(): string {
    return `OpenCLBuffer(${this.byteLength} bytes${this.released ? ', released' : ''})`;
  }
}
