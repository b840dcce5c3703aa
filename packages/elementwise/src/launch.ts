/**
 * From a prepared call to a kernel launch: which distinct storages the operands
 * view (each becomes one kernel argument), the variant's spec, and the values of
 * its arguments — sizes, strides, offsets, scalars — as the variant's launch plan
 * says where each comes from (kernel.ts).
 */
import { LoomError, roundToFloat16, run, type RunArgument } from '@loom/core';
import type { InputOperand } from './arguments.ts';
import { componentDType, isComplex, isFloating, type TensorDType } from './dtypes.ts';
import type { Scalar } from './host.ts';
import type { KernelSpec, PointwiseKernel, ValueSource } from './kernel.ts';
import type { TaskSpace } from './layout.ts';
import type { DTypes } from './metadata.ts';
import { isComplexScalar } from './promotion.ts';
import { Storage } from './storage.ts';
import type { Tensor } from './tensor.ts';

/** The kernel's indices are int32. */
const INT32_MAX = 2 ** 31 - 1;

export interface Operands {
  readonly inputs: readonly InputOperand[];
  readonly outputs: readonly Tensor[];
}

/** The distinct storages the tensors view, in order of first use, and each tensor's index among them. */
function storagesOf(tensors: readonly Tensor[]): { storages: Storage[]; index: Map<Tensor, number> } {
  const storages: Storage[] = [];
  const index = new Map<Tensor, number>();
  for (const t of tensors) {
    let k = storages.indexOf(t.storage);
    if (k < 0) k = storages.push(t.storage) - 1;
    index.set(t, k);
  }
  return { storages, index };
}

/**
 * The spec of the variant a call needs. `outputs` are the given output tensors,
 * undefined for those yet to be allocated (each will have a storage of its own).
 */
/** `innerStrides`: each tensor operand's stride along the innermost task axis (inputs, then outputs). */
export function kernelSpec(
  inputs: readonly InputOperand[], outputs: readonly (Tensor | undefined)[], dtypes: DTypes, rank: number, blockSize: number,
  innerStrides: readonly number[] = [],
): KernelSpec {
  const unit = (operand: number) => rank > 0 && innerStrides[operand] === 1;
  const tensorInputs = inputs.filter((i) => i.kind === 'tensor').length;
  let operand = 0;
  const { storages, index } = storagesOf(inputs.flatMap((i) => (i.kind === 'tensor' ? [i.tensor] : [])));
  const storageDTypes = storages.map((s) => s.dtype);
  // outputs in order, as launch() will meet them: a given one may share an input's storage, a fresh one has its own
  const outputStorage = outputs.map((t, k) => {
    const shared = t ? storages.indexOf(t.storage) : -1;
    if (shared >= 0) return shared;
    if (t) storages.push(t.storage);
    return storageDTypes.push(componentDType(dtypes.outputs[k])) - 1;
  });
  return {
    rank,
    storages: storageDTypes,
    inputs: inputs.map((input, k) =>
      input.kind === 'tensor'
        ? { kind: 'tensor', storage: index.get(input.tensor)!, dtype: input.tensor.dtype, as: dtypes.inputs[k], unitInner: unit(operand++) }
        : { kind: 'scalar', as: dtypes.inputs[k] },
    ),
    outputs: outputs.map((_, k) => ({ storage: outputStorage[k], dtype: dtypes.outputs[k], unitInner: unit(tensorInputs + k) })),
    blockSize,
  };
}

/** Runs `variant` over `task` once everything queued on the operands' storages is done. */
export function launch(variant: PointwiseKernel, operands: Operands, task: TaskSpace): Promise<void> {
  // operands as the task's strides number them: the tensor inputs, then the outputs
  const tensors = [...operands.inputs.flatMap((i) => (i.kind === 'tensor' ? [i.tensor] : [])), ...operands.outputs];
  const { storages } = storagesOf(tensors);
  const numel = task.shape.reduce((a, b) => a * b, 1);
  if (numel > INT32_MAX) throw new LoomError(`a pointwise task of ${numel} elements exceeds the int32 indices of the kernels`);
  for (const s of storages) {
    if (s.length > INT32_MAX) throw new LoomError(`a storage of ${s.length} numbers exceeds the int32 indices of the kernels`);
  }
  if (numel === 0) return Promise.resolve();

  const scalars = operands.inputs.map((input, k) => (input.kind === 'scalar' ? scalarParts(input.value, variant.spec.inputs[k].as) : []));
  const valueOf = (source: ValueSource): RunArgument => {
    switch (source.from) {
      case 'elements': return numel;
      case 'extent': return task.shape[source.axis];
      case 'storage-length': return storages[source.storage].length;
      case 'offset': return tensors[source.operand].offset;
      case 'stride': return task.strides[source.operand][source.axis];
      case 'scalar': return scalars[source.input][source.part];
      case 'constant': return source.value;
    }
  };
  const values: Record<string, RunArgument> = {};
  for (const [name, source] of variant.plan.values) values[name] = valueOf(source);

  return Storage.after(storages, async () => {
    variant.plan.storages.forEach((name, k) => {
      values[name] = storages[k].asDeviceArray();
    });
    await run(variant.kernel, storages[0].device, values);
  });
}

/** A scalar as the kernel takes it in `dtype`: converted as a cast would (ints wrap), complex as its two parts. */
function scalarParts(value: Scalar, dtype: TensorDType): (number | bigint)[] {
  if (isComplex(dtype)) {
    const c = isComplexScalar(value) ? value : { re: Number(value), im: 0 };
    return [toDType(c.re, componentDType(dtype)), toDType(c.im, componentDType(dtype))];
  }
  return [toDType(isComplexScalar(value) ? value.re : value, dtype)];
}

function toDType(value: number | boolean | bigint, dtype: TensorDType): number | bigint {
  if (dtype === 'bool') return value ? 1 : 0;
  if (isFloating(dtype)) {
    const x = Number(value);
    return dtype === 'float32' ? Math.fround(x) : dtype === 'float16' ? roundToFloat16(x) : x;
  }
  // as C converts: fractions truncate (a non-finite number has no integer: 0)
  const whole = typeof value === 'bigint' ? value : Number.isFinite(Number(value)) ? BigInt(Math.trunc(Number(value))) : 0n;
  switch (dtype) {
    case 'int64': return BigInt.asIntN(64, whole);
    case 'uint64': return BigInt.asUintN(64, whole);
    case 'int32': case 'int16': case 'int8': {
      const bits = dtype === 'int32' ? 32 : dtype === 'int16' ? 16 : 8;
      return Number(BigInt.asIntN(bits, whole));
    }
    default: {
      const bits = dtype === 'uint32' ? 32 : dtype === 'uint16' ? 16 : 8;
      return Number(BigInt.asUintN(bits, whole));
    }
  }
}
