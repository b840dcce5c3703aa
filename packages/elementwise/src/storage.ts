/**
 * A buffer in a device's memory that tensors view, and the order of the work on it.
 *
 * Uploads, kernel launches and reads are asynchronous. Each storage remembers the
 * last operation that touched it, and every new operation waits for those of all
 * the storages it touches: a launch sees its inputs uploaded, a read sees the
 * launch that wrote, and an in-place update waits for earlier readers — the order in
 * which the calls were made, as on a CUDA stream, whether or not the caller awaits
 * each call.
 */
import { byteSize, DeviceArray, LoomError, type Device, type DeviceBuffer, type DType } from '@loom/core';

/**
 * Device memory nobody can reach any more goes back to the device, as PyTorch frees a
 * tensor's memory with its last reference. Queued work holds its storages, so memory
 * in use is never collected; `release()` frees earlier, deterministically.
 */
const unreachable = new FinalizationRegistry<{ device: Device; buffer: DeviceBuffer }>(({ device, buffer }) =>
  device.release(buffer),
);

/** Shaped views kept per storage (a storage meets few kernels' shapes). */
const VIEWS_PER_STORAGE = 8;

/** A device buffer shared by tensors (views). */
export class Storage {
  #buffer: DeviceBuffer | undefined;
  /** Settles when the last operation queued on this storage has finished (never rejects). */
  #last: Promise<void> = Promise.resolve();
  /** Whether `#last` has settled: nothing is queued on this storage now. */
  #idle = true;

  private constructor(
    /** The device whose memory it is. */
    readonly device: Device,
    buffer: DeviceBuffer,
    /** The dtype of each stored number (a complex tensor's storage holds its parts). */
    readonly dtype: DType,
    /** How many numbers it holds. */
    readonly length: number,
  ) {
    this.#buffer = buffer;
    unreachable.register(this, { device, buffer }, this);
  }

  /** New storage for `length` numbers of `dtype`, its contents undefined (the device may hand out pooled memory). */
  static allocate(device: Device, dtype: DType, length: number): Storage {
    // WebGPU moves whole 4-byte words; no device minds the rounding
    const bytes = Math.max(4, Math.ceil((length * byteSize(dtype)) / 4) * 4);
    return new Storage(device, device.allocate(bytes), dtype, length);
  }

  /** The device memory; a LoomError once the storage was released. */
  get buffer(): DeviceBuffer {
    if (!this.#buffer) throw new LoomError("this tensor's storage was released");
    return this.#buffer;
  }

  /** Whether the memory was given back to the device. */
  get released(): boolean {
    return this.#buffer === undefined;
  }

  /**
   * The storage as the core's `run` takes an array: flat, `length` numbers, or in the
   * shape a kernel declares its argument with (a vector variant's `[length / 4, 4]`, a
   * tiled input's rows); each shape's view is made once, as devices compare them by identity.
   */
  asDeviceArray(shape: readonly number[] = [this.length]): DeviceArray {
    const buffer = this.buffer;
    const key = shape.join(',');
    let array = this.#arrays.get(key);
    if (!array) {
      if (this.#arrays.size >= VIEWS_PER_STORAGE) this.#arrays.clear();
      array = new DeviceArray(this.device, buffer, this.dtype, shape);
      this.#arrays.set(key, array);
    }
    return array;
  }

  readonly #arrays = new Map<string, DeviceArray>();

  /** Frees the device memory once the work queued on it is done; every view of it becomes unusable. */
  release(): void {
    const buffer = this.#buffer;
    if (!buffer) return;
    this.#buffer = undefined;
    this.#arrays.clear();
    unreachable.unregister(this);
    void this.#last.then(() => this.device.release(buffer));
  }

  /**
   * Runs `op` once every operation queued on `storages` has finished, and queues it on
   * them. The returned promise carries `op`'s result or error; the queue only its end.
   * When nothing is queued on any of them, `op` starts at once, before this returns: a
   * launch is encoded and submitted inside the call that asks for it, not a few promise
   * hops later.
   */
  static after<T>(storages: readonly Storage[], op: () => Promise<T>): Promise<T> {
    const unique = storages.length === 1 ? storages : [...new Set(storages)];
    const result = unique.every((s) => s.#idle) ? startNow(op) : Promise.all(unique.map((s) => s.#last)).then(op);
    // idle again as the op settles (before whoever awaits its result resumes), unless more was queued since
    const done = () => {
      for (const s of unique) if (s.#last === settled) s.#idle = true;
    };
    const settled: Promise<void> = result.then(done, done);
    for (const s of unique) {
      s.#last = settled;
      s.#idle = false;
    }
    return result;
  }
}

/** `op()`, with a synchronous throw turned into a rejection (as `.then(op)` would). */
function startNow<T>(op: () => Promise<T>): Promise<T> {
  try {
    return op();
  } catch (e) {
    return Promise.reject(e);
  }
}
