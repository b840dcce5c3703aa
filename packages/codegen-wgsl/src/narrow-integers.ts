/**
 * Integer dtypes narrower than WGSL's 32 bits: int8, int16, uint8 and uint16 are held in an
 * i32 and wrapped into their range where C's conversion would wrap them.
 */
import { expr as E, isFloat, type DType, type Expr } from '@loom/core';
import { call, operand, Prec, type Printed } from './printed.ts';

/** Literal `e` as the value a variable of `dtype` would hold (wrapped into a narrow type's range). */
export function wrapLiteral(e: Extract<Expr, { kind: 'int' | 'float' | 'bool' }>, dtype: DType): Expr {
  if (e.kind === 'bool' || isFloat(dtype)) return e;
  const bits = { int8: 8, int16: 16, uint8: 8, uint16: 16 }[dtype as string];
  if (bits === undefined) return e;
  const whole = Number.isFinite(e.value) ? Math.trunc(e.value) : 0;
  const wrapped = dtype.startsWith('u') ? BigInt.asUintN(bits, BigInt(whole)) : BigInt.asIntN(bits, BigInt(whole));
  return E.int(Number(wrapped));
}

export const RANGES: Partial<Record<DType, readonly [number, number]>> = {
  bool: [0, 1],
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint8: [0, 255],
  uint16: [0, 65535],
  uint32: [0, 2 ** 32 - 1],
};

export const NARROW: ReadonlySet<DType> = new Set(['int8', 'int16', 'uint8', 'uint16']);

export function fitsIn(from: DType, to: DType): boolean {
  if (from === to) return true;
  const a = RANGES[from];
  const b = RANGES[to];
  return a !== undefined && b !== undefined && a[0] >= b[0] && a[1] <= b[1];
}

/** An i32 wrapped into a narrow integer dtype's range, as C's conversion to that type wraps it. */
export function wrapNarrow(p: Printed, dtype: DType): Printed {
  switch (dtype) {
    case 'int8':
      return call('extractBits', [p.text, '0u', '8u'], 'i32'); // sign-extends bits 0..7
    case 'int16':
      return call('extractBits', [p.text, '0u', '16u'], 'i32');
    case 'uint8':
      return { text: `${operand(p, Prec.Unary)} & 255i`, prec: Prec.Bitwise, type: 'i32' };
    case 'uint16':
      return { text: `${operand(p, Prec.Unary)} & 65535i`, prec: Prec.Bitwise, type: 'i32' };
    default:
      return p;
  }
}
