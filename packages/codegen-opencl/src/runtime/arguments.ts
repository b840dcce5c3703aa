/**
 * Kernel arguments as the host describes them, how each becomes the bytes `clSetKernelArg` takes,
 * and setting them (skipped for an argument the kernel holds already).
 * A scalar's dtype decides its width; the value must fit that dtype exactly (no silent truncation of
 * 3.5 to an int, of 300 to a uint8, or of a 2^60 number that a float64 cannot hold).
 */
import { byteSize, float16Bits, isComplex, isDType, isFloat, LoomError, type DType } from '@loom/core';
import type { OpenCLApi } from './bindings.ts';
import type { OpenCLBuffer } from './buffer.ts';
import { CL_SUCCESS } from './constants.ts';
import { OpenCLError } from './errors.ts';
import type { KernelHandle } from './program.ts';

/** An argument of an OpenCL kernel launch: a buffer, a scalar with its dtype, or local memory of a size. */
export type KernelArgument =
  /** A `__global T *` parameter. */
  | { kind: 'buffer'; buffer: OpenCLBuffer }
  /** A by-value parameter (`int n`, `float alpha`); bool travels as one byte, float16 as `half`. */
  | { kind: 'scalar'; dtype: DType; value: number | bigint }
  /** A `__local T *` parameter: the device allocates `byteLength` bytes per work-group. */
  | { kind: 'local'; byteLength: number };

/**
 * What an argument index of a kernel was last set to: a cl_mem (valid within a generation
 * of freed cl_mems, whose numbers may come back), a scalar's dtype and value, or an amount
 * of local memory.
 */
export type SetArgument =
  | { readonly kind: 'buffer'; readonly handle: bigint; readonly generation: number }
  | { readonly kind: 'scalar'; readonly dtype: DType; readonly value: number | bigint }
  | { readonly kind: 'local'; readonly byteLength: number };

/** Where an argument is set, and what it is now: a buffer's handle and the generation of freed handles. */
export interface ArgumentContext {
  readonly handle: bigint;
  readonly generation: number;
  readonly localMemSize: number;
  /** 'kernel 'name', argument k', for messages. */
  readonly where: string;
}

/** The one scratch cell for a cl_mem argument's bytes (clSetKernelArg copies them). */
const handleBytes = new BigUint64Array(1);

/**
 * Sets argument `index` of `kernel` to `arg`, unless the kernel holds exactly that already
 * (`kernel.lastSet`): a kernel keeps its arguments between launches.
 */
export function setArgument(api: OpenCLApi, kernel: KernelHandle, index: number, arg: KernelArgument, at: ArgumentContext): void {
  const { handle, generation, where } = at;
  if (alreadySet(kernel.lastSet[index], arg, handle, generation)) return;
  kernel.lastSet[index] = undefined;
  let size: number;
  let value: ArrayBufferView | null;
  let set: SetArgument;
  switch (arg?.kind) {
    case 'buffer':
      handleBytes[0] = handle;
      value = handleBytes;
      size = value.byteLength;
      set = { kind: 'buffer', handle, generation };
      break;
    case 'scalar':
      value = encodeScalar(arg.dtype, arg.value, where);
      size = value.byteLength;
      set = { kind: 'scalar', dtype: arg.dtype, value: arg.value };
      break;
    case 'local':
      if (!Number.isSafeInteger(arg.byteLength) || arg.byteLength <= 0) {
        throw new LoomError(`${where}: local memory needs a positive whole number of bytes, got ${arg.byteLength}`);
      }
      if (arg.byteLength > at.localMemSize) {
        throw new LoomError(`${where}: ${arg.byteLength} bytes of local memory exceed the device's ${at.localMemSize}`);
      }
      value = null; // OpenCL's way of saying "allocate this much __local memory"
      size = arg.byteLength;
      set = { kind: 'local', byteLength: arg.byteLength };
      break;
    default:
      throw new LoomError(`${where}: expected { kind: 'buffer' | 'scalar' | 'local', ... }, got ${JSON.stringify(arg)}`);
  }
  const code = api.clSetKernelArg(kernel.handle, index, size, value);
  if (code !== CL_SUCCESS) throw new OpenCLError('clSetKernelArg', code, `${where} (${describeArgument(arg, size)})`);
  kernel.lastSet[index] = set;
}

function describeArgument(arg: KernelArgument, size: number): string {
  switch (arg.kind) {
    case 'buffer':
      return 'a buffer; does the kernel declare a pointer here?';
    case 'scalar':
      return `a ${arg.dtype} scalar of ${size} bytes; does the kernel declare that type here?`;
    case 'local':
      return `${size} bytes of local memory; does the kernel declare a __local pointer here?`;
  }
}

/** Whether `arg` is what `last` says was set already (`handle` and `generation`: a buffer's, now). */
function alreadySet(last: SetArgument | undefined, arg: KernelArgument, handle: bigint, generation: number): boolean {
  if (last === undefined || last.kind !== arg.kind) return false;
  switch (last.kind) {
    case 'buffer':
      return last.handle === handle && last.generation === generation;
    // Object.is: -0 is not 0, and the value must be of the same type (1 is not 1n)
    case 'scalar':
      return last.dtype === (arg as { dtype: DType }).dtype && Object.is(last.value, (arg as { value: unknown }).value);
    case 'local':
      return last.byteLength === (arg as { byteLength: number }).byteLength;
  }
}

/** The bytes of a scalar argument in the host's byte order (which OpenCL devices share with their host). */
export function encodeScalar(dtype: DType, value: number | bigint, where: string): Uint8Array {
  if (!isDType(dtype)) throw new LoomError(`${where}: '${String(dtype)}' is not a dtype`);
  if (isComplex(dtype)) throw new LoomError(`${where}: '${dtype}' is not a dtype a scalar argument can have (a complex value travels as its two parts)`);
  if (isFloat(dtype)) return encodeFloat(dtype, value, where);
  return encodeInteger(dtype, value, where);
}

function encodeFloat(dtype: DType, value: number | bigint, where: string): Uint8Array {
  if (typeof value !== 'number') {
    throw new LoomError(`${where}: a ${dtype} scalar needs a number, got ${describe(value)}`);
  }
  switch (dtype) {
    case 'float64':
      return bytesOf(new Float64Array([value]));
    case 'float32':
      return bytesOf(new Float32Array([value]));
    default:
      return bytesOf(new Uint16Array([float16Bits(value)]));
  }
}

const INTEGER_RANGES: Record<string, [bigint, bigint]> = {
  bool: [0n, 1n],
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

function encodeInteger(dtype: DType, value: number | bigint, where: string): Uint8Array {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new LoomError(`${where}: a ${dtype} scalar needs an integer, got ${describe(value)}`);
    if (!Number.isSafeInteger(value)) {
      throw new LoomError(`${where}: ${value} is beyond 2^53 and may already have lost digits; pass a ${dtype} this large as a bigint`);
    }
  } else if (typeof value !== 'bigint') {
    throw new LoomError(`${where}: a ${dtype} scalar needs a number or bigint, got ${describe(value)}`);
  }
  const integer = BigInt(value);
  const [min, max] = INTEGER_RANGES[dtype];
  if (integer < min || integer > max) {
    throw new LoomError(`${where}: ${integer} does not fit in ${dtype} (${min} .. ${max})`);
  }
  // two's complement of the value in the dtype's width, little end first
  const bytes = new Uint8Array(byteSize(dtype));
  let bits = BigInt.asUintN(bytes.length * 8, integer);
  for (let i = 0; i < bytes.length; i++, bits >>= 8n) bytes[i] = Number(bits & 0xffn);
  return littleEndian ? bytes : bytes.reverse();
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function bytesOf(array: Float64Array | Float32Array | Uint16Array): Uint8Array {
  return new Uint8Array(array.buffer);
}

function describe(value: unknown): string {
  return typeof value === 'bigint' ? `the bigint ${value}n` : typeof value === 'number' ? String(value) : typeof value;
}
