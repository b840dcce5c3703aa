/**
 * Device memory. A buffer is released when its owner says so (`release()`), when its context
 * is disposed, or, as a safety net for buffers that were simply dropped, when it is
 * garbage-collected. Released memory goes back to its context's pool (`BufferPool` in
 * @loom/core), which hands it to a new buffer object later: this one stays released.
 */
import { LoomError } from '@loom/core';
import type { CudaContext } from './context.ts';

/** What the garbage-collection safety net needs to give a buffer back; it must not reference the buffer itself. */
interface Allocation {
  /** The CUdeviceptr. */
  readonly pointer: bigint;
  /** The bytes allocated (its pool size class), at least `byteLength`. */
  readonly allocatedBytes: number;
  /** Gives the memory back to the context (its pool, or cuMemFree). */
  readonly recycle: (pointer: bigint, allocatedBytes: number) => void;
  /** The context's set of live buffers, from which a collected buffer is removed. */
  readonly live: Set<WeakRef<CudaBuffer>>;
  readonly ref: WeakRef<CudaBuffer>;
}

const collected = new FinalizationRegistry<Allocation>((allocation) => {
  allocation.live.delete(allocation.ref);
  allocation.recycle(allocation.pointer, allocation.allocatedBytes);
});

/** Device memory of a `CudaContext` (a CUdeviceptr); release it when done. */
export class CudaBuffer {
  #allocation: Allocation | undefined;

  /** Made by `CudaContext.createBuffer`. */
  constructor(
    /** The context the buffer lives in; only that context can read, write or launch with it. */
    readonly context: CudaContext,
    /** The size the user asked for (the allocation may be larger: a pool's size class, and never 0 bytes). */
    readonly byteLength: number,
    pointer: bigint,
    allocatedBytes: number,
    recycle: Allocation['recycle'],
    live: Set<WeakRef<CudaBuffer>>,
  ) {
    const ref = new WeakRef(this);
    this.#allocation = { pointer, allocatedBytes, recycle, live, ref };
    live.add(ref);
    collected.register(this, this.#allocation, this);
  }

  /** Whether the buffer was released (by `release()`, or with its context); a released buffer cannot be used. */
  get released(): boolean {
    return this.#allocation === undefined;
  }

  /**
   * Gives the device memory back now, to the context's pool: work already queued with it runs
   * first, everything being queued on one stream. Releasing twice is harmless.
   */
  release(): void {
    const allocation = this.#allocation;
    if (!allocation) return;
    this.#allocation = undefined;
    collected.unregister(this);
    allocation.live.delete(allocation.ref);
    allocation.recycle(allocation.pointer, allocation.allocatedBytes);
  }

  /**
   * The device pointer, for the context's own calls: checks first that `context` may use this
   * buffer, so that a buffer from elsewhere or one already released is a LoomError and never a
   * dangling pointer.
   */
  pointerFor(context: CudaContext, use: string): bigint {
    if (this.context !== context) throw new LoomError(`${use}: the buffer belongs to another CudaContext`);
    if (!this.#allocation) throw new LoomError(`${use}: the buffer was released`);
    return this.#allocation.pointer;
  }

  /** `CudaBuffer(1024 bytes)`, `, released` added once it is. */
  toString(): string {
    return `CudaBuffer(${this.byteLength} bytes${this.released ? ', released' : ''})`;
  }
}
