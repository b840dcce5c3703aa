/**
 * WGSL's math functions: core's names spelled as WGSL's built-ins where they mean the same, as
 * helper functions where WGSL has none or means another thing (NaN-propagating min and max, C's
 * round and fmod, the series of expm1 and log1p), for the expression printer (expressions.ts).
 */
import { LoomError, nameTable, printExpr, type Expr, type MathFunctionName } from '@loom/core';
import type { HelperKind } from './helpers.ts';
import { call, Prec, type Printed } from './printed.ts';
import { isFloatScalar, type WgslScalar } from './types.ts';

/** Functions whose WGSL built-in has the same meaning (on floats). */
// Not derived from core's table, unlike the C-family names: WGSL lacks many of C's functions
// (they are helpers below, or rules of the printer) and spells some its own way (inverseSqrt);
// the keys are core's names (the `satisfies` below). No prototype: a call of `constructor`
// finds nothing here, like any unknown function.
const SAME_BUILTINS: Readonly<Record<string, string>> = nameTable({
  sin: 'sin',
  cos: 'cos',
  tan: 'tan',
  asin: 'asin',
  acos: 'acos',
  atan: 'atan',
  atan2: 'atan2',
  sinh: 'sinh',
  cosh: 'cosh',
  tanh: 'tanh',
  acosh: 'acosh',
  exp: 'exp',
  exp2: 'exp2',
  log: 'log',
  log2: 'log2',
  sqrt: 'sqrt',
  rsqrt: 'inverseSqrt',
  fma: 'fma',
} satisfies Partial<Record<MathFunctionName, string>>);

/** Functions computed by a helper of the same name (`math-helpers.ts`). */
const HELPED: ReadonlySet<string> = new Set<MathFunctionName>([
  'expm1',
  'log1p',
  'asinh',
  'atanh',
  'hypot',
  'erfc',
  'copysign',
  'fmin',
  'fmax',
]);

/** What printing a built-in needs of the printer: its helper functions, and numbers spelled in a WGSL type. */
export interface BuiltinContext {
  /** The name of helper `kind` for `t`, recorded for the module. */
  helper(kind: HelperKind, t: WgslScalar): string;
  /** `value` as a literal of `t`. */
  number(value: number, t: WgslScalar): Printed;
}

/** Math function `e` (core's name) of the printed `args`, computed in `t`: a built-in, or a helper where WGSL has none or means another thing. */
export function printBuiltin(
  e: Extract<Expr, { kind: 'call' }>,
  args: readonly Printed[],
  t: WgslScalar,
  context: BuiltinContext,
): Printed {
  const float = isFloatScalar(t);
  if (HELPED.has(e.fn) && float)
    return call(
      context.helper(e.fn as HelperKind, t),
      args.map((a) => a.text),
      t,
    );
  switch (e.fn) {
    case 'min':
    case 'max': {
      if (args.length === 1) return args[0];
      // floats: NaN-propagating (WGSL's min/max may return either operand for NaN)
      const fn = float ? context.helper(e.fn === 'min' ? 'minimum' : 'maximum', t) : e.fn;
      return args.slice(1).reduce((acc, a) => call(fn, [acc.text, a.text], t), args[0]);
    }
    case 'abs':
    case 'fabs':
      if (t === 'u32') return args[0];
      return call(float ? 'abs' : context.helper('abs', t), [args[0].text], t);
    case 'floor':
    case 'ceil':
    case 'trunc':
    case 'round':
      if (!float) return args[0]; // already whole
      return e.fn === 'round' ? call(context.helper('round', t), [args[0].text], t) : call(e.fn, [args[0].text], t);
    case 'pow':
      return call(
        context.helper('pow', t),
        args.map((a) => a.text),
        t,
      );
    case 'mul_hi':
    case 'rotate':
      // integers (type inference refused anything else; 64-bit words were refused above)
      return call(
        context.helper(e.fn, t),
        args.map((a) => a.text),
        t,
      );
    case 'cbrt':
      return call(context.helper('cbrt', t), [args[0].text], t);
    case 'erf':
      return call(context.helper('erf', t), [args[0].text], t);
    case 'log10': {
      // WGSL has log2 only: log10(x) = log2(x) * log10(2)
      const scale = context.number(Math.LOG10E / Math.LOG2E, t);
      return { text: `log2(${args[0].text}) * ${scale.text}`, prec: Prec.Multiplicative, type: t };
    }
    case 'fmod':
      return call(
        context.helper('fmod', t),
        args.map((a) => a.text),
        t,
      ); // WGSL's float % is inexact
    default: {
      const builtin = SAME_BUILTINS[e.fn];
      if (!builtin || !float) {
        throw new LoomError(
          `function '${e.fn}' is not available in WGSL (unknown function or unexpanded substitution rule): ${printExpr(e)}`,
        );
      }
      return call(
        builtin,
        args.map((a) => a.text),
        t,
      );
    }
  }
}
