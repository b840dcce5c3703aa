/**
 * What a pointwise call was given: inputs by position (tensors, or scalars where the
 * payload takes them), then optionally `{ out0, out1, ... }`, the pre-allocated
 * outputs by keyword — the seed's rule, which keeps inputs and outputs apart.
 */
import { DeviceArray, LoomError } from '@loom/core';
import { isFloating, isTensorDType, type TensorDType } from './dtypes.ts';
import type { Scalar } from './host.ts';
import type { CheckedOptions } from './options.ts';
import { isComplexScalar, scalarKindOf, type ScalarKind } from './promotion.ts';
import { Tensor } from './tensor.ts';

/** Pre-allocated outputs by keyword. */
export type OutputArguments = { readonly [name: `out${number}`]: Tensor | undefined };

export type InputOperand =
  | { readonly kind: 'tensor'; readonly tensor: Tensor }
  /** A scalar: weak, of `type`, passed in `dtype` when the options fix one. */
  | { readonly kind: 'scalar'; readonly value: Scalar; readonly type: ScalarKind; readonly dtype?: TensorDType };

export interface CallArguments {
  readonly inputs: readonly InputOperand[];
  /** Per output, the tensor given for it, if any. */
  readonly outputs: readonly (Tensor | undefined)[];
}

function isOutputArguments(x: unknown): x is OutputArguments {
  if (
    typeof x !== 'object' ||
    x === null ||
    x instanceof Tensor ||
    Array.isArray(x) ||
    isComplexScalar(x) ||
    ArrayBuffer.isView(x)
  )
    return false;
  return Object.keys(x).every((k) => /^out\d+$/.test(k));
}

export function readArguments(
  args: readonly unknown[],
  options: CheckedOptions,
  params: readonly string[],
): CallArguments {
  const { numInputs, numOutputs } = options;
  let given = args;
  let outs: OutputArguments = {};
  if (args.length === numInputs + 1 && isOutputArguments(args[numInputs])) {
    outs = args[numInputs] as OutputArguments;
    given = args.slice(0, numInputs);
  }
  if (given.length !== numInputs) {
    throw new LoomError(
      `expected ${numInputs} input(s) (${params.join(', ')}) and optionally { out0, ... }, got ${args.length} argument(s)`,
    );
  }
  const outputs = Array.from({ length: numOutputs }, (_, k) => {
    const out = outs[`out${k}`];
    if (out !== undefined && !(out instanceof Tensor)) throw new LoomError(`out${k} must be a Tensor`);
    return out;
  });
  for (const key of Object.keys(outs)) {
    if (Number(key.slice(3)) >= numOutputs)
      throw new LoomError(`unknown output keyword '${key}': this function has ${numOutputs} output(s)`);
  }
  const inputs = given.map((value, k) => readInput(value, k, options, params));
  return { inputs, outputs };
}

function readInput(value: unknown, k: number, options: CheckedOptions, params: readonly string[]): InputOperand {
  const name = inputName(k, params);
  if (value instanceof Tensor) {
    if (!options.isTensor[k])
      throw new LoomError(`${name} is not a tensor argument (isTensor[${k}] is false), but a Tensor was passed`);
    return { kind: 'tensor', tensor: value };
  }
  const own = scalarKindOf(value);
  if (!own) {
    throw new LoomError(
      `${name} must be a Tensor or a scalar (number, boolean, bigint or { re, im }), not ${describe(value)}`,
    );
  }
  // a scalar where a tensor may go is a Python scalar, as torch.add(x, 2) takes one
  const { kind, dtype } = options.scalarTypes[k];
  const type = kind ?? (dtype ? kindOfDType(dtype) : own);
  return { kind: 'scalar', value: value as Scalar, type, ...(dtype ? { dtype } : {}) };
}

function kindOfDType(t: TensorDType): ScalarKind {
  if (t === 'bool') return 'bool';
  if (t === 'complex64' || t === 'complex128') return 'complex';
  return isFloating(t) ? 'float' : 'int';
}

export const inputName = (k: number, params: readonly string[]) => `input ${k} (${params[k]})`;

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array (make a tensor of it with tensor())';
  if (v instanceof DeviceArray)
    return `a DeviceArray of ${v.dtype} (pointwise functions take Tensors: tensor(await array.toHost(), array.shape, { device, dtype: '${v.dtype}' }))`;
  if (isTensorDType(v)) return `the string '${v}'`;
  return typeof v;
}
