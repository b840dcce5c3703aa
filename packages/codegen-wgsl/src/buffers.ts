/**
 * The WebGPU device's memory: `GpuBuffer`, what a `DeviceBuffer` is on WebGPU, and
 * `GpuMemory`, which makes them and takes them back.
 *
 * A new GPUBuffer costs Dawn a validation round trip (its allocation is only known to
 * have worked once the error scopes around it come back) and a zero-fill of its memory
 * on first use. Released buffers are therefore pooled (`BufferPool` from @loom/core) and
 * handed out again, already validated: a `pointwise()` call that makes a new output takes
 * one from the pool. Each hand-out is a new `GpuBuffer`; a released one stays released.
 * Buffers nobody can reach any more go back to the pool too, when they are collected.
 */
/// <reference types="@webgpu/types" preserve="true" />
import { BufferPool, LoomError, sizeClass, type BufferPoolStats, type DeviceBuffer } from '@loom/core';
import { roundUp } from './bindings.ts';

// WebGPU's flag values (no GPUBufferUsage global in Node without the `webgpu` package's globals)
const USAGE = { COPY_SRC: 0x4, COPY_DST: 0x8, STORAGE: 0x80 } as const;
const STORAGE_USAGE = USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST;

/**
 * What a buffer's way back to the pool needs, shared by the buffer and its finalizer (which
 * must not reference the buffer itself).
 */
interface Allocation {
  readonly native: GPUBuffer;
  /** The native buffer's size (a pool size class). */
  readonly bytes: number;
  /** undefined while WebGPU has not said; then true, or the error message. */
  status: true | string | undefined;
  readonly memory: GpuMemory;
}

const unreachable = new FinalizationRegistry<Allocation>((allocation) => allocation.memory.recycle(allocation));

export class GpuBuffer implements DeviceBuffer {
  #allocation: Allocation | undefined;

  constructor(
    allocation: Allocation,
    /** The size asked for; the native buffer may be larger (its size class). */
    readonly byteLength: number,
    /** Resolves to an error message if the allocation failed (WebGPU reports that asynchronously). */
    private readonly allocated: Promise<string | undefined>,
  ) {
    this.#allocation = allocation;
    unreachable.register(this, allocation, this);
  }

  /** The bytes a binding of this buffer covers: its size, in whole words. */
  get bindingSize(): number {
    return Math.max(4, roundUp(this.byteLength, 4));
  }

  /** The GPUBuffer once its allocation is known to have worked: at once when that is known already. */
  readyNow(): GPUBuffer | undefined {
    const allocation = this.#live();
    return allocation.status === true ? allocation.native : undefined;
  }

  /** The GPUBuffer, once its allocation is known to have succeeded. */
  async ready(): Promise<GPUBuffer> {
    const error = await this.allocated;
    if (error) throw new LoomError(`a WebGPU buffer of ${this.byteLength} bytes could not be allocated: ${error}`);
    return this.gpuBuffer;
  }

  /** The native buffer (possibly larger than `byteLength`); a LoomError once released. */
  get gpuBuffer(): GPUBuffer {
    return this.#live().native;
  }

  get released(): boolean {
    return this.#allocation === undefined;
  }

  /** Throws the LoomError of a released buffer. */
  assertLive(): void {
    this.#live();
  }

  release(): void {
    const allocation = this.#allocation;
    if (!allocation) return;
    this.#allocation = undefined;
    unreachable.unregister(this);
    allocation.memory.recycle(allocation);
  }

  #live(): Allocation {
    if (!this.#allocation) throw new LoomError('a WebGPU buffer was used after it was released');
    return this.#allocation;
  }
}

/** Makes `GpuBuffer`s from the pool or from Dawn, and takes them back. */
export class GpuMemory {
  readonly #pool: BufferPool<GPUBuffer>;

  constructor(
    private readonly device: GPUDevice,
    /** The largest buffer the device allows (a size class is never rounded past it). */
    private readonly maxBufferSize: number,
    poolBytes: number,
  ) {
    this.#pool = new BufferPool(poolBytes, (native) => native.destroy());
  }

  allocate(byteLength: number): GpuBuffer {
    const words = Math.max(4, roundUp(byteLength, 4));
    const classBytes = sizeClass(words);
    const bytes = classBytes <= this.maxBufferSize ? classBytes : words;
    const pooled = this.#pool.take(bytes);
    if (pooled)
      return new GpuBuffer(
        { native: pooled, bytes, status: true, memory: this },
        byteLength,
        Promise.resolve(undefined),
      );

    const device = this.device;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    const native = device.createBuffer({ size: bytes, usage: STORAGE_USAGE });
    const allocation: Allocation = { native, bytes, status: undefined, memory: this };
    const allocated = Promise.all([device.popErrorScope(), device.popErrorScope()]).then(
      (errors) => errors.find((e) => e !== null)?.message,
      (e: Error) => e.message,
    );
    void allocated.then((error) => {
      allocation.status = error ?? true;
    });
    return new GpuBuffer(allocation, byteLength, allocated);
  }

  /** Where a released (or collected) buffer goes: the pool, unless its allocation failed or is not known yet. */
  recycle(allocation: Allocation): void {
    if (allocation.status === true) this.#pool.give(allocation.native, allocation.bytes);
    else allocation.native.destroy();
  }

  stats(): BufferPoolStats {
    return this.#pool.stats();
  }

  /** Frees the pooled buffers (`close`: for good, later releases free at once). */
  clear(close = false): void {
    this.#pool.clear(close);
  }
}
