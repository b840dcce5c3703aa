/**
 * From a prepared call to a kernel launch: which distinct storages the operands
 * view (each becomes one kernel argument), the variant's spec, and the values of
 * its arguments — sizes, strides, offsets, scalars — as the variant's launch plan
 * says where each comes from (kernel.ts). A plan's `VariantLauncher` works them out
 * once and launches a prepared kernel (`prepareLaunch`) with each call's storages.
 */
import {
  LoomError,
  LruCache,
  prepareLaunch,
  roundToBfloat16,
  roundToFloat16,
  type DeviceArray,
  type Device,
  type PreparedLaunch,
  type RunArgument,
  type TargetFacts,
} from '@loom/core';
import type { InputOperand } from './arguments.ts';
import { componentDType, isComplex, isFloating, lanes, type TensorDType } from './dtypes.ts';
import type { Scalar } from './host.ts';
import type { KernelSpec, PointwiseKernel } from './kernel.ts';
import type { TaskSpace } from './layout.ts';
import type { DTypes } from './metadata.ts';
import { checkScalarFits } from './literal-range.ts';
import { isComplexScalar } from './promotion.ts';
import { Storage } from './storage.ts';
import type { Tensor } from './tensor.ts';
import { chooseVariant, type VariantChoice } from './variants.ts';

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
 * The kernels index in int32: a task or a storage (`lengths`, in numbers, those of outputs yet
 * to be allocated included) beyond that range is refused with the rest of the call's metadata,
 * synchronously and before any output is allocated. (Checked when the launch was prepared, a
 * call of 2^31 float16 elements first allocated its 4 GiB output, then rejected its promise.)
 */
function checkIndexRange(numel: number, lengths: readonly number[]): void {
  if (numel > INT32_MAX)
    throw new LoomError(`a pointwise task of ${numel} elements exceeds the int32 indices of the kernels`);
  for (const length of lengths) {
    if (length > INT32_MAX)
      throw new LoomError(`a storage of ${length} numbers exceeds the int32 indices of the kernels`);
  }
}

/**
 * The spec of the variant a call needs, and why that variant (variants.ts). `outputs`
 * are the given output tensors, undefined for those yet to be allocated (each will have
 * a storage of its own, laid out as `task` says).
 */
export function kernelSpec(
  inputs: readonly InputOperand[],
  outputs: readonly (Tensor | undefined)[],
  dtypes: DTypes,
  task: TaskSpace,
  blockSize: number,
  target: TargetFacts,
): { spec: KernelSpec; choice: VariantChoice } {
  const rank = task.shape.length;
  const unit = (operand: number) => rank > 0 && task.strides[operand][rank - 1] === 1;
  const tensorInputs = inputs.flatMap((i) => (i.kind === 'tensor' ? [i.tensor] : []));
  const { storages, index } = storagesOf(tensorInputs);
  const storageDTypes = storages.map((s) => s.dtype);
  // outputs in order, as launch() will meet them: a given one may share an input's storage, a fresh one has its own
  const outputStorage = outputs.map((t, k) => {
    const shared = t ? storages.indexOf(t.storage) : -1;
    if (shared >= 0) return shared;
    if (t) storages.push(t.storage);
    return storageDTypes.push(componentDType(dtypes.outputs[k])) - 1;
  });
  const numel = task.shape.reduce((a, b) => a * b, 1);
  checkIndexRange(numel, [
    ...storages.map((s) => s.length),
    ...outputs.flatMap((t, k) => (t ? [] : [numel * lanes(dtypes.outputs[k])])),
  ]);
  // operands as the task numbers them: the tensor inputs, then the outputs
  const storageOf = [...tensorInputs.map((t) => index.get(t)!), ...outputStorage];
  const facts = storageOf.map((storage, k) => ({
    dtype: k < tensorInputs.length ? tensorInputs[k].dtype : dtypes.outputs[k - tensorInputs.length],
    offset: k < tensorInputs.length ? tensorInputs[k].offset : (outputs[k - tensorInputs.length]?.offset ?? 0),
    storageUsers: storageOf.filter((s) => s === storage).length,
    isInput: k < tensorInputs.length,
    // a fresh output gets a storage of the task's size
    storageLength:
      k < tensorInputs.length
        ? tensorInputs[k].storage.length
        : (outputs[k - tensorInputs.length]?.storage.length ?? numel),
  }));
  const choice = chooseVariant(target, task, facts, blockSize);
  // the tiled variant addresses an operand as rows of the task when its rows run forwards (kernel.ts)
  const rows = (operand: number) =>
    choice.name === 'tiled' && task.strides[operand][0] >= 0 ? { forwardRows: true as const } : {};
  let operand = 0;
  const spec: KernelSpec = {
    variant: choice.name,
    ...(choice.vectorStatements ? { vectorStatements: true } : {}),
    rank,
    storages: storageDTypes,
    inputs: inputs.map((input, k) => {
      if (input.kind === 'scalar') return { kind: 'scalar', as: dtypes.inputs[k] };
      const n = operand++;
      return {
        kind: 'tensor',
        storage: index.get(input.tensor)!,
        dtype: input.tensor.dtype,
        as: dtypes.inputs[k],
        unitInner: unit(n),
        tiled: choice.tiledOperands.has(n),
        ...rows(n),
      };
    }),
    outputs: outputs.map((_, k) => ({
      storage: outputStorage[k],
      dtype: dtypes.outputs[k],
      unitInner: unit(tensorInputs.length + k),
      ...rows(tensorInputs.length + k),
    })),
    blockSize,
  };
  return { spec, choice };
}

/**
 * How a pointwise plan launches its variant. Everything but the operands' storages and
 * the scalars' values is the same for every call with the plan's metadata (sizes,
 * strides, offsets, storage lengths, which operand views which storage), so it is worked
 * out once, by the first call; the kernel is prepared once per set of scalar values
 * (`prepareLaunch`), and each call launches it with its own storages' arrays.
 */
export class VariantLauncher {
  /** Value arguments the metadata decides. */
  readonly #values: Readonly<Record<string, RunArgument>>;
  /** Per storage argument of the kernel, the tensor operand (inputs, then outputs) that first views it. */
  readonly #storageOperands: readonly number[];
  readonly #scalars: readonly { readonly name: string; readonly input: number; readonly part: number }[];
  readonly #empty: boolean;
  /** The shape each storage's array is passed in. */
  readonly #shapes: readonly (readonly number[])[];
  /** The prepared kernel per scalar values (most calls pass the same few); `ready` once it is. */
  readonly #prepared = new LruCache<string, { readonly promise: Promise<PreparedLaunch>; ready?: PreparedLaunch }>(
    PREPARED_PER_PLAN,
    (evicted) => {
      void evicted.promise.then(
        (p) => p.release(),
        () => {},
      );
    },
  );

  constructor(
    private readonly variant: PointwiseKernel,
    operands: Operands,
    task: TaskSpace,
  ) {
    // operands as the task's strides number them: the tensor inputs, then the outputs
    const tensors = tensorOperands(operands);
    const { storages } = storagesOf(tensors);
    // the int32 range was checked with the metadata (kernelSpec), before the outputs were allocated
    const numel = task.shape.reduce((a, b) => a * b, 1);
    this.#empty = numel === 0;
    this.#storageOperands = storages.map((s) => tensors.findIndex((t) => t.storage === s));
    const values: Record<string, RunArgument> = {};
    const scalars: { name: string; input: number; part: number }[] = [];
    // counts of vectors (`per`) divide exactly where the variant was chosen; a storage holds whole vectors only
    const per = (value: number, source: { per?: number }) => Math.floor(value / (source.per ?? 1));
    for (const [name, source] of variant.plan.values) {
      switch (source.from) {
        case 'elements':
          values[name] = per(numel, source);
          break;
        case 'extent':
          values[name] = per(task.shape[source.axis], source);
          break;
        case 'storage-length':
          values[name] = per(storages[source.storage].length, source);
          break;
        case 'offset':
          values[name] = per(tensors[source.operand].offset, source);
          break;
        case 'stride':
          values[name] = per(task.strides[source.operand][source.axis], source);
          break;
        case 'reach':
          values[name] = tensors[source.operand].offset + task.shape[source.axis];
          break;
        case 'constant':
          values[name] = source.value;
          break;
        case 'scalar':
          scalars.push({ name, input: source.input, part: source.part });
          break;
      }
    }
    this.#values = values;
    this.#scalars = scalars;
    this.#shapes = variant.plan.storageShapes.map((shape) =>
      shape.map((d) => (typeof d === 'number' ? d : (values[d] as number))),
    );
  }

  /** Runs the variant on `operands` once everything queued on their storages is done. */
  launch(operands: Operands): Promise<void> {
    const tensors = tensorOperands(operands);
    const storages = this.#storageOperands.map((k) => tensors[k].storage);
    if (this.#empty) return Promise.resolve();
    const arrays: Record<string, DeviceArray> = {};
    // a released storage fails here, before anything is queued
    this.variant.plan.storages.forEach((name, k) => (arrays[name] = storages[k].asDeviceArray(this.#shapes[k])));
    const scalars = this.#scalars.map((s) => {
      const input = operands.inputs[s.input];
      if (input.kind !== 'scalar') return 0;
      const as = this.variant.spec.inputs[s.input].as;
      // a whole number that its integer dtype cannot hold would wrap: refused, as PyTorch does
      if (input.type === 'int' && (typeof input.value === 'number' || typeof input.value === 'bigint')) {
        checkScalarFits(input.value, input.dtype ?? as, `the scalar input ${s.input}`, input.dtype !== undefined);
      }
      return scalarParts(input.value, as)[s.part];
    });
    const key = scalars.map((v) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : `${v}`)).join(',');
    return Storage.after(storages, () => {
      const entry = this.#preparedFor(key, scalars, arrays, storages[0].device);
      // prepared already (every call after a plan's first): launched with no promise in between
      return entry.ready ? entry.ready.launch(arrays) : entry.promise.then((prepared) => prepared.launch(arrays));
    });
  }

  #preparedFor(
    key: string,
    scalars: readonly (number | bigint)[],
    arrays: Readonly<Record<string, DeviceArray>>,
    device: Device,
  ): { readonly promise: Promise<PreparedLaunch>; ready?: PreparedLaunch } {
    return this.#prepared.memo(key, () => {
      const args: Record<string, DeviceArray | number | bigint> = { ...this.#values, ...arrays } as Record<
        string,
        DeviceArray | number | bigint
      >;
      this.#scalars.forEach((s, k) => (args[s.name] = scalars[k]));
      const entry: { promise: Promise<PreparedLaunch>; ready?: PreparedLaunch } = {
        promise: prepareLaunch(this.variant.kernel, device, args),
      };
      entry.promise.then(
        (prepared) => (entry.ready = prepared),
        // a failure is not remembered: the next call tries again
        () => this.#prepared.delete(key),
      );
      return entry;
    });
  }
}

/** Prepared kernels kept per plan: one per set of scalar values. */
const PREPARED_PER_PLAN = 8;

function tensorOperands(operands: Operands): Tensor[] {
  const tensors: Tensor[] = [];
  for (const i of operands.inputs) if (i.kind === 'tensor') tensors.push(i.tensor);
  for (const t of operands.outputs) tensors.push(t);
  return tensors;
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
    if (dtype === 'bfloat16') return roundToBfloat16(x);
    return dtype === 'float32' ? Math.fround(x) : dtype === 'float16' ? roundToFloat16(x) : x;
  }
  // as C converts: fractions truncate (a non-finite number has no integer: 0)
  const whole =
    typeof value === 'bigint' ? value : Number.isFinite(Number(value)) ? BigInt(Math.trunc(Number(value))) : 0n;
  switch (dtype) {
    case 'int64':
      return BigInt.asIntN(64, whole);
    case 'uint64':
      return BigInt.asUintN(64, whole);
    case 'int32':
    case 'int16':
    case 'int8': {
      const bits = dtype === 'int32' ? 32 : dtype === 'int16' ? 16 : 8;
      return Number(BigInt.asIntN(bits, whole));
    }
    default: {
      const bits = dtype === 'uint32' ? 32 : dtype === 'uint16' ? 16 : 8;
      return Number(BigInt.asUintN(bits, whole));
    }
  }
}
