/**
 * C helper functions for what Loom's arithmetic means where C's does not say
 * (the README's table; the CPU and WebGPU devices compute the same):
 *
 * - integer `/`, `//`, `%` by zero give 0, and `INT_MIN / -1` wraps to INT_MIN (both
 *   are undefined in C, and trap on x86); `//` rounds down and `%` takes the
 *   divisor's sign, as Python's;
 * - integer `**` with a negative exponent is the integer part of 1/a^-b (PyTorch's);
 * - float `%` is PyTorch's `remainder`, built on the exact `fmod`;
 * - float `min`/`max` propagate NaN (`torch.minimum`/`maximum`; C's fmin/fmax drop it)
 *   and order -0 below +0; `fmin`/`fmax` are C's, with the zeros ordered the same way;
 * - shifts by a count outside [0, width) shift everything out (PyTorch's; OpenCL takes the
 *   count modulo the width, C and CUDA leave it undefined), and a left shift wraps instead of overflowing;
 * - `mul_hi` and `rotate` (OpenCL's built-ins) where a dialect has no built-in of its own: the
 *   64-bit high half from 32-bit halves (C99 has no 128-bit type), the rotation count modulo the width;
 * - `opaque`, the identity on a float, where a compiler folds sums with a literal zero wrongly
 *   (`CDialect.foldsZeroSums`).
 *
 * Each helper is named for its kind and dtype and defined once per program.
 */
import { byteSize, isFloat, type DType } from '@loom/core';
import type { CDialect } from './dialect.ts';

/** The helpers' kinds: what each computes is the file's comment. */
export type HelperKind =
  | 'div'
  | 'floor_div'
  | 'mod'
  | 'pow'
  | 'maximum'
  | 'minimum'
  | 'fmax'
  | 'fmin'
  | 'shl'
  | 'shr'
  | 'mul_hi'
  | 'rotate'
  | 'opaque';

/** The name of helper `kind` for dtype `t` (`loom_div_int32`), the same in every dialect. */
export function helperName(kind: HelperKind, t: DType): string {
  return `loom_${kind}_${t}`;
}

/** The unsigned dtype of the same width as a signed integer dtype. */
const UNSIGNED: Partial<Record<DType, DType>> = { int8: 'uint8', int16: 'uint16', int32: 'uint32', int64: 'uint64' };

/** The definition of helper `kind` for dtype `t`, in `dialect`. */
export function helperDefinition(kind: HelperKind, t: DType, dialect: CDialect): string {
  const name = helperName(kind, t);
  const ct = dialect.type(t);
  const unsigned = UNSIGNED[t] && dialect.type(UNSIGNED[t]);
  const signed = unsigned !== undefined;
  // -a computed in the unsigned type: wraps for INT_MIN instead of overflowing
  const negated = signed ? `(${ct}) (0 - (${unsigned}) a)` : '0';
  const lines = (...body: string[]) =>
    [`${dialect.helperQualifier} ${ct} ${name}(${ct} a, ${ct} b)`, '{', ...body.map((l) => `  ${l}`), '}'].join('\n');
  switch (kind) {
    case 'opaque':
      return [
        `${dialect.helperQualifier} ${ct} ${name}(${ct} a)`,
        '{',
        '  // a itself, which the front end cannot take for never -0 (and fold 0.0 - a to -a) through a call',
        '  return a;',
        '}',
      ].join('\n');
    case 'div':
      return lines(
        '// C leaves x / 0 and INT_MIN / -1 undefined: 0, and a wrapping negation',
        'if (b == 0) return 0;',
        ...(signed ? [`if (b == -1) return ${negated};`] : []),
        'return a / b;',
      );
    case 'floor_div':
      if (!signed) return lines('if (b == 0) return 0;', 'return a / b;');
      return lines(
        '// the quotient rounded down (C truncates); x // 0 is 0, INT_MIN // -1 wraps',
        'if (b == 0) return 0;',
        `if (b == -1) return ${negated};`,
        `${ct} q = a / b;`,
        'return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;',
      );
    case 'mod':
      if (isFloat(t)) {
        return lines(
          "// PyTorch's remainder: the exact fmod, moved into the divisor's sign",
          `${ct} r = ${dialect.mathFunction('fmod', t)}(a, b);`,
          'return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;',
        );
      }
      if (!signed) return lines('return b == 0 ? 0 : a % b;');
      return lines(
        "// the remainder with the divisor's sign; x % 0 and INT_MIN % -1 (undefined in C) are 0",
        'if (b == 0 || b == -1) return 0;',
        `${ct} r = a % b;`,
        'return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;',
      );
    case 'pow': {
      // narrow types in uint: C would promote a ushort product to int, where 65535 * 65535 overflows
      const U = byteSize(t) < 4 ? dialect.type('uint32') : (unsigned ?? ct);
      const negative = signed
        ? [
            '// a negative power: the integer part of 1 / a^-b',
            'if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;',
          ]
        : [];
      return lines(
        ...negative,
        '// repeated squaring; products wrap, as repeated multiplication would (in the',
        '// unsigned type: signed overflow is undefined in C)',
        `${U} result = 1, base = (${U}) a;`,
        'for (; b > 0; b >>= 1)',
        '{',
        '  if (b & 1)',
        '    result *= base;',
        '  base *= base;',
        '}',
        `return (${ct}) result;`,
      );
    }
    case 'shl': {
      const bits = byteSize(t) * 8;
      return lines(
        `// a << b: 0 for a count outside [0, ${bits}) (${dialect.oversizedShift(bits)}); wraps, in the unsigned type`,
        `return (b >= 0 && b < ${bits}) ? (${ct}) ((${unsigned ?? ct}) a << b) : 0;`,
      );
    }
    case 'shr': {
      const bits = byteSize(t) * 8;
      return lines(
        `// a >> b: a count outside [0, ${bits}) shifts everything out (${dialect.oversizedShift(bits)})`,
        signed
          ? `return a >> ((b >= 0 && b < ${bits}) ? b : ${bits - 1});`
          : `return (b >= 0 && b < ${bits}) ? a >> b : 0;`,
      );
    }
    case 'mul_hi':
      return lines(...mulHi(t, dialect));
    case 'rotate': {
      const bits = byteSize(t) * 8;
      const u = unsigned ?? ct;
      return lines(
        `// a rotated left by b modulo ${bits}, on the bits (OpenCL's rotate)`,
        `${u} x = (${u}) a;`,
        `${u} s = (${u}) b & ${bits - 1}u;`,
        `return (${ct}) ((x << s) | (x >> ((${bits}u - s) & ${bits - 1}u)));`,
      );
    }
    case 'fmax':
    case 'fmin': {
      const max = kind === 'fmax';
      return lines(
        `// C's ${kind}: a NaN argument ignored; ${max ? '+0 over -0' : '-0 under +0'} (C leaves the zeros' order open)`,
        'if (isnan(a)) return b;',
        'if (isnan(b)) return a;',
        `if (a == b) return signbit(a) ? ${max ? 'b : a' : 'a : b'};`,
        `return a ${max ? '>' : '<'} b ? a : b;`,
      );
    }
    case 'maximum':
    case 'minimum': {
      const max = kind === 'maximum';
      return lines(
        `// torch.${kind}: NaN wins (C's f${max ? 'max' : 'min'} drops it); ${max ? '+0 over -0' : '-0 under +0'}`,
        'if (isnan(a) || isnan(b)) return a + b;',
        `if (a == b) return signbit(a) ? ${max ? 'b : a' : 'a : b'};`,
        `return a ${max ? '>' : '<'} b ? a : b;`,
      );
    }
  }
}

/** The body of `mul_hi` for dtype `t`: the high half of the full product. */
function mulHi(t: DType, dialect: CDialect): string[] {
  const ct = dialect.type(t);
  if (t === 'int32' || t === 'uint32') {
    const wide = dialect.type(t === 'int32' ? 'int64' : 'uint64');
    return [`return (${ct}) (((${wide}) a * (${wide}) b) >> 32);`];
  }
  // four 32-bit partial products, summed with their carries (C99 has no 128-bit integer)
  const u = dialect.type('uint64');
  const body = [
    `${u} ua = (${u}) a, ub = (${u}) b;`,
    `${u} a0 = ua & 0xffffffffu, a1 = ua >> 32, b0 = ub & 0xffffffffu, b1 = ub >> 32;`,
    `${u} p01 = a0 * b1, p10 = a1 * b0;`,
    `${u} mid = ((a0 * b0) >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);`,
    `${u} hi = a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);`,
  ];
  if (t === 'uint64') return ['// the high 64 bits of the 128-bit product', ...body, 'return hi;'];
  // a signed operand below zero stands for itself plus 2^64: take the other operand back out
  return [
    '// the high 64 bits of the signed 128-bit product',
    ...body,
    `if (a < 0) hi -= ub;`,
    `if (b < 0) hi -= ua;`,
    `return (${ct}) hi;`,
  ];
}
