/**
 * The arguments of `makeKernel`'s list as a user declares them (loopy's `GlobalArg`,
 * `ValueArg`, `ConstantArg`): what each may say, checked when it is made.
 */
import type { StructDType } from '../structs/struct-dtype.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
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
  /** `'global'` (an array), `'value'` (a scalar), `'constant'` (a read-only array) or `'image'` (imageArg); default: `'global'` for a name the instructions subscript, else `'value'`. */
  readonly kind?: ArgKind;
  /**
   * A dtype, a vector dtype (`float4`: the array's lanes become a last, `vec` axis;
   * vector-dtypes.ts), or a struct dtype (`structDType(...)`: an array of structs, read and
   * written field by field, `a[i].f`; it needs its shape).
   */
  readonly dtype?: DType | VectorDTypeName | StructDType;
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
  /**
   * `'C'` (row-major), `'F'` (column-major, the first axis fastest) or `'auto'` (loopy's
   * `order=auto`: every stride taken from the array passed, `stride:auto` on each axis); default
   * `makeKernel`'s `defaultOrder`, else `'C'`.
   */
  readonly order?: 'C' | 'F' | 'auto';
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

/** What imageArg accepts besides the name: the element dtype, the shape, and its number of axes. */
export interface ImageArgSpec {
  /** float32, int32 or uint32 (one 32-bit channel); default: the data passed. */
  readonly dtype?: DType;
  /** The shape, as globalArg takes it; default: what the accesses need. */
  readonly shape?: ShapeInput;
  /** 2 or 3, checked against the shape, which it needs (without both, the accesses give the shape). */
  readonly dimensions?: 2 | 3;
}

const IMAGE_SPEC_KEYS = optionKeys<ImageArgSpec>()(['dtype', 'shape', 'dimensions']);

/**
 * A read-only image argument (loopy's `ImageArg`): OpenCL reads it as an `image2d_t` or
 * `image3d_t`, WebGPU as a `texture_2d`/`texture_3d`, the other targets as a global array.
 * ```ts
 * makeKernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'out[i, j] = 2*a[i, j]', [
 *   imageArg('a', { dtype: 'float32', shape: 'n, m', dimensions: 2 }),
 *   '...',
 * ]);
 * ```
 */
export function imageArg(name: string, spec: ImageArgSpec = {}): ArgSpec {
  checkOptionKeys('imageArg', spec, IMAGE_SPEC_KEYS);
  const { dimensions, ...rest } = spec;
  if (dimensions !== undefined && dimensions !== 2 && dimensions !== 3)
    throw new LoomError(`imageArg '${name}': dimensions is 2 or 3, not ${String(dimensions)}`);
  const axes = shapeAxes(spec.shape);
  if (dimensions !== undefined && axes === undefined)
    throw new LoomError(
      `imageArg '${name}': dimensions checks the shape, which is not given; give it (shape: 'n, m'), or leave both out for the shape the accesses need`,
    );
  if (dimensions !== undefined && axes !== undefined && axes !== dimensions)
    throw new LoomError(`imageArg '${name}': the shape has ${axes} axes, but dimensions says ${dimensions}`);
  return { ...rest, name, kind: 'image', isInput: true, isOutput: false };
}

/** The number of axes a shape as the user wrote it has, where it says (not 'auto'). */
function shapeAxes(shape: ShapeInput | undefined): number | undefined {
  if (shape === undefined || shape === 'auto') return undefined;
  if (typeof shape === 'number') return 1;
  if (typeof shape === 'string')
    return shape
      .replace(/^\s*\(|\)\s*$/g, '')
      .split(',')
      .filter((s) => s.trim()).length;
  return shape.length;
}
