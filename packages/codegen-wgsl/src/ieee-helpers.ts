/**
 * WGSL helpers for where WGSL (or the compilers under it) means something else than
 * Loom's arithmetic (the README's table, which the CPU and OpenCL devices compute):
 *
 * - WGSL lets a compiler assume floats are finite: `x != x`, `x != 0.0` for NaN and
 *   `pow(0.0, -1.0)` come out wrong on real drivers. NaN and zero tests are therefore
 *   made on the bits (`bitcast<u32>`), which no fast-math assumption can fold.
 * - WGSL's float `%` is `a - b*trunc(a/b)`, inexact for large quotients (1e30 % 7)
 *   and NaN for an infinite divisor; `fmod` here is the exact remainder, computed on
 *   the bits (musl's fmodf).
 * - WGSL's `i32(x)` saturates at the nearest float (2147483520) and leaves NaN open;
 *   Loom saturates at the integer type's range and maps NaN to 0.
 * - WGSL's integer `a / 0` is `a`; Loom's is 0.
 *
 * f16 variants widen to f32 (exactly) and narrow the result back (exact for fmod;
 * correctly rounded enough for pow).
 */
import type { WgslScalar } from './types.ts';

export type IeeeHelperKind =
  | 'div'
  | 'is_nan'
  | 'truthy'
  | 'fmod'
  | 'remainder'
  | 'maximum'
  | 'minimum'
  | 'to_i32'
  | 'to_u32'
  | 'pow';

/** The helpers `kind` for `t` calls, to be defined alongside it. */
export function ieeeHelperDependencies(
  kind: IeeeHelperKind,
  t: WgslScalar,
): readonly (readonly [IeeeHelperKind | 'nan' | 'infinity', WgslScalar])[] {
  if (t === 'f16' && kind !== 'remainder' && kind !== 'maximum' && kind !== 'minimum') return [[kind, 'f32']];
  switch (kind) {
    case 'remainder':
      return [['fmod', t]];
    case 'fmod':
      return [['nan', 'f32']];
    case 'maximum':
    case 'minimum':
      return [
        ['is_nan', t],
        ['nan', 'f32'],
      ];
    case 'to_i32':
    case 'to_u32':
      return [['is_nan', t]];
    case 'pow':
      return [
        ['is_nan', t],
        ['nan', 'f32'],
        ['infinity', 'f32'],
      ];
    default:
      return [];
  }
}

/** The definition of helper `kind` for `t`, named `name`. */
export function ieeeHelperDefinition(kind: IeeeHelperKind, t: WgslScalar, name: string): string {
  if (t === 'f16' && kind !== 'remainder' && kind !== 'maximum' && kind !== 'minimum') return widened(kind, name);
  // made at run time by the 'nan' and 'infinity' helpers: WGSL refuses them as constants
  const nan = 'nan_f32()';
  const inf = 'infinity_f32()';
  switch (kind) {
    case 'div': {
      const zero = t === 'i32' ? '0i' : '0u';
      return fn(`// a / b with x / 0 = 0 (WGSL's gives a)`, name, `a: ${t}, b: ${t}`, t, [
        `return select(a / b, ${zero}, b == ${zero});`,
      ]);
    }
    case 'is_nan':
      return fn('// NaN, told by its bits: a compiler may assume x == x', name, 'x: f32', 'bool', [
        'return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;',
      ]);
    case 'truthy':
      return fn(
        '// x != 0 as a condition, NaN included (a compiler may fold NaN != 0.0 to false)',
        name,
        'x: f32',
        'bool',
        ['return (bitcast<u32>(x) << 1u) != 0u;'],
      );
    case 'fmod':
      return fmodF32(name, nan);
    case 'remainder': {
      const zero = t === 'f16' ? '0.0h' : '0.0';
      return fn("// PyTorch's remainder: the exact fmod, moved into the divisor's sign", name, `a: ${t}, b: ${t}`, t, [
        `let r = fmod_${t}(a, b);`,
        `return select(r, r + b, r != ${zero} && ((r < ${zero}) != (b < ${zero})));`,
      ]);
    }
    case 'maximum':
    case 'minimum': {
      // for a == b the bits differ only for ±0: and-ing the sign bits gives +0, or-ing -0
      const bits = t === 'f16' ? 'u32' : 'u32';
      const max = kind === 'maximum';
      const nanT = t === 'f16' ? `f16(${nan})` : nan;
      const same =
        t === 'f16'
          ? `f16(bitcast<f32>(bitcast<${bits}>(f32(a)) ${max ? '&' : '|'} bitcast<${bits}>(f32(b))))`
          : `bitcast<f32>(bitcast<u32>(a) ${max ? '&' : '|'} bitcast<u32>(b))`;
      return fn(`// torch.${kind}: NaN wins; ${max ? '+0 over -0' : '-0 under +0'}`, name, `a: ${t}, b: ${t}`, t, [
        `if (is_nan_${t}(a) || is_nan_${t}(b)) { return ${nanT}; }`,
        `if (a == b) { return ${same}; }`,
        `return ${max ? 'max' : 'min'}(a, b);`,
      ]);
    }
    case 'to_i32':
      return fn(
        "// truncated, saturated at i32's range, NaN → 0 (WGSL saturates at 2147483520 and leaves NaN open)",
        name,
        'x: f32',
        'i32',
        [
          'if (is_nan_f32(x)) { return 0i; }',
          'if (x >= 2147483648.0) { return 2147483647i; }',
          'if (x <= -2147483648.0) { return -2147483647i - 1i; }',
          'return i32(x);',
        ],
      );
    case 'to_u32':
      return fn('// truncated, saturated at 0 and 2^32 - 1, NaN → 0', name, 'x: f32', 'u32', [
        'if (is_nan_f32(x) || x <= 0.0) { return 0u; }',
        'if (x >= 4294967296.0) { return 4294967295u; }',
        'return u32(x);',
      ]);
    case 'pow':
      return powF32(name, nan, inf);
  }
}

function fn(comment: string, name: string, params: string, result: string, body: readonly string[]): string {
  return [comment, `fn ${name}(${params}) -> ${result} {`, ...body.map((l) => `  ${l}`), '}'].join('\n');
}

/** The f16 variant of `kind`: computed in f32, which holds every f16 exactly. */
function widened(kind: IeeeHelperKind, name: string): string {
  const f32 = `${kind}_f32`;
  switch (kind) {
    case 'fmod':
    case 'pow':
      return fn(`// ${kind} of f16 values, computed in f32`, name, 'a: f16, b: f16', 'f16', [
        `return f16(${f32}(f32(a), f32(b)));`,
      ]);
    case 'is_nan':
    case 'truthy':
      return fn(`// ${kind} of an f16, told on its f32 bits`, name, 'x: f16', 'bool', [`return ${f32}(f32(x));`]);
    default: {
      const result = kind === 'to_i32' ? 'i32' : 'u32';
      return fn(`// ${kind} of an f16`, name, 'x: f16', result, [`return ${f32}(f32(x));`]);
    }
  }
}

/** C's fmod on the bits (musl's fmodf): exact, sign of x; NaN for y = 0 or x infinite. */
function fmodF32(name: string, nan: string): string {
  return fn(
    "// C's fmod, exact (WGSL's % is x - y*trunc(x/y)): long division on the significands (musl's fmodf)",
    name,
    'x: f32, y: f32',
    'f32',
    [
      'var ux = bitcast<u32>(x);',
      'var uy = bitcast<u32>(y);',
      'var ex = i32((ux >> 23u) & 0xffu);',
      'var ey = i32((uy >> 23u) & 0xffu);',
      'let sx = ux & 0x80000000u;',
      `if ((uy << 1u) == 0u || (uy & 0x7fffffffu) > 0x7f800000u || ex == 0xff) { return ${nan}; }`,
      'if ((ux << 1u) <= (uy << 1u)) {',
      '  if ((ux << 1u) == (uy << 1u)) { return bitcast<f32>(sx); }',
      '  return x;',
      '}',
      '// the significands as integers, subnormals normalized',
      'if (ex == 0) {',
      '  var i = ux << 9u;',
      '  while ((i >> 31u) == 0u) { ex = ex - 1; i = i << 1u; }',
      '  ux = ux << u32(1 - ex);',
      '} else {',
      '  ux = (ux & 0x007fffffu) | 0x00800000u;',
      '}',
      'if (ey == 0) {',
      '  var i = uy << 9u;',
      '  while ((i >> 31u) == 0u) { ey = ey - 1; i = i << 1u; }',
      '  uy = uy << u32(1 - ey);',
      '} else {',
      '  uy = (uy & 0x007fffffu) | 0x00800000u;',
      '}',
      '// shift-and-subtract, one bit of quotient per step',
      'for (; ex > ey; ex = ex - 1) {',
      '  let i = ux - uy;',
      '  if ((i >> 31u) == 0u) {',
      '    if (i == 0u) { return bitcast<f32>(sx); }',
      '    ux = i;',
      '  }',
      '  ux = ux << 1u;',
      '}',
      'let i = ux - uy;',
      'if ((i >> 31u) == 0u) {',
      '  if (i == 0u) { return bitcast<f32>(sx); }',
      '  ux = i;',
      '}',
      'while ((ux >> 23u) == 0u) { ux = ux << 1u; ex = ex - 1; }',
      '// back to a float: normal, or subnormal',
      'if (ex > 0) {',
      '  ux = (ux - 0x00800000u) | (u32(ex) << 23u);',
      '} else {',
      '  ux = ux >> u32(1 - ex);',
      '}',
      'return bitcast<f32>(ux | sx);',
    ],
  );
}

/** C's pow, its special cases told on the bits (a compiler may assume finite operands). */
function powF32(name: string, nan: string, inf: string): string {
  return fn(
    "// C's pow: WGSL's is exp2(y * log2(x)), undefined for x <= 0 and for the special cases",
    name,
    'x: f32, y: f32',
    'f32',
    [
      'let ax = bitcast<u32>(x) & 0x7fffffffu;',
      'let ay = bitcast<u32>(y) & 0x7fffffffu;',
      'if (ay == 0u || x == 1.0) { return 1.0; }',
      `if (is_nan_f32(x) || is_nan_f32(y)) { return ${nan}; }`,
      'let whole = ay >= 0x7f800000u || trunc(y) == y;',
      '// y odd: |y| < 2^24 (every larger float is even) and y/2 not whole',
      'let odd = ay < 0x4b800000u && whole && trunc(y * 0.5) != y * 0.5;',
      'let negative = (bitcast<u32>(x) >> 31u) != 0u;',
      'let sign = select(0u, 0x80000000u, negative && odd);',
      `if (ay == 0x7f800000u) {`,
      '  // |x| == 1 gives 1; otherwise 0 or Inf, by which side of 1 |x| is and the sign of y',
      '  if (ax == 0x3f800000u) { return 1.0; }',
      `  return select(0.0, ${inf}, (ax > 0x3f800000u) == (y > 0.0));`,
      '}',
      'if (ax == 0u || ax == 0x7f800000u) {',
      '  // a zero or infinite base: 0 or Inf, by whether they meet, with the sign of x for odd y',
      `  let magnitude = select(0u, 0x7f800000u, (ax == 0u) == (y < 0.0));`,
      '  return bitcast<f32>(magnitude | sign);',
      '}',
      `if (negative && !whole) { return ${nan}; }`,
      'let magnitude = pow(bitcast<f32>(ax), y);',
      'return bitcast<f32>(bitcast<u32>(magnitude) | sign);',
    ],
  );
}
