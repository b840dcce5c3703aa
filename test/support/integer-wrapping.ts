/**
 * Two's complement arithmetic in a given integer dtype, in BigInt: the reference the narrow-integer
 * tests and the differential generator hold PyTorch's rule to (each operation in the promoted dtype).
 */
export type WrappedIntDType = 'int8' | 'int16' | 'int32' | 'int64' | 'uint8' | 'uint16';

/** The width of each dtype in bits. */
export const INT_BITS: Readonly<Record<WrappedIntDType, number>> = {
  int8: 8,
  int16: 16,
  int32: 32,
  int64: 64,
  uint8: 8,
  uint16: 16,
};

/** `v` wrapped into `t`, as two's complement arithmetic in `t` leaves it. */
export function wrapInt(v: bigint, t: WrappedIntDType): bigint {
  return t.startsWith('u') ? BigInt.asUintN(INT_BITS[t], v) : BigInt.asIntN(INT_BITS[t], v);
}

/** Pairs of input dtypes and the dtype PyTorch promotes them to, narrow ones and their mixes. */
export const PROMOTED_PAIRS: readonly (readonly [WrappedIntDType, WrappedIntDType, WrappedIntDType])[] = [
  ['int8', 'int8', 'int8'],
  ['uint8', 'uint8', 'uint8'],
  ['int16', 'int16', 'int16'],
  ['uint16', 'uint16', 'uint16'],
  ['int8', 'uint8', 'int16'],
  ['uint8', 'int8', 'int16'],
  ['int8', 'int32', 'int32'],
  ['int16', 'uint8', 'int16'],
];
