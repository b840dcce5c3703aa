/**
 * bfloat16 in WGSL, which has no such type: the values are f32s (types.ts), and what the printer
 * (expressions.ts) needs to know of them besides its rounding helper (`to_bfloat16`, helpers.ts):
 * which functions give a bfloat16 back exactly, and a literal's value as a bfloat16.
 */
import { roundToBfloat16, type Expr, type MathFunctionName } from '@loom/core';

/**
 * Functions whose value, for bfloat16 arguments, is a bfloat16 already: not rounded again. (A
 * whole number below 2^8 has 8 significant bits at most, as a bfloat16 does; every larger
 * bfloat16 is whole already.)
 */
export const EXACT_IN_BFLOAT16: ReadonlySet<string> = new Set<MathFunctionName>([
  'min',
  'max',
  'abs',
  'fabs',
  'floor',
  'ceil',
  'trunc',
  'round',
  'copysign',
  'fmin',
  'fmax',
]);

/**
 * A literal's (or a negated one's, `-0.5`) value as a bfloat16, rounded once here: an integer
 * through float32 first, as an integer converted at run time goes; undefined for anything else.
 */
export function bfloat16Literal(e: Expr): number | undefined {
  const value = literalValue(e);
  if (value === undefined) return undefined;
  const integer = e.kind === 'int' || (e.kind === 'neg' && e.operand.kind === 'int');
  return roundToBfloat16(integer ? Math.fround(value) : value);
}

/** The value of a literal, or of a negated one (`-0.5`); undefined for anything else. */
function literalValue(e: Expr): number | undefined {
  if (e.kind === 'int' || e.kind === 'float') return e.value;
  if (e.kind === 'bool') return e.value ? 1 : 0;
  if (e.kind === 'neg' && (e.operand.kind === 'int' || e.operand.kind === 'float')) return -e.operand.value;
  return undefined;
}
