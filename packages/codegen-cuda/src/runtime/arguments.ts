/**
 * Kernel arguments as the host describes them, and how one launch's become what
 * `cuLaunchKernel` takes: an array of pointers, one per parameter, each to that parameter's
 * value (a device pointer, a CUdeviceptr, is the value of a buffer parameter). The values
 * live in native memory the runtime owns (JS memory has no address to give), one 8-byte slot
 * per parameter; the driver copies them at the launch, so one arena serves every launch.
 */
import { byteSize, LoomError, perObject, scalarBytes, type DType } from '@loom/core';
import { CudaBuffer } from './buffer.ts';
import type { CudaContext } from './context.ts';
import type { CudaFunction } from './module.ts';
import type { Koffi } from './native.ts';

/** An argument of a CUDA kernel launch: a buffer, or a scalar with its dtype. */
export type CudaKernelArgument =
  /** A `T *` parameter. */
  | { kind: 'buffer'; buffer: CudaBuffer }
  /** A by-value parameter (`int n`, `float alpha`); bool travels as one byte, float16 as `__half`'s bits. */
  | { kind: 'scalar'; dtype: DType; value: number | bigint }
  /** A by-value structure, as its bytes: a tensor map (128 bytes) for bulk copies. */
  | { kind: 'bytes'; bytes: Uint8Array };

/** Every parameter fits one slot: a tensor map, the widest, is 128 bytes (64-byte aligned). */
const SLOT = 128;

/** A frozen scalar argument's bytes, encoded once (`run` passes the same frozen arguments launch after launch). */
const frozenScalarBytes = perObject((arg: { dtype: DType; value: number | bigint }) =>
  scalarBytes(arg.dtype, arg.value, 'a scalar argument'),
);

/** The native memory holding one launch's argument values, and the pointers to them. */
export class ParameterArena {
  #base = 0n;
  #bytes: Uint8Array = new Uint8Array(0);
  #view: DataView = new DataView(new ArrayBuffer(0));
  /** `#base + 8 * k` at index k: what `kernelParams` points to. */
  #pointers: BigUint64Array = new BigUint64Array(0);

  constructor(private readonly koffi: Koffi) {}

  /**
   * Writes `args` into the arena and returns the pointer array for `cuLaunchKernel`. Each
   * argument is checked: a buffer of this context, not released; a scalar that fits its
   * dtype; and, where the driver says what the kernel takes, as many arguments as it has
   * parameters, each of the size of its parameter.
   */
  pack(context: CudaContext, fn: CudaFunction, args: readonly CudaKernelArgument[]): BigUint64Array {
    if (!Array.isArray(args)) throw new LoomError(`kernel '${fn.name}': the arguments must be an array`);
    const sizes = fn.parameterSizes;
    if (sizes && sizes.length !== args.length) {
      throw new LoomError(`kernel '${fn.name}': it takes ${sizes.length} arguments, ${args.length} given`);
    }
    this.#reserve(args.length);
    for (let k = 0; k < args.length; k++) {
      const arg = args[k];
      const where = `kernel '${fn.name}', argument ${k}`;
      const offset = k * SLOT;
      let size: number;
      if (arg?.kind === 'buffer') {
        if (!(arg.buffer instanceof CudaBuffer))
          throw new LoomError(`${where}: expected a CudaBuffer from createBuffer`);
        this.#view.setBigUint64(offset, arg.buffer.handleFor(context, where), true);
        size = 8;
      } else if (arg?.kind === 'bytes') {
        if (!(arg.bytes instanceof Uint8Array) || arg.bytes.length > SLOT)
          throw new LoomError(`${where}: expected at most ${SLOT} bytes of a structure`);
        this.#bytes.set(arg.bytes, offset);
        size = arg.bytes.length;
      } else if (arg?.kind === 'scalar') {
        const bytes = Object.isFrozen(arg) ? scalarOf(arg, where) : scalarBytes(arg.dtype, arg.value, where);
        this.#bytes.set(bytes, offset);
        size = byteSize(arg.dtype);
      } else {
        throw new LoomError(
          `${where}: expected { kind: 'buffer' | 'scalar' | 'bytes', ... }, got ${JSON.stringify(arg)}`,
        );
      }
      if (sizes && sizes[k] !== size) {
        const what =
          arg.kind === 'buffer'
            ? 'a buffer (an 8-byte pointer)'
            : arg.kind === 'bytes'
              ? `a structure of ${size} bytes`
              : `a ${arg.dtype} scalar of ${size} bytes`;
        throw new LoomError(
          `${where}: ${what}, but the kernel's parameter ${k} takes ${sizes[k]} bytes; does the kernel declare that type here?`,
        );
      }
    }
    return this.#pointers;
  }

  /** Gives the native memory back (the context's end). */
  free(): void {
    if (this.#base !== 0n) this.koffi.free(this.#base);
    this.#base = 0n;
    this.#bytes = new Uint8Array(0);
    this.#view = new DataView(this.#bytes.buffer);
    this.#pointers = new BigUint64Array(0);
  }

  /** Room for `count` slots: grown by doubling (a kernel's parameters are few; this happens once or twice). */
  #reserve(count: number): void {
    if (count <= this.#pointers.length && this.#base !== 0n) return;
    const capacity = Math.max(16, 2 ** Math.ceil(Math.log2(Math.max(count, 1))));
    this.free();
    this.#base = this.koffi.alloc('uint8_t', capacity * SLOT) as bigint;
    this.#bytes = new Uint8Array(this.koffi.view(this.#base, capacity * SLOT));
    this.#view = new DataView(this.#bytes.buffer);
    this.#pointers = BigUint64Array.from({ length: capacity }, (_, k) => this.#base + BigInt(k * SLOT));
  }
}

/** A frozen scalar's bytes, from the cache; the error of a bad value names this argument. */
function scalarOf(arg: { dtype: DType; value: number | bigint }, where: string): Uint8Array {
  try {
    return frozenScalarBytes(arg);
  } catch {
    return scalarBytes(arg.dtype, arg.value, where);
  }
}
