/**
 * The arguments of `makeKernel`'s list as a user declares them (loopy's `GlobalArg`,
 * `ValueArg`, `ConstantArg`): what each may say, checked when it is made.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import type { DType } from '../dtypes.ts';
import type { ArgKind } from '../kernel/model.ts';
import type { VectorDTypeName } from '../vector-dtypes.ts';
import type { ShapeInput } from './arg-spellings.ts';

/** What globalArg and constantArg accept besides the name; any other key is an error. */
const ARG_SPEC_KEYS = optionKeys<Omit<ArgSpec, 'name' | 'kind'>>()([
  'dtype',
  'forAtomic',
  'isInput',
  'isOutput',
  'shape',
  'offset',
  'order',
]);

/** An argument as the user declares it; unspecified fields are inferred. */
export interface ArgSpec {
  /** The argument's name, as the instructions use it. */
  readonly name: string;
  /** `'global'` (an array), `'value'` (a scalar) or `'constant'` (a read-only array); default: `'global'` for a name the instructions subscript, else `'value'`. */
  readonly kind?: ArgKind;
  /** A dtype, or a vector dtype (`float4`: the array's lanes become a last, `vec` axis; vector-dtypes.ts). */
  readonly dtype?: DType | VectorDTypeName;
  /**
   * The shape: lengths or parameter expressions (`['n', 'n + 1']`), or as loopy writes it, one string
   * (`'n'`, `'n, m'`, `'(n, m)'`) or one number; `'auto'`: what the accesses need; `null`: no shape
   * (loopy's `shape=None`), one axis as long as the array passed (`NAME_length`).
   */
  readonly shape?: ShapeInput | null;
  /**
   * Where element 0 lies in the buffer passed (loopy's `offset`): `'auto'` takes it from the
   * view passed (a value argument `NAME_offset`), a number or an expression in the value
   * arguments fixes it; default `makeKernel`'s `defaultOffset`, else 0.
   */
  readonly offset?: 'auto' | number | string;
  /** `'C'` (row-major) or `'F'` (column-major, the first axis fastest); default `makeKernel`'s `defaultOrder`, else `'C'`. */
  readonly order?: 'C' | 'F';
  /** Whether the kernel reads it; default: inferred from the instructions. */
  readonly isInput?: boolean;
  /** Whether the kernel writes it; default: inferred from the instructions. */
  readonly isOutput?: boolean;
  /** Whether it is updated with atomic operations. */
  readonly forAtomic?: boolean;
}

/**
 * A global array argument for `makeKernel`'s argument list (loopy's `GlobalArg`).
 * ```ts
 * makeKernel(domain, insns, [globalArg('out', { shape: 'auto', isInput: false }), '...']);
 * ```
 */
export function globalArg(name: string, spec: Omit<ArgSpec, 'name' | 'kind'> = {}): ArgSpec {
  checkOptionKeys('globalArg', spec, ARG_SPEC_KEYS);
  return { ...spec, name, kind: 'global' };
}
/** A scalar value argument for `makeKernel`'s argument list (loopy's `ValueArg`). */
export function valueArg(name: string, dtype?: DType): ArgSpec {
  return { name, kind: 'value', dtype };
}
/** A read-only array argument in constant memory (loopy's `ConstantArg`). */
export function constantArg(name: string, spec: Omit<ArgSpec, 'name' | 'kind'> = {}): ArgSpec {
  checkOptionKeys('constantArg', spec, ARG_SPEC_KEYS);
  return { ...spec, name, kind: 'constant' };
}
