/**
 * The parameters of transformations and computations, as their authors declare them:
 *
 *   { name: 'out1', dtype: 'float32', shape: [100], role: 'o' }   an array the transformation writes
 *   { name: 'in1',  dtype: 'float32', shape: [100], role: 'i' }   an array it reads
 *   { name: 'param', dtype: 'float32', role: 's' }                a scalar, passed by value
 *
 * A transformation may leave `dtype` or `shape` out: the parameter then has the connector's
 * (what it is attached to), which is what elementwise transformations such as `mulConst`
 * want. A computation's parameters always say both (plans are built for concrete types).
 */
import { LoomError, isDType, type DType } from '@loom/core';

/** `'i'`: an input array, `'o'`: an output array, `'s'`: a scalar. */
export type Role = 'i' | 'o' | 's';

/** One shape entry: a size, or an expression in the kernel's integer parameters (`'n'`). */
export type ShapeEntry = number | string;

/** A transformation parameter: name, role, dtype and shape. */
export interface ParamSpec {
  /** The parameter's name. */
  readonly name: string;
  /** `'i'` or `'o'` (an array), or `'s'` (a scalar). */
  readonly role: Role;
  /** Absent: the connector's dtype. */
  readonly dtype?: DType;
  /** Arrays only; absent: the connector's shape. */
  readonly shape?: readonly ShapeEntry[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks what every parameter list must satisfy; `what` names the owner in messages. */
export function checkParams(params: readonly ParamSpec[], what: string): void {
  if (!Array.isArray(params)) throw new LoomError(`${what}: params must be an array of { name, dtype, shape, role }`);
  const seen = new Set<string>();
  for (const p of params) {
    if (typeof p !== 'object' || p === null || typeof p.name !== 'string')
      throw new LoomError(`${what}: a parameter must be an object { name, dtype, shape, role }`);
    if (!IDENTIFIER.test(p.name)) throw new LoomError(`${what}: parameter name '${p.name}' is not an identifier`);
    if (seen.has(p.name)) throw new LoomError(`${what}: parameter '${p.name}' is declared twice`);
    seen.add(p.name);
    if ((p.role as string) === 'io') {
      throw new LoomError(
        `${what}: parameter '${p.name}' has role 'io'; a transformation's parameters are 'i', 'o' or 's' (one data path each)`,
      );
    }
    if (p.role !== 'i' && p.role !== 'o' && p.role !== 's')
      throw new LoomError(`${what}: parameter '${p.name}' has role '${String(p.role)}'; use 'i', 'o' or 's'`);
    if (p.dtype !== undefined && !isDType(p.dtype))
      throw new LoomError(`${what}: parameter '${p.name}' has unknown dtype '${String(p.dtype)}'`);
    if (p.role === 's' && p.shape !== undefined)
      throw new LoomError(`${what}: scalar parameter '${p.name}' has a shape; scalars have none`);
    for (const entry of p.shape ?? []) {
      if (typeof entry === 'number' ? !Number.isSafeInteger(entry) || entry < 0 : typeof entry !== 'string') {
        throw new LoomError(
          `${what}: parameter '${p.name}' has shape entry ${String(entry)}; use non-negative integers or parameter expressions ('n')`,
        );
      }
    }
  }
}

/** `(100, n)` for messages. */
export function formatShape(shape: readonly ShapeEntry[] | undefined): string {
  return shape === undefined ? "(the connector's)" : `(${shape.join(', ')})`;
}

export function isArrayRole(role: Role): boolean {
  return role !== 's';
}
