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

// OpenCL's mul_hi and rotate (core's integer-bits functions): the high half of the full product,
// and a left rotation by the count modulo the width.

/** The high 32 bits of the 64-bit product of two uint32s, from 16-bit halves (each partial product is exact in a double). */
export function mulHiU32(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = ((a0 * b0) >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + Math.floor(mid / 0x10000)) >>> 0;
}

/** The high 32 bits of the signed 64-bit product of two int32s. */
export function mulHi32(a: number, b: number): number {
  // a negative operand stands for itself plus 2^32 in the unsigned product: take the other back out
  return (mulHiU32(a >>> 0, b >>> 0) - (a < 0 ? b >>> 0 : 0) - (b < 0 ? a >>> 0 : 0)) | 0;
}

/** The high 64 bits of the 128-bit product of two uint64s (bigints). */
export function mulHiU64(a: bigint, b: bigint): bigint {
  return (a * b) >> 64n;
}

/** The high 64 bits of the signed 128-bit product of two int64s. */
export function mulHi64(a: bigint, b: bigint): bigint {
  return BigInt.asIntN(64, (a * b) >> 64n);
}

/** uint32 `a` rotated left by `b` modulo 32 (int32 with `signed`). */
export function rotate32(a: number, b: number, signed = false): number {
  const s = b & 31;
  const r = s === 0 ? a >>> 0 : ((a << s) | (a >>> (32 - s))) >>> 0;
  return signed ? r | 0 : r;
}

/** uint64 `a` (bigint) rotated left by `b` modulo 64 (int64 with `signed`). */
export function rotate64(a: bigint, b: bigint, signed = false): bigint {
  const x = BigInt.asUintN(64, a);
  const s = BigInt.asUintN(6, b);
  const r = BigInt.asUintN(64, (x << s) | (x >> ((64n - s) & 63n)));
  return signed ? BigInt.asIntN(64, r) : r;
}
