/**
 * Small WGSL functions for what WGSL has no operator or built-in for, with the semantics
 * the CPU reference (and OpenCL C) give: Python's `//` and `%`, integer `**`, C's `round`
 * (halves away from zero) and `pow` (negative bases with whole exponents), `cbrt`, `erf`,
 * OpenCL's `mul_hi` (from 16-bit halves: WGSL has no 64-bit integer) and `rotate`.
 * An integer division by zero gives 0, as on the CPU device (undefined in C). NaN and
 * infinity are made at run time: WGSL rejects them as constants. What needs the bits of
 * a float (NaN tests, exact fmod, saturating conversions, C's pow) is in `ieee-helpers.ts`.
 *
 * The printer asks for a helper by kind and type; the module prints each one used, once.
 */
import { InternalError } from '@loom/core';
import { ieeeHelperDefinition, ieeeHelperDependencies, type IeeeHelperKind } from './ieee-helpers.ts';
import {
  MATH_HELPER_KINDS,
  mathHelperDefinition,
  mathHelperDependencies,
  type MathHelperKind,
} from './math-helpers.ts';
import type { WgslScalar } from './types.ts';

export type HelperKind =
  | 'abs'
  | 'floor_div'
  | 'mod'
  | 'pow'
  | 'round'
  | 'cbrt'
  | 'erf'
  | 'nan'
  | 'infinity'
  | 'shl'
  | 'shr'
  | 'mul_hi'
  | 'rotate'
  | 'at_run_time'
  | 'to_bfloat16'
  | IeeeHelperKind
  | MathHelperKind;

const IEEE_KINDS: ReadonlySet<string> = new Set<IeeeHelperKind>([
  'div',
  'is_nan',
  'truthy',
  'fmod',
  'remainder',
  'maximum',
  'minimum',
  'to_i32',
  'to_u32',
  'pow',
]);
const isFloatScalar = (t: WgslScalar) => t === 'f32' || t === 'f16';

/** Whether `kind` for `t` is one of `ieee-helpers.ts` (float pow is; integer pow is here). */
function isIeee(kind: HelperKind, t: WgslScalar): boolean {
  return IEEE_KINDS.has(kind) && (kind !== 'pow' || isFloatScalar(t));
}

/** The helpers that helper `kind` for `t` calls, to be defined with it. */
export function helperDependencies(kind: HelperKind, t: WgslScalar): readonly (readonly [HelperKind, WgslScalar])[] {
  if (MATH_HELPER_KINDS.has(kind))
    return mathHelperDependencies(kind as MathHelperKind, t) as readonly (readonly [HelperKind, WgslScalar])[];
  return isIeee(kind, t) ? ieeeHelperDependencies(kind as IeeeHelperKind, t) : [];
}

export function helperName(kind: HelperKind, t: WgslScalar): string {
  return `${kind}_${t}`;
}

/** The definition of helper `kind` for type `t`. */
export function helperDefinition(kind: HelperKind, t: WgslScalar): string {
  const name = helperName(kind, t);
  if (isIeee(kind, t)) return ieeeHelperDefinition(kind as IeeeHelperKind, t, name);
  if (MATH_HELPER_KINDS.has(kind)) return mathHelperDefinition(kind as MathHelperKind, t, name);
  const one = t === 'f16' ? '1.0h' : '1.0';
  switch (kind) {
    case 'at_run_time':
      return [
        `// x itself, as a value of the running shader: WGSL evaluates a built-in of constants`,
        `// when it compiles, and refuses one outside its domain (sqrt(-2.5)) instead of giving NaN`,
        `fn ${name}(x: ${t}) -> ${t} { return x; }`,
      ].join('\n');
    case 'to_bfloat16':
      return toBfloat16(name, t);
    case 'abs':
      return [
        `// |x| of an i32 (-2147483648 stays itself, as abs() gives): NVIDIA's Vulkan driver (580)`,
        `// miscompiled abs() of an i32 compared in a select (bench/repro-nvidia-wgsl-abs.ts)`,
        `fn ${name}(x: ${t}) -> ${t} { return select(-x, x, x >= 0i); }`,
      ].join('\n');
    case 'mul_hi':
      return mulHi(name, t);
    case 'rotate':
      return [
        `// a rotated left by b modulo 32, on the bits (OpenCL's rotate)`,
        `fn ${name}(a: ${t}, b: ${t}) -> ${t} {`,
        `  let x = bitcast<u32>(a);`,
        `  let s = bitcast<u32>(b) & 31u;`,
        `  return bitcast<${t}>((x << s) | (x >> ((32u - s) & 31u)));`,
        `}`,
      ].join('\n');
    case 'floor_div':
      return [
        `// Python's a // b: the quotient rounded down (WGSL's / truncates)`,
        `fn ${name}(a: ${t}, b: ${t}) -> ${t} {`,
        `  if (b == 0i) { return 0i; }`,
        `  let q = a / b;`,
        `  return select(q, q - 1i, a % b != 0i && ((a < 0i) != (b < 0i)));`,
        `}`,
      ].join('\n');
    case 'mod':
      if (t === 'i32') {
        return [
          `// Python's a % b: the remainder has the sign of b (WGSL's % takes a's)`,
          `fn ${name}(a: i32, b: i32) -> i32 {`,
          `  if (b == 0i) { return 0i; }`,
          `  let r = a % b;`,
          `  return select(r, r + b, r != 0i && ((r < 0i) != (b < 0i)));`,
          `}`,
        ].join('\n');
      }
      throw new InternalError(`float % is the 'remainder' helper, not 'mod'`);
    case 'pow':
      if (t === 'i32' || t === 'u32') {
        const lit = (n: number) => `${n}${t === 'i32' ? 'i' : 'u'}`;
        const negative =
          t === 'i32'
            ? [
                `  if (exponent < 0i) {`,
                `    // the integer part of 1 / base^-exponent`,
                `    if (base == 1i) { return 1i; }`,
                `    if (base == -1i) { return select(1i, -1i, (exponent & 1i) != 0i); }`,
                `    return 0i;`,
                `  }`,
              ]
            : [];
        return [
          `// integer a ** b by repeated squaring; products wrap, as repeated multiplication would`,
          `fn ${name}(base: ${t}, exponent: ${t}) -> ${t} {`,
          ...negative,
          `  var result = ${lit(1)};`,
          `  var square = base;`,
          `  for (var e = exponent; e > ${lit(0)}; e = e / ${lit(2)}) {`,
          `    if ((e & ${lit(1)}) != ${lit(0)}) { result = result * square; }`,
          `    square = square * square;`,
          `  }`,
          `  return result;`,
          `}`,
        ].join('\n');
      }
      throw new InternalError(`float pow is in ieee-helpers.ts`);
    case 'round':
      return [
        `// C's round: halves away from zero (WGSL's round takes them to even)`,
        `fn ${name}(x: ${t}) -> ${t} {`,
        `  let whole = trunc(x);`,
        `  return select(whole, whole + sign(x), abs(x - whole) >= ${t === 'f16' ? '0.5h' : '0.5'});`,
        `}`,
      ].join('\n');
    case 'cbrt':
      return [
        `// the real cube root, negative for negative x`,
        `fn ${name}(x: ${t}) -> ${t} {`,
        `  return sign(x) * pow(abs(x), ${one} / ${t === 'f16' ? '3.0h' : '3.0'});`,
        `}`,
      ].join('\n');
    case 'erf': {
      // Abramowitz and Stegun 7.1.26: absolute error below 1.5e-7, about float32's resolution
      const x = t === 'f32' ? 'x' : 'f32(x)';
      const result = 'sign(x32) * (1.0 - poly * exp(-a * a))';
      return [
        `// the error function (Abramowitz & Stegun 7.1.26, absolute error < 1.5e-7)`,
        `fn ${name}(x: ${t}) -> ${t} {`,
        `  let x32 = ${x};`,
        `  let a = abs(x32);`,
        `  let t = 1.0 / (1.0 + 0.3275911 * a);`,
        `  let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));`,
        `  return ${t === 'f32' ? result : `f16(${result})`};`,
        `}`,
      ].join('\n');
    }
    case 'shl':
    case 'shr': {
      // WGSL takes the count modulo 32 (and refuses a constant one out of range): tested first
      const zero = t === 'i32' ? '0i' : '0u';
      const inRange = t === 'i32' ? 'b >= 0i && b < 32i' : 'b < 32u';
      const body =
        kind === 'shl'
          ? `select(${zero}, a << u32(b), ${inRange})`
          : t === 'i32'
            ? 'a >> select(31u, u32(b), b >= 0i && b < 32i)'
            : `select(0u, a >> b, ${inRange})`;
      return [
        `// a ${kind === 'shl' ? '<<' : '>>'} b, a count outside [0, 32) shifting everything out (PyTorch's meaning)`,
        `fn ${name}(a: ${t}, b: ${t}) -> ${t} {`,
        `  return ${body};`,
        `}`,
      ].join('\n');
    }
    case 'nan':
    case 'infinity': {
      const bits = kind === 'nan' ? '0x7fc00000u' : '0x7f800000u';
      const value = t === 'f32' ? 'bitcast<f32>(bits)' : 'f16(bitcast<f32>(bits))';
      return [
        `// ${kind === 'nan' ? 'NaN' : 'positive infinity'}, made at run time: WGSL refuses it as a constant`,
        `fn ${name}() -> ${t} {`,
        `  var bits = ${bits};`,
        `  return ${value};`,
        `}`,
      ].join('\n');
    }
    default:
      throw new InternalError(`no WGSL helper '${kind}' for ${t}`);
  }
}

/**
 * An f32 rounded to the nearest bfloat16 (ties to even), as an f32: bfloat16 is computed in f32
 * (types.ts), every operation's result rounded by this. On the bits: the low 16 are rounded away
 * (adding 0x7fff, and one more for an odd bit 16, carries into them exactly where the discarded
 * half is above a tie or at a tie with an odd result), and a carry out of the mantissa steps the
 * exponent, up to infinity. A NaN becomes the canonical quiet NaN (its payload would be cut, and
 * rounding could make an infinity of it); it is told on the bits, as `is_nan` does, since a
 * compiler may assume x == x.
 */
function toBfloat16(name: string, t: WgslScalar): string {
  if (t !== 'f32') throw new InternalError(`bfloat16 is computed in f32, not ${t}`);
  return [
    `// x rounded to the nearest bfloat16 (ties to even), as an f32: WGSL has no bfloat16; NaN becomes the quiet NaN`,
    `fn ${name}(x: f32) -> f32 {`,
    `  let b = bitcast<u32>(x);`,
    `  let rounded = (b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u;`,
    `  return bitcast<f32>(select(rounded, 0x7fc00000u, (b & 0x7fffffffu) > 0x7f800000u));`,
    `}`,
  ].join('\n');
}

/**
 * `mul_hi` of u32 or i32: the high 32 bits of the 64-bit product, from four 16-bit partial
 * products. Each partial product is added to the carry running up from the one below it, where
 * it cannot overflow (at most (2^16 - 1)^2 + 2^16 - 1), so most additions fuse into the
 * multiplications (integer multiply-adds): Philox's rounds on WebGPU are these multiplications.
 */
function mulHi(name: string, t: WgslScalar): string {
  const signed = t === 'i32';
  return [
    `// the high 32 bits of the ${signed ? 'signed ' : ''}64-bit product (WGSL has no 64-bit integer)`,
    `fn ${name}(a: ${t}, b: ${t}) -> ${t} {`,
    `  let ua = bitcast<u32>(a);`,
    `  let ub = bitcast<u32>(b);`,
    `  let a0 = ua & 0xffffu; let a1 = ua >> 16u; let b0 = ub & 0xffffu; let b1 = ub >> 16u;`,
    `  let t = a1 * b0 + ((a0 * b0) >> 16u);`,
    `  let m = a0 * b1 + (t & 0xffffu);`,
    `  var hi = a1 * b1 + (t >> 16u) + (m >> 16u);`,
    // a negative operand stands for itself plus 2^32: take the other operand back out
    ...(signed ? [`  if (a < 0i) { hi -= ub; }`, `  if (b < 0i) { hi -= ua; }`] : []),
    `  return bitcast<${t}>(hi);`,
    `}`,
  ].join('\n');
}
