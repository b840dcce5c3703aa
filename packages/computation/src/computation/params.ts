/**
 * A computation's parameters: concrete types, as Reikna's are (a plan is built for them),
 *
 *   { name: 'output', dtype: 'float32', shape: [100], role: 'o' }
 *   { name: 'param', dtype: 'float32', role: 's' }
 *
 * with `'io'` for an array the computation both reads and writes. Names starting with `_`
 * are Loom's own (temporaries and the like inside a plan), as in Reikna.
 */
import { LoomError, isDType, type DType } from '@loom/core';

/** A computation parameter's role: input, output, both, or scalar (Reikna's `i`, `o`, `io`, `s`). */
export type ComputationRole = 'i' | 'o' | 'io' | 's';

/** A computation parameter: name, role, dtype and shape (Reikna's `Parameter`). */
export interface ComputationParam {
  /** The parameter's name. */
  readonly name: string;
  /** `'i'`, `'o'`, `'io'` or `'s'` (scalar). */
  readonly role: ComputationRole;
  /** Its dtype. */
  readonly dtype: DType;
  /** Arrays only. */
  readonly shape?: readonly number[];
}

/** The type of an array or scalar, as plans and transformations compare them. */
export interface ValueType {
  readonly dtype: DType;
  /** Undefined for a scalar. */
  readonly shape: readonly number[] | undefined;
}

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*$/;

export function checkComputationParams(params: readonly ComputationParam[], what: string): void {
  if (!Array.isArray(params)) throw new LoomError(`${what}: params must be an array of { name, dtype, shape, role }`);
  const seen = new Set<string>();
  for (const p of params) {
    if (typeof p !== 'object' || p === null)
      throw new LoomError(`${what}: a parameter must be an object { name, dtype, shape, role }`);
    checkParamName(p.name, what);
    if (seen.has(p.name)) throw new LoomError(`${what}: parameter '${p.name}' is declared twice`);
    seen.add(p.name);
    if (!['i', 'o', 'io', 's'].includes(p.role))
      throw new LoomError(`${what}: parameter '${p.name}' has role '${String(p.role)}'; use 'i', 'o', 'io' or 's'`);
    if (!isDType(p.dtype))
      throw new LoomError(`${what}: parameter '${p.name}' needs a dtype (got ${JSON.stringify(p.dtype)})`);
    if (p.role === 's') {
      if (p.shape !== undefined)
        throw new LoomError(`${what}: scalar parameter '${p.name}' has a shape; scalars have none`);
      continue;
    }
    if (!Array.isArray(p.shape) || (p.shape as readonly number[]).some((n) => !Number.isSafeInteger(n) || n < 0)) {
      throw new LoomError(
        `${what}: array parameter '${p.name}' needs a shape of non-negative integers (got ${JSON.stringify(p.shape)})`,
      );
    }
  }
}

export function checkParamName(name: unknown, what: string): asserts name is string {
  if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new LoomError(`${what}: parameter name ${JSON.stringify(name)} is not an identifier`);
  if (!IDENTIFIER.test(name))
    throw new LoomError(`${what}: parameter name '${name}' starts with '_', which Loom keeps for the names it makes`);
}

export function typeOf(p: {
  readonly dtype: DType;
  readonly shape?: readonly number[];
  readonly role: string;
}): ValueType {
  return { dtype: p.dtype, shape: p.role === 's' ? undefined : p.shape };
}

export function sameType(a: ValueType, b: ValueType): boolean {
  if (a.dtype !== b.dtype || (a.shape === undefined) !== (b.shape === undefined)) return false;
  return a.shape === undefined || (a.shape.length === b.shape!.length && a.shape.every((n, k) => n === b.shape![k]));
}

export function describeType(t: ValueType): string {
  return t.shape === undefined ? `scalar ${t.dtype}` : `${t.dtype} (${t.shape.join(', ')})`;
}

export const isInputRole = (r: ComputationRole) => r === 'i' || r === 'io';
export const isOutputRole = (r: ComputationRole) => r === 'o' || r === 'io';
