/**
 * Vector dtypes, named as OpenCL names them (loopy takes pyopencl's `cltypes.float4`):
 * `float4` is four float32 lanes. A vector dtype is not a dtype of its own here: an array
 * of n `float4`s is a float32 array of shape (n, 4) whose last axis is tagged `vec`
 * (tagArrayAxes), so on the host it is a Float32Array of 4n numbers, the lanes of each
 * vector adjacent (as complex64 is a Float32Array of interleaved parts); `a[i].y` is
 * `a[i, 1]`. OpenCL spells it `float4`; targets without vector types use the lanes.
 */
import { isDType, type RealDType } from './dtypes.ts';
import { LoomError } from './errors.ts';

const ELEMENTS = {
  char: 'int8',
  uchar: 'uint8',
  short: 'int16',
  ushort: 'uint16',
  int: 'int32',
  uint: 'uint32',
  long: 'int64',
  ulong: 'uint64',
  half: 'float16',
  float: 'float32',
  double: 'float64',
} as const satisfies Record<string, RealDType>;

/** The lane counts of vector types. */
export type VectorLanes = 2 | 3 | 4 | 8 | 16;
/** `float4`, `int2`, `uchar16`, ...: OpenCL's vector type names (but numpy's int8, int16, uint8, uint16). */
export type VectorDTypeName = Exclude<`${keyof typeof ELEMENTS}${VectorLanes}`, 'int8' | 'int16' | 'uint8' | 'uint16'>;

/**
 * `float4` → { dtype: 'float32', lanes: 4 }; undefined for a name that is no vector type.
 * numpy's names win where OpenCL's collide: `int8`, `int16`, `uint8`, `uint16` are those
 * dtypes, not 8 or 16 lanes of int (declare those arrays with a `vec` axis: tagArrayAxes).
 */
export function vectorDType(name: string): { readonly dtype: RealDType; readonly lanes: VectorLanes } | undefined {
  if (isDType(name)) return undefined;
  const m = /^([a-z]+)(2|3|4|8|16)$/.exec(name);
  if (!m || !Object.hasOwn(ELEMENTS, m[1])) return undefined;
  return { dtype: ELEMENTS[m[1] as keyof typeof ELEMENTS], lanes: Number(m[2]) as VectorLanes };
}

/** The vector dtype of `lanes` lanes of `dtype`: ('float32', 4) → `float4`. */
export function vectorDTypeName(dtype: RealDType, lanes: VectorLanes): VectorDTypeName {
  const element = Object.entries(ELEMENTS).find(([, d]) => d === dtype)?.[0];
  if (!element) throw new LoomError(`there is no vector type of ${dtype}`);
  if (isDType(`${element}${lanes}`))
    throw new LoomError(
      `${element}${lanes} names numpy's dtype, not ${lanes} lanes of ${dtype}: tag the array's last axis 'vec' instead (tagArrayAxes)`,
    );
  return `${element}${lanes}` as VectorDTypeName;
}

/**
 * An array argument declared with a vector dtype, as the array of its lanes: the element
 * dtype, and the shape with the lanes' axis last. `shape`: the number of vectors per axis.
 */
export function vectorArray(
  name: string,
  dtype: string,
  shape: readonly (number | string)[] | 'auto' | null | undefined,
): { dtype: RealDType; shape: (number | string)[]; lanes: VectorLanes } {
  const vector = vectorDType(dtype);
  if (!vector) throw new LoomError(`argument '${name}': unknown dtype '${dtype}'`);
  if (!Array.isArray(shape)) {
    throw new LoomError(
      `argument '${name}' has the vector dtype ${dtype}: give its shape (the number of vectors along each axis), for its lanes become its last axis`,
    );
  }
  return { dtype: vector.dtype, shape: [...shape, vector.lanes], lanes: vector.lanes };
}
