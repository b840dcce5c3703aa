/**
 * The bytes of a scalar kernel argument, as a native API takes them by value (OpenCL's
 * `clSetKernelArg`, CUDA's `cuLaunchKernel`): the dtype decides the width, the host's byte
 * order the layout (GPUs share it with their host). The value must fit the dtype exactly:
 * 3.5 is no int, 300 no uint8, and a number beyond 2^53 may already have lost digits, so
 * none of them is truncated silently.
 */
import type { DType } from '../dtypes.ts';
import { byteSize, isComplex, isDType, isFloat } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { bfloat16Bits } from '../bfloat16.ts';
import { float16Bits } from '../float16.ts';

/**
 * The bytes of `value` as a `dtype` scalar (bool one byte, float16 and bfloat16 their bits), in the
 * host's byte order; a value that does not fit is a LoomError that starts with `where`.
 */
export function scalarBytes(dtype: DType, value: number | bigint, where: string): Uint8Array {
  if (!isDType(dtype)) throw new LoomError(`${where}: '${String(dtype)}' is not a dtype`);
  if (isComplex(dtype))
    throw new LoomError(
      `${where}: '${dtype}' is not a dtype a scalar argument can have (a complex value travels as its two parts)`,
    );
  if (isFloat(dtype)) return floatBytes(dtype, value, where);
  return integerBytes(dtype, value, where);
}

function floatBytes(dtype: DType, value: number | bigint, where: string): Uint8Array {
  if (typeof value !== 'number') {
    throw new LoomError(`${where}: a ${dtype} scalar needs a number, got ${describe(value)}`);
  }
  switch (dtype) {
    case 'float64':
      return bytesOf(new Float64Array([value]));
    case 'float32':
      return bytesOf(new Float32Array([value]));
    case 'bfloat16':
      return bytesOf(new Uint16Array([bfloat16Bits(value)]));
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

function integerBytes(dtype: DType, value: number | bigint, where: string): Uint8Array {
  if (typeof value === 'number') {
    if (!Number.isInteger(value))
      throw new LoomError(`${where}: a ${dtype} scalar needs an integer, got ${describe(value)}`);
    if (!Number.isSafeInteger(value)) {
      throw new LoomError(
        `${where}: ${value} is beyond 2^53 and may already have lost digits; pass a ${dtype} this large as a bigint`,
      );
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
