/**
 * The metadata of a pointwise call, computed on the host before any kernel runs
 * (the seed's list): the dtypes (type promotion), the device, the output shape
 * (broadcasting), the outputs' layout, the checks on pre-allocated outputs, and the
 * task space of reduced rank the kernel iterates over.
 */
import { LoomError, type Device } from '@loom/core';
import { inputName, type CallArguments, type InputOperand } from './arguments.ts';
import { broadcastShapes, broadcastStrides } from './broadcast.ts';
import { checkDTypeSupported } from './devices.ts';
import { coalesce, strideOrder, stridesInOrder, type TaskSpace } from './layout.ts';
import type { CheckedOptions } from './options.ts';
import { checkWritable, overlapOf } from './overlap.ts';
import { canCast, elementwiseDTypes, promoteTypes, weakScalarDType, type PromotionOperand } from './promotion.ts';
import type { Tensor } from './tensor.ts';
import type { TensorDType } from './dtypes.ts';

export interface DTypes {
  /** Per output: what it is computed in. */
  readonly computation: readonly TensorDType[];
  /** Per output: what it holds (a pre-allocated output's own dtype). */
  readonly outputs: readonly TensorDType[];
  /** Per input: what the kernel reads it as. */
  readonly inputs: readonly TensorDType[];
}

/**
 * Each output's dtypes by its promotion method over the inputs it names; each input
 * is read as the computation dtype of the outputs it decides (PyTorch casts operands
 * to the common dtype), or as itself when it decides none (a `where` condition).
 */
export function inferDTypes(call: CallArguments, options: CheckedOptions, checkOutputs = true): DTypes {
  const operand = (i: number): PromotionOperand => {
    const input = call.inputs[i];
    return input.kind === 'tensor'
      ? { kind: 'tensor', dtype: input.tensor.dtype, ndim: input.tensor.ndim }
      : { kind: 'scalar', type: input.type };
  };
  const promoted = options.promotions.map((p) => elementwiseDTypes(p.args.map(operand), p.method));
  const computation = promoted.map((p) => p.computation);
  const outputs = promoted.map((p, k) => {
    const given = call.outputs[k];
    if (!given) return p.result;
    if (checkOutputs && !canCast(p.result, given.dtype)) {
      throw new LoomError(`result type ${p.result} can't be cast to the desired output type ${given.dtype} of out${k}`);
    }
    return given.dtype;
  });
  const inputs = call.inputs.map((input, i) => {
    const decided = options.promotions.flatMap((p, k) => (p.args.includes(i) ? [computation[k]] : []));
    if (decided.length > 0) return decided.reduce(promoteTypes);
    if (input.kind === 'tensor') return input.tensor.dtype;
    return input.dtype ?? weakScalarDType(input.type, computation[0]);
  });
  return { computation, outputs, inputs };
}

/** The one device every tensor of the call lives on. */
export function inferDevice(call: CallArguments, params: readonly string[]): Device {
  const named: { name: string; tensor: Tensor }[] = [
    ...call.inputs.flatMap((input, k) =>
      input.kind === 'tensor' ? [{ name: inputName(k, params), tensor: input.tensor }] : [],
    ),
    ...call.outputs.flatMap((t, k) => (t ? [{ name: `out${k}`, tensor: t }] : [])),
  ];
  if (named.length === 0)
    throw new LoomError('a pointwise call needs at least one tensor (an input or an out argument) to know its device');
  const first = named[0];
  for (const n of named) {
    if (n.tensor.storage.released) throw new LoomError(`${n.name} was released`);
    if (n.tensor.device !== first.tensor.device) {
      throw new LoomError(
        `all tensors must be on one device: ${first.name} is on ${first.tensor.device.name}, ${n.name} on ${n.tensor.device.name}`,
      );
    }
  }
  return first.tensor.device;
}

export function checkDevice(device: Device, dtypes: DTypes): void {
  for (const t of new Set([...dtypes.computation, ...dtypes.outputs, ...dtypes.inputs]))
    checkDTypeSupported(device, t, 'pointwise');
}

export interface Layout {
  /** The broadcast shape: every output's shape. */
  readonly shape: readonly number[];
  /** Strides for each output that must be allocated (undefined for given ones). */
  readonly allocate: readonly (readonly number[] | undefined)[];
  /** The reduced task space; its operands are the tensor inputs, then the outputs. */
  readonly task: TaskSpace;
}

/**
 * Broadcasting, pre-allocated outputs checked (shape, overlap), outputs to allocate
 * laid out in their inputs' stride order, and the task space coalesced.
 */
export function inferLayout(call: CallArguments, params: readonly string[]): Layout {
  const tensors = call.inputs.flatMap((input, k) =>
    input.kind === 'tensor' ? [{ name: inputName(k, params), tensor: input.tensor }] : [],
  );
  const shape = broadcastShapes(
    tensors.map((t) => t.tensor.shape),
    tensors.map((t) => t.name),
  );
  call.outputs.forEach((out, k) => {
    if (!out) return;
    if (out.ndim !== shape.length || out.shape.some((s, d) => s !== shape[d])) {
      throw new LoomError(
        `out${k} has shape [${out.shape.join(', ')}], but the inputs broadcast to [${shape.join(', ')}]`,
      );
    }
    checkWritable(out, `out${k}`, tensors);
    call.outputs.forEach((other, j) => {
      if (other && j > k) {
        const overlap = overlapOf(out, other);
        if (overlap === 'full' || overlap === 'partial')
          throw new LoomError(`out${k} and out${j} share memory: each output needs its own`);
      }
    });
  });

  const inputStrides = tensors.map((t) => broadcastStrides(t.tensor, shape));
  const outputStrides = call.outputs.map((out) => out?.strides);
  // PyTorch orders by the outputs that exist first, then the inputs
  const perm = strideOrder(shape, [...outputStrides, ...inputStrides]);
  const allocate = call.outputs.map((out) => (out ? undefined : stridesInOrder(shape, perm)));
  const all = [...inputStrides, ...call.outputs.map((out, k) => out?.strides ?? allocate[k]!)];
  return { shape, allocate, task: coalesce(shape, all, perm) };
}

/** The task space of `instantiate(rank)`: the outputs' shape as it is, every operand of exactly that shape. */
export function fixedLayout(call: CallArguments, params: readonly string[], rank: number): Layout {
  const outs = call.outputs.map((out, k) => {
    if (!out) throw new LoomError(`an instantiated pointwise function needs every output: pass out${k}`);
    return out;
  });
  const shape = outs[0].shape;
  const check = (t: Tensor, name: string) => {
    if (t.ndim !== rank || t.shape.some((s, d) => s !== shape[d])) {
      throw new LoomError(
        `instantiate(${rank}): ${name} has shape [${t.shape.join(', ')}]; every tensor must have the rank-${rank} shape [${shape.join(', ')}]`,
      );
    }
  };
  if (shape.length !== rank) throw new LoomError(`instantiate(${rank}): out0 has rank ${shape.length}`);
  outs.forEach((t, k) => check(t, `out${k}`));
  const inputs = call.inputs.flatMap((input: InputOperand, k) =>
    (input.kind === 'tensor' ? [input.tensor] : []).map((t) => (check(t, inputName(k, params)), t)),
  );
  return {
    shape,
    allocate: outs.map(() => undefined),
    task: { shape, strides: [...inputs, ...outs].map((t) => t.strides) },
  };
}
