/**
 * OpenCL C helper functions for what Loom's arithmetic means where C's does not say
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
 *   count modulo the width), and a left shift wraps instead of overflowing.
 *
 * Each helper is named for its kind and dtype and defined once per program.
 */
import { byteSize, isFloat, type DType } from '@loom/core';
import { clType } from './c-types.ts';

export type ClHelperKind = 'div' | 'floor_div' | 'mod' | 'pow' | 'maximum' | 'minimum' | 'fmax' | 'fmin' | 'shl' | 'shr';

export function clHelperName(kind: ClHelperKind, t: DType): string {
  return `loom_${kind}_${t}`;
}

const UNSIGNED: Partial<Record<DType, string>> = { int8: 'uchar', int16: 'ushort', int32: 'uint', int64: 'ulong' };

/** The definition of helper `kind` for dtype `t`. */
export function clHelperDefinition(kind: ClHelperKind, t: DType): string {
  const name = clHelperName(kind, t);
  const ct = clType(t);
  const signed = UNSIGNED[t] !== undefined;
  // -a computed in the unsigned type: wraps for INT_MIN instead of overflowing
  const negated = signed ? `(${ct}) (0 - (${UNSIGNED[t]}) a)` : '0';
  const lines = (...body: string[]) => [`inline ${ct} ${name}(${ct} a, ${ct} b)`, '{', ...body.map((l) => `  ${l}`), '}'].join('\n');
  switch (kind) {
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
        return lines("// PyTorch's remainder: the exact fmod, moved into the divisor's sign", `${ct} r = fmod(a, b);`, 'return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;');
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
      const U = byteSize(t) < 4 ? 'uint' : (UNSIGNED[t] ?? ct);
      const negative = signed ? ['// a negative power: the integer part of 1 / a^-b', 'if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;'] : [];
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
        `// a << b: 0 for a count outside [0, ${bits}) (OpenCL takes it modulo ${bits}); wraps, in the unsigned type`,
        `return (b >= 0 && b < ${bits}) ? (${ct}) ((${UNSIGNED[t] ?? ct}) a << b) : 0;`,
      );
    }
    case 'shr': {
      const bits = byteSize(t) * 8;
      return lines(
        `// a >> b: a count outside [0, ${bits}) shifts everything out (OpenCL takes it modulo ${bits})`,
        signed ? `return a >> ((b >= 0 && b < ${bits}) ? b : ${bits - 1});` : `return (b >= 0 && b < ${bits}) ? a >> b : 0;`,
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

/**
 * A float of dtype `from` converted to integer type `to` as Loom defines it: truncated
 * toward zero, saturated at the type's range, NaN → 0. That is what OpenCL's
 * `convert_<type>_sat_rtz` promises, but NVIDIA's driver gives INT_MIN for a NaN
 * double (and a NaN float to long), so the NaN test is ours.
 */
export function floatToIntegerHelper(from: DType, to: DType): { name: string; definition: string } {
  const name = `loom_convert_${from}_to_${to}`;
  const definition = [
    `inline ${clType(to)} ${name}(${clType(from)} x)`,
    '{',
    "  // NaN -> 0 ourselves: not every driver's saturating conversion does",
    `  return isnan(x) ? 0 : convert_${clType(to)}_sat_rtz(x);`,
    '}',
  ].join('\n');
  return { name, definition };
}
