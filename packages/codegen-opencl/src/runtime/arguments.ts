/**
 * Kernel arguments as the host describes them, and how each becomes the bytes `clSetKernelArg` takes.
 * A scalar's dtype decides its width; the value must fit that dtype exactly (no silent truncation of
 * 3.5 to an int, of 300 to a uint8, or of a 2^60 number that a float64 cannot hold).
 */
import { byteSize, float16Bits, isDType, isFloat, LoomError, type DType } from '@loom/core';
import type { OpenCLBuffer } from './buffer.ts';

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

/** Whether `arg` is what `last` says was set already (`handle` and `generation`: a buffer's, now). */
export function alreadySet(last: SetArgument | undefined, arg: KernelArgument, handle: bigint, generation: number): boolean {
  if (last === undefined || last.kind !== arg.kind) return false;
  switch (last.kind) {
    case 'buffer': return last.handle === handle && last.generation === generation;
    // Object.is: -0 is not 0, and the value must be of the same type (1 is not 1n)
    case 'scalar': return last.dtype === (arg as { dtype: DType }).dtype && Object.is(last.value, (arg as { value: unknown }).value);
    case 'local': return last.byteLength === (arg as { byteLength: number }).byteLength;
  }
}

/** The bytes of a scalar argument in the host's byte order (which OpenCL devices share with their host). */
export function encodeScalar(dtype: DType, value: number | bigint, where: string): Uint8Array {
  if (!isDType(dtype)) throw new LoomError(`${where}: '${String(dtype)}' is not a dtype`);
  if (isFloat(dtype)) return encodeFloat(dtype, value, where);
  return encodeInteger(dtype, value, where);
}

function encodeFloat(dtype: DType, value: number | bigint, where: string): Uint8Array {
  if (typeof value !== 'number') {
    throw new LoomError(`${where}: a ${dtype} scalar needs a number, got ${describe(value)}`);
  }
  switch (dtype) {
    case 'float64': return bytesOf(new Float64Array([value]));
    case 'float32': return bytesOf(new Float32Array([value]));
    default: return bytesOf(new Uint16Array([float16Bits(value)]));
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
