/**
 * How a device kernel's temporaries are stored: the elements an array needs (a number, or an
 * expression evaluated at launch where the target declares such arrays), a constant table laid
 * out by its strides, the lanes of a `vec` axis, and a swizzled array's span once it is known to
 * hold whole spans. The statement builder (builder.ts) declares each temporary with them.
 */
import { byteSize } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { printExpr } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import type { DimTag, TemporaryVariable } from '../kernel/model.ts';
import { requiredLength, requiredLengthExpr } from '../kernel/strides.ts';
import { VECTOR_LANES } from './vectorize.ts';

/** The address spaces where a target declares arrays of a size known only at launch (its `runtimeSizedArrays` fact). */
export interface RuntimeSizedArrays {
  readonly spaces: ReadonlySet<'private' | 'local'>;
  /** The target's name, for the message that refuses one elsewhere. */
  readonly target: string;
  /** Whether a local one is a kernel argument rather than a declaration (`localArraysAsArguments`). */
  readonly localArguments?: boolean;
}

/**
 * Elements a private or local temporary of these strides needs: a number, or (where its shape or
 * layout is parametric, a prefetch of `a[:, :]` over `0 <= i, j < n`) an expression the target
 * evaluates at launch, when it says it can (`runtimeSizedArrays`); `vector`: an array of vectors.
 */
export function declaredLength(
  t: TemporaryVariable,
  strides: readonly Expr[],
  runtimeSized: RuntimeSizedArrays | undefined,
  vector: boolean,
): number | Expr {
  const numbers = [...t.shape, ...strides].map((e) => (e.kind === 'int' ? e.value : undefined));
  if (numbers.every((n) => n !== undefined))
    return requiredLength(numbers.slice(0, t.shape.length) as number[], numbers.slice(t.shape.length) as number[]);
  const space = t.addressSpace === 'local' ? 'local' : 'private';
  const length = requiredLengthExpr(t.shape, strides);
  if (!runtimeSized?.spaces.has(space)) {
    throw new LoomError(
      `temporary '${t.name}' in ${space} memory has a size known only at launch (${printExpr(length)} elements), ` +
        `and ${runtimeSized ? `the ${runtimeSized.target} target` : 'code generated without a target'} cannot declare such an array in ${space} memory` +
        (space === 'private' ? ' (OpenCL C, CUDA and WGSL have no variable-length arrays)' : '') +
        "; give it temporaryAddressSpace: 'global' (its size may depend on the parameters there), or fix the parameters it depends on (fixParameters)",
    );
  }
  if (vector)
    throw new LoomError(`temporary '${t.name}': an array of vectors needs a constant size, not ${printExpr(length)}`);
  return length;
}

/** A swizzled array's span, once its `length` elements are known to be whole spans (the exchange stays inside the array). */
export function swizzleSpan(t: TemporaryVariable, length: number | Expr): number {
  const bytes = typeof length === 'number' ? length * byteSize(t.dtype!) : undefined;
  if (bytes === undefined || bytes % t.swizzle! !== 0 || byteSize(t.dtype!) > 16)
    throw new LoomError(
      `temporary '${t.name}' is swizzled over ${t.swizzle} bytes, so its size must be a constant number of whole spans of elements of at most 16 bytes (it is ${bytes === undefined ? 'known only at launch' : `${bytes} bytes of ${t.dtype}`})`,
    );
  return t.swizzle!;
}

/**
 * A row-major initializer laid out by the temporary's strides (its axes may be permuted or
 * padded: elements no index reaches are zeros).
 */
export function initializerLayout(
  name: string,
  values: readonly number[],
  shape: readonly Expr[],
  strides: readonly Expr[],
): number[] {
  const sizes = shape.map((s) => (s.kind === 'int' ? s.value : Number.NaN));
  const steps = strides.map((s) => (s.kind === 'int' ? s.value : Number.NaN));
  if (sizes.some(Number.isNaN) || steps.some(Number.isNaN))
    throw new LoomError(`temporary '${name}': an initialized temporary needs a constant shape and layout`);
  const out = new Array<number>(sizes.length ? requiredLength(sizes, steps) : 1).fill(0);
  values.forEach((v, flat) => {
    let rest = flat;
    let at = 0;
    for (let axis = sizes.length - 1; axis >= 0; axis--) {
      at += (rest % sizes[axis]) * steps[axis];
      rest = Math.floor(rest / sizes[axis]);
    }
    out[at] = v;
  });
  return out;
}

/** The lanes of an array's `vec` axis, if it has one. */
export function vectorWidthOf(
  name: string,
  shape: readonly Expr[] | undefined,
  dimTags: readonly DimTag[] | undefined,
): number | undefined {
  const axis = dimTags?.findIndex((t) => t.kind === 'vec') ?? -1;
  if (axis < 0 || !shape) return undefined;
  const lanes = shape[axis];
  if (lanes.kind !== 'int' || !VECTOR_LANES.includes(lanes.value)) {
    throw new LoomError(
      `'${name}': a 'vec' axis needs ${VECTOR_LANES.join(', ')} lanes (the lengths of vector types), not ${printExpr(lanes)}`,
    );
  }
  return lanes.value;
}
