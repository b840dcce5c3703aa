/**
 * PyTorch's type promotion for elementwise operations: `torch.result_type`, then
 * the promotion methods of `torch._prims_common.elementwise_dtypes`, which FlagGems'
 * pointwise_dynamic uses.
 *
 * Operands fall into categories, bool < integer < floating < complex. The result
 * takes the highest category present, and within it the highest dtype among the
 * tensors of that category — tensors of one or more dimensions first, zero-dimensional
 * ones only when there are none. Python scalars are *weak*: they only raise the
 * category (an int tensor plus 2.5 is float32, the default float), never the width
 * (a float16 tensor plus 2.5 stays float16). A promotion method then maps that
 * result to a computation dtype (what the kernel computes in: float16 computes in
 * float32, as PyTorch's "opmath") and an output dtype.
 *
 * `test/elementwise-promotion-table.json` holds PyTorch's own answers, which the
 * tests compare with.
 */
import { LoomError } from '@loom/core';
import { complexWithParts, isComplex, isFloating, isIntegral, type TensorDType } from './dtypes.ts';

/** How an operation's result dtype follows from its operands' (PyTorch's `ELEMENTWISE_TYPE_PROMOTION_KIND`). */
export type PromotionMethod =
  | 'DEFAULT'
  | 'NO_OPMATH'
  | 'INT_TO_FLOAT'
  | 'ALWAYS_BOOL'
  | 'COMPLEX_TO_FLOAT'
  | 'BOOL_TO_LONG';

/** Every promotion method. */
export const PROMOTION_METHODS: readonly PromotionMethod[] = [
  'DEFAULT',
  'NO_OPMATH',
  'INT_TO_FLOAT',
  'ALWAYS_BOOL',
  'COMPLEX_TO_FLOAT',
  'BOOL_TO_LONG',
];

/** The kind of a Python-like scalar: what a JS boolean, integer, fraction or `{ re, im }` stands for. */
export type ScalarKind = 'bool' | 'int' | 'float' | 'complex';

/** An operand as promotion sees it: a tensor (dtype, rank) or a scalar. */
export type PromotionOperand =
  | { readonly kind: 'tensor'; readonly dtype: TensorDType; readonly ndim: number }
  | { readonly kind: 'scalar'; readonly type: ScalarKind };

/** The computation and result dtypes promotion chose. */
export interface PromotedDTypes {
  /** What the kernel computes in. */
  readonly computation: TensorDType;
  /** What the output holds. */
  readonly result: TensorDType;
}

/** PyTorch's default dtype, what a Python float becomes when nothing else decides. */
export const DEFAULT_FLOAT: TensorDType = 'float32';

/** PyTorch refuses to promote its "barebones" unsigned types with anything but themselves and floats. */
const isBarebonesUnsigned = (t: TensorDType) => t === 'uint16' || t === 'uint32' || t === 'uint64';

/**
 * The order promote_types climbs for the dtypes it promotes freely: two dtypes on one
 * rung (uint8 and int8) meet on the next one (int16).
 */
const LADDER: readonly (readonly TensorDType[])[] = [
  ['bool'],
  ['uint8', 'int8'],
  ['int16'],
  ['int32'],
  ['int64'],
  // float16 and bfloat16 hold each other's values in neither: they meet in float32
  ['float16', 'bfloat16'],
  ['float32'],
  ['float64'],
  ['complex64'],
  ['complex128'],
];

/** The higher of two dtypes (PyTorch's promote_types, for the dtypes that exist here). */
export function promoteTypes(a: TensorDType, b: TensorDType): TensorDType {
  if (a === b) return a;
  if (isBarebonesUnsigned(a) || isBarebonesUnsigned(b)) {
    if (isFloating(a)) return a;
    if (isFloating(b)) return b;
    throw new LoomError(
      `promotion for uint16, uint32 and uint64 is not supported (as in PyTorch): cannot promote ${a} and ${b}`,
    );
  }
  // a float meets a complex in the complex dtype wide enough for both parts
  if (isComplex(a) !== isComplex(b)) {
    const [c, other] = isComplex(a) ? [a, b] : [b, a];
    return other === 'float64' ? 'complex128' : c;
  }
  const rung = (t: TensorDType) => LADDER.findIndex((r) => r.includes(t));
  const [ra, rb] = [rung(a), rung(b)];
  if (ra === rb) return LADDER[ra + 1][0];
  return ra > rb ? a : b;
}

/** What a value of `t` is computed in: float16 and bfloat16 in float32 (PyTorch's get_computation_dtype). */
export function computationDType(t: TensorDType): TensorDType {
  return t === 'float16' || t === 'bfloat16' ? 'float32' : t;
}

/** Whether PyTorch writes a result of `from` into an out= tensor of `to` (torch.can_cast). */
export function canCast(from: TensorDType, to: TensorDType): boolean {
  if (isComplex(from) && !isComplex(to)) return false;
  if (isFloating(from) && (isIntegral(to) || to === 'bool')) return false;
  if (from !== 'bool' && to === 'bool') return false;
  return true;
}

/**
 * The result dtype before a promotion method applies: PyTorch's result_type. Operands
 * join in three tiers — dimensioned tensors, zero-dimensional tensors, scalars (as
 * int64, float32, complex64) — each by promote_types; a lower tier then counts only
 * when it brings a higher category (or the higher tier is all bool).
 */
export function resultDType(operands: readonly PromotionOperand[]): TensorDType {
  const result = promotedDType(operands);
  if (result === 'complex32') throw new LoomError(COMPLEX32);
  return result;
}

/**
 * float16 meeting a complex number makes PyTorch's complex32 (two float16s), which
 * exists here only on the way: it computes in complex64, and an output of it must be
 * bool or its float16 magnitude.
 */
type Promoted = TensorDType | 'complex32';
const COMPLEX32 =
  'float16 meets a complex number in complex32, which is not supported here (as in PyTorch, whose operators refuse it)';

function promotedDType(operands: readonly PromotionOperand[]): Promoted {
  let dimensioned: TensorDType | undefined;
  let zeroDim: TensorDType | undefined;
  let scalars: TensorDType | undefined;
  const join = (a: TensorDType | undefined, b: TensorDType) => (a === undefined ? b : promoteTypes(a, b));
  for (const op of operands) {
    if (op.kind === 'scalar') scalars = join(scalars, defaultDTypeOf(op.type));
    else if (op.ndim > 0) dimensioned = join(dimensioned, op.dtype);
    else zeroDim = join(zeroDim, op.dtype);
  }
  return combineTiers(dimensioned, combineTiers(zeroDim, scalars)) ?? 'bool';
}

/** PyTorch's combine_categories: what a lower tier changes about a higher one. */
function combineTiers(higher: TensorDType | undefined, lower: Promoted | undefined): Promoted | undefined {
  if (higher === undefined) return lower;
  if (lower === undefined || isComplex(higher)) return higher;
  if (lower === 'complex32' || isComplex(lower))
    return higher === 'float16'
      ? 'complex32'
      : higher === 'bfloat16'
        ? 'complex64' // PyTorch has no complex of bfloat16 parts: complex64 holds both
        : isFloating(higher)
          ? complexWithParts(higher)
          : lower;
  if (isFloating(higher)) return higher;
  if (higher === 'bool' || isFloating(lower)) return promoteTypes(higher, lower);
  return higher;
}

/** The computation and output dtypes of one output (PyTorch's elementwise_dtypes). */
export function elementwiseDTypes(operands: readonly PromotionOperand[], method: PromotionMethod): PromotedDTypes {
  const promoted = promotedDType(operands);
  if (promoted === 'complex32') {
    if (method === 'ALWAYS_BOOL') return { computation: 'complex64', result: 'bool' };
    if (method === 'COMPLEX_TO_FLOAT') return { computation: 'complex64', result: 'float16' };
    throw new LoomError(COMPLEX32);
  }
  const result = promoted;
  switch (method) {
    case 'DEFAULT':
      return { computation: computationDType(result), result };
    case 'NO_OPMATH':
      return { computation: result, result };
    case 'INT_TO_FLOAT': {
      const r = result === 'bool' || isIntegral(result) ? DEFAULT_FLOAT : result;
      return { computation: computationDType(r), result: r };
    }
    case 'ALWAYS_BOOL':
      return { computation: computationDType(result), result: 'bool' };
    case 'COMPLEX_TO_FLOAT': {
      // the computation may still be complex (abs of a complex number)
      const real = result === 'complex64' ? 'float32' : result === 'complex128' ? 'float64' : result;
      return { computation: computationDType(result), result: real };
    }
    case 'BOOL_TO_LONG':
      return result === 'bool'
        ? { computation: 'int64', result: 'int64' }
        : { computation: computationDType(result), result };
  }
}

export function checkPromotionMethod(name: unknown): PromotionMethod {
  if (typeof name === 'string' && (PROMOTION_METHODS as readonly string[]).includes(name))
    return name as PromotionMethod;
  throw new LoomError(`unknown promotion method '${String(name)}' (known: ${PROMOTION_METHODS.join(', ')})`);
}

/** The kind of scalar a JS value stands for (a whole number is an int, as `2` is in Python). */
export function scalarKindOf(value: unknown): ScalarKind | undefined {
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (isComplexScalar(value)) return 'complex';
  return undefined;
}

/** A complex scalar: `{ re, im }`. */
export interface ComplexScalar {
  /** The real part. */
  readonly re: number;
  /** The imaginary part. */
  readonly im: number;
}

export function isComplexScalar(value: unknown): value is ComplexScalar {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ComplexScalar).re === 'number' &&
    typeof (value as ComplexScalar).im === 'number'
  );
}

/** The dtype a weak scalar of `kind` takes on its own: PyTorch's int64, float32, complex64. */
export function defaultDTypeOf(kind: ScalarKind): TensorDType {
  return kind === 'bool' ? 'bool' : kind === 'int' ? 'int64' : kind === 'float' ? DEFAULT_FLOAT : 'complex64';
}

/**
 * The dtype a weak scalar takes inside a computation in `computation`: the
 * computation's own when the scalar's category is not higher (alpha = 2 in a float32
 * add is a float32 2), else the scalar's default (PyTorch's result_type rule).
 */
export function weakScalarDType(kind: ScalarKind, computation: TensorDType): TensorDType {
  return resultDType([
    { kind: 'tensor', dtype: computation, ndim: 1 },
    { kind: 'scalar', type: kind },
  ]);
}
