/**
 * `pointwise()`'s options, as the seed's decorator takes them, checked and put in
 * the form the rest of the package uses.
 *
 *     pointwise({
 *       isTensor: [true, true, false],          // which inputs are tensors (default: all)
 *       dtypes: [null, null, 'float'],          // a non-tensor's type: 'bool' | 'int' | 'float' | 'complex' or a dtype
 *       promotionMethods: [[0, 1, 'DEFAULT']],  // per output: the inputs that decide, and how
 *       numOutputs: 1,
 *     }, (x, y, alpha) => x + y * alpha)
 */
import { LoomError, optionKeys } from '@loom/core';
import { checkTensorDType, type TensorDType } from './dtypes.ts';
import { checkPromotionMethod, type PromotionMethod, type ScalarKind } from './promotion.ts';

/** One output's promotion: argument indices (loose or as one list), then the method: `[0, 1, 'DEFAULT']` or `[[0, 1], 'DEFAULT']`. */
export type PromotionSpec = readonly (number | readonly number[] | PromotionMethod)[];

/** How a non-tensor argument is typed: a kind of Python scalar (weak), or a dtype. */
export type ScalarTypeSpec = ScalarKind | TensorDType | null | undefined;

/** Options of `pointwise`: type promotion, outputs, names (FlagGems' `pointwise_dynamic` arguments). */
export interface PointwiseOptions {
  /** Per input, whether it is a tensor (default: every input is). */
  readonly isTensor?: readonly boolean[];
  /** Per input, the type of a non-tensor argument (ignored for tensors, as in the seed). */
  readonly dtypes?: readonly ScalarTypeSpec[];
  /** Per output, which inputs decide its dtype and by which method (default: all inputs, DEFAULT). */
  readonly promotionMethods?: readonly PromotionSpec[];
  /** How many outputs the payload returns (default 1). */
  readonly numOutputs?: number;
  /** The parameter names of an expression-string payload, in order (default: its free names in order of appearance). */
  readonly params?: readonly string[];
  /** A name for the generated kernels (default: the payload function's name). */
  readonly name?: string;
  /** Work-items per work-group (default 256). */
  readonly blockSize?: number;
}

/** The options pointwise() reads; any other key is an error. */
export const POINTWISE_OPTIONS = optionKeys<PointwiseOptions>()([
  'isTensor',
  'dtypes',
  'promotionMethods',
  'numOutputs',
  'params',
  'name',
  'blockSize',
]);

export interface Promotion {
  readonly args: readonly number[];
  readonly method: PromotionMethod;
}

export interface CheckedOptions {
  readonly numInputs: number;
  readonly numOutputs: number;
  readonly isTensor: readonly boolean[];
  /** Per input: a scalar kind overriding the value's own, and/or a dtype it is passed in. */
  readonly scalarTypes: readonly { readonly kind?: ScalarKind; readonly dtype?: TensorDType }[];
  readonly promotions: readonly Promotion[];
  readonly blockSize: number;
}

const SCALAR_KINDS: readonly string[] = ['bool', 'int', 'float', 'complex'];

export function checkOptions(options: PointwiseOptions, params: readonly string[], returned: number): CheckedOptions {
  const numInputs = params.length;
  // as FlagGems' FunctionSchema asserts num_inputs >= 1: the inputs decide the outputs' shape and dtypes (every
  // promotion names at least one). Said first: without it, a payload such as `() => 1` was told that the default
  // promotionMethods, which it never wrote, "must list argument indices"
  if (numInputs === 0) {
    throw new LoomError(
      'pointwise: the payload takes no inputs; a pointwise function needs at least one, whose elements it maps',
    );
  }
  const listed = (what: string, list: readonly unknown[] | undefined) => {
    if (list && list.length !== numInputs) {
      throw new LoomError(
        `pointwise: ${what} has ${list.length} entries, but the payload takes ${numInputs} inputs (${params.join(', ')})`,
      );
    }
  };
  listed('isTensor', options.isTensor);
  listed('dtypes', options.dtypes);

  const numOutputs = options.numOutputs ?? 1;
  if (!Number.isInteger(numOutputs) || numOutputs < 1)
    throw new LoomError(`pointwise: numOutputs must be a positive integer, got ${numOutputs}`);
  if (returned !== numOutputs) {
    throw new LoomError(
      `pointwise: the payload returns ${returned} output(s), but numOutputs is ${numOutputs}${options.numOutputs === undefined ? ' (the default)' : ''}`,
    );
  }

  const isTensor = options.isTensor ?? params.map(() => true);
  // `[1, 0, 1]` would be read as truthy: say what was meant
  const notBoolean = isTensor.findIndex((b) => typeof b !== 'boolean');
  if (notBoolean >= 0)
    throw new LoomError(
      `pointwise: isTensor[${notBoolean}] is ${JSON.stringify(isTensor[notBoolean])}, not true or false (whether input ${notBoolean} is a tensor)`,
    );
  const scalarTypes = params.map((_, k) => {
    const spec = options.dtypes?.[k];
    if (spec === null || spec === undefined) return {};
    if (SCALAR_KINDS.includes(spec)) return { kind: spec as ScalarKind };
    return { dtype: checkTensorDType(spec, `dtype for input ${k}`) };
  });

  const everyInput: PromotionSpec = [...params.keys(), 'DEFAULT'];
  const promotions = (options.promotionMethods ?? Array.from({ length: numOutputs }, () => everyInput)).map((spec, k) =>
    checkPromotion(spec, k, numInputs),
  );
  if (promotions.length !== numOutputs) {
    throw new LoomError(
      `pointwise: promotionMethods has ${promotions.length} entries, one per output is needed (${numOutputs})`,
    );
  }

  const blockSize = options.blockSize ?? 256;
  if (!Number.isInteger(blockSize) || blockSize < 1)
    throw new LoomError(`pointwise: blockSize must be a positive integer, got ${blockSize}`);
  return { numInputs, numOutputs, isTensor, scalarTypes, promotions, blockSize };
}

function checkPromotion(spec: PromotionSpec, output: number, numInputs: number): Promotion {
  if (!Array.isArray(spec) || spec.length < 2) {
    throw new LoomError(
      `pointwise: promotionMethods[${output}] must list argument indices and end with a method, e.g. [0, 1, 'DEFAULT']`,
    );
  }
  const method = checkPromotionMethod(spec[spec.length - 1]);
  const args = spec.slice(0, -1).flatMap((a) => (Array.isArray(a) ? a : [a])) as unknown[];
  for (const a of args) {
    if (typeof a !== 'number' || !Number.isInteger(a) || a < 0 || a >= numInputs) {
      throw new LoomError(
        `pointwise: promotionMethods[${output}] names argument ${String(a)}, but the inputs are 0 to ${numInputs - 1}`,
      );
    }
  }
  return { args: args as number[], method };
}
