/**
 * `BufferPool`: device memory that a device keeps after its owner let go of it, to hand
 * out again instead of allocating. Allocating is what a launch costs most on some
 * drivers: Dawn creates, validates and zero-fills every new buffer, and a `pointwise()`
 * call makes a new output each time. Devices (OpenCL, WebGPU) pool their native buffers
 * here; `Device.poolStats()` reports on the pool.
 *
 * When is reuse safe? A native buffer comes back when its owner is released (or, for a
 * wrapper nobody can reach any more, when it is collected), and the released wrapper
 * stays unusable: a new wrapper takes the native buffer, so no stale handle can write
 * into the new owner's data. Work already queued with the buffer is not a hazard either:
 * each device has one in-order queue, and everything the new owner does with the buffer
 * (writes, launches, reads) is queued after that work.
 *
 * Sizes are rounded up to classes (4 or 8 per doubling: `sizeClass`), so that arrays of
 * nearly the same size share buffers; the owner still sees the size it asked for. The
 * pool holds at most `maxBytes` (the oldest buffers go first) and nothing larger.
 */
import { LoomError } from '../errors.ts';

/** What a `BufferPool` holds and has handed out. */
export interface BufferPoolStats {
  /** Native buffers the pool holds, ready to be handed out. */
  readonly pooledBuffers: number;
  /** Their bytes (by size class). */
  readonly pooledBytes: number;
  /** How many allocations a pooled buffer served, and how many made a new one, since the device was made. */
  readonly reused: number;
  /** How many allocations made a new buffer. */
  readonly created: number;
}

/**
 * The bytes of the size class of a `byteLength`-byte request: a multiple of 64, at most 25%
 * more than asked for (12.5% from 1 MiB on, where the bytes add up).
 */
export function sizeClass(byteLength: number): number {
  if (byteLength <= 256) return 256;
  const octave = 2 ** Math.floor(Math.log2(byteLength - 1));
  const step = octave / (octave >= 1 << 20 ? 8 : 4);
  return Math.ceil(byteLength / step) * step;
}

/** Keeps released device buffers by size for reuse, so repeated runs do not allocate every time. */
export class BufferPool<Native> {
  /** Free buffers by size class, oldest first; a class's list is used last in, first out. */
  readonly #free = new Map<number, Native[]>();
  /** Every free buffer (with its bytes) in the order it came back, to drop the oldest when over the bound. */
  readonly #order = new Map<Native, number>();
  #bytes = 0;
  #reused = 0;
  #created = 0;
  #closed = false;

  constructor(
    /** The most bytes the pool keeps (0: keep nothing, every release frees at once). */
    readonly maxBytes: number,
    /** Frees a native buffer for good. */
    private readonly destroy: (native: Native) => void,
  ) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
      throw new LoomError(`a buffer pool's size must be a whole number of bytes, got ${maxBytes}`);
  }

  /** A free buffer of `bytes` (a size class), or undefined: then the device makes one (and says so: `created`). */
  take(bytes: number): Native | undefined {
    const list = this.#free.get(bytes);
    const native = list?.pop();
    if (native === undefined) {
      this.#created++;
      return undefined;
    }
    this.#order.delete(native);
    this.#bytes -= bytes;
    this.#reused++;
    return native;
  }

  /** Takes back a buffer of `bytes` (its size class); frees it instead when the pool is closed or it would not fit. */
  give(native: Native, bytes: number): void {
    if (this.#closed || bytes > this.maxBytes) {
      this.destroy(native);
      return;
    }
    while (this.#bytes + bytes > this.maxBytes) this.#dropOldest();
    let list = this.#free.get(bytes);
    if (!list) this.#free.set(bytes, (list = []));
    list.push(native);
    this.#order.set(native, bytes);
    this.#bytes += bytes;
  }

  /** Frees every pooled buffer (memory pressure, or the device's end); with `close`, later gives free at once. */
  clear(close = false): void {
    this.#closed ||= close;
    const natives = [...this.#order.keys()];
    this.#order.clear();
    this.#free.clear();
    for (const native of natives) this.destroy(native);
    this.#bytes = 0;
  }

  /** The pool's current statistics. */
  stats(): BufferPoolStats {
    return { pooledBuffers: this.#order.size, pooledBytes: this.#bytes, reused: this.#reused, created: this.#created };
  }

  #dropOldest(): void {
    const [native, bytes] = this.#order.entries().next().value as [Native, number];
    this.#order.delete(native);
    const list = this.#free.get(bytes)!;
    list.splice(list.indexOf(native), 1);
    this.#bytes -= bytes;
    this.destroy(native);
  }
}

/** How many bytes a device pools unless told otherwise (its `bufferPoolBytes` option). */
export const DEFAULT_POOL_BYTES = 1 << 30;
