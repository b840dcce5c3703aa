/**
 * A native device buffer's owner, for the devices that hand native memory out of a
 * `BufferPool` (CUDA's device pointers, OpenCL's cl_mem). It is released when its owner says so
 * (`release()`), when its context is disposed, or, as a safety net for buffers that were simply
 * dropped, when it is garbage-collected. Released memory goes back to its context (its pool),
 * which hands it to a new owner later: this one stays released, so no stale owner can write into
 * the new one's data.
 *
 *     class CudaBuffer extends PooledBuffer<bigint, CudaContext> { ... }
 */
import { LoomError } from '../errors.ts';

/** What the garbage-collection safety net needs to give a buffer back; it must not reference the buffer itself. */
interface Allocation<H> {
  /** The native handle (a CUdeviceptr, a cl_mem). */
  readonly handle: H;
  /** The bytes allocated (its pool size class), at least `byteLength`. */
  readonly allocatedBytes: number;
  /** Gives the memory back to the context (its pool, or the driver). */
  readonly recycle: (handle: H, allocatedBytes: number) => void;
  /** The context's set of live buffers, from which a collected buffer is removed. */
  readonly live: Set<WeakRef<object>>;
  readonly ref: WeakRef<object>;
}

const collected = new FinalizationRegistry<Allocation<unknown>>((allocation) => {
  allocation.live.delete(allocation.ref);
  allocation.recycle(allocation.handle, allocation.allocatedBytes);
});

/** The names a buffer's messages use: `CudaBuffer`, `CudaContext`. */
export interface PooledBufferNames {
  readonly buffer: string;
  readonly context: string;
}

/** Native memory of context `C` behind handle `H`; release it when done. */
export abstract class PooledBuffer<H, C> {
  #allocation: Allocation<H> | undefined;

  protected constructor(
    /** The context the buffer lives in; only that context can read, write or launch with it. */
    readonly context: C,
    /** The size the user asked for (the allocation may be larger: a pool's size class, and never 0 bytes). */
    readonly byteLength: number,
    handle: H,
    allocatedBytes: number,
    recycle: (handle: H, allocatedBytes: number) => void,
    /** The context's live buffers (released with it), this one added. */
    live: Set<WeakRef<object>>,
    private readonly names: PooledBufferNames,
  ) {
    const ref = new WeakRef<object>(this);
    this.#allocation = { handle, allocatedBytes, recycle, live, ref };
    live.add(ref);
    collected.register(this, this.#allocation as Allocation<unknown>, this);
  }

  /** Whether the buffer was released (by `release()`, or with its context); a released buffer cannot be used. */
  get released(): boolean {
    return this.#allocation === undefined;
  }

  /**
   * Gives the memory back now, to the context's pool: work already queued with it runs first,
   * the context queueing in order. Releasing twice is harmless.
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
   * The native handle, for the context's own calls: checks first that `context` may use this
   * buffer, so that a buffer from elsewhere or one already released is a LoomError and never a
   * dangling handle.
   */
  handleFor(context: C, use: string): H {
    if (this.context !== context) throw new LoomError(`${use}: the buffer belongs to another ${this.names.context}`);
    if (!this.#allocation) throw new LoomError(`${use}: the buffer was released`);
    return this.#allocation.handle;
  }

  /** `CudaBuffer(1024 bytes)`, `, released` added once it is. */
  toString(): string {
    return `${this.names.buffer}(${this.byteLength} bytes${this.released ? ', released' : ''})`;
  }
}
