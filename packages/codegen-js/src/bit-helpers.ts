/**
 * Shifts as Loom defines them on every device (PyTorch's meaning): a count outside
 * [0, width) shifts everything out, so `a << 40` is 0 and `a >> 40` is 0 or -1 by the
 * sign of a signed `a` (0 for an unsigned one). C leaves those counts undefined, and
 * JavaScript's own `<<` takes the count modulo 32, so the count is tested here first.
 * Left shifts wrap: the bits shifted past the top are lost, for signed types too.
 */

/** `a << b` for int32. */
export function shl32(a: number, b: number): number {
  return b >= 0 && b < 32 ? a << b : 0;
}

/** `a << b` for uint32. */
export function shlU32(a: number, b: number): number {
  return b >= 0 && b < 32 ? (a << b) >>> 0 : 0;
}

/** `a >> b` for int32: arithmetic, the sign filling in. */
export function shr32(a: number, b: number): number {
  return a >> (b >= 0 && b < 32 ? b : 31);
}

/** `a >> b` for uint32: logical. */
export function shrU32(a: number, b: number): number {
  return b >= 0 && b < 32 ? a >>> b : 0;
}

/** `a << b` for int64 (bigints). */
export function shl64(a: bigint, b: bigint): bigint {
  return b >= 0n && b < 64n ? BigInt.asIntN(64, a << b) : 0n;
}

/** `a << b` for uint64. */
export function shlU64(a: bigint, b: bigint): bigint {
  return b >= 0n && b < 64n ? BigInt.asUintN(64, a << b) : 0n;
}

/** `a >> b` for int64: arithmetic (bigint `>>` is, on the signed value). */
export function shr64(a: bigint, b: bigint): bigint {
  return a >> (b >= 0n && b < 64n ? b : 63n);
}

/** `a >> b` for uint64. */
export function shrU64(a: bigint, b: bigint): bigint {
  return b >= 0n && b < 64n ? a >> b : 0n;
}
