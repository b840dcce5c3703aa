/**
 * `pointwise(options, payload)`: FlagGems' pointwise_dynamic for Loom.
 *
 *     const add = pointwise({ isTensor: [true, true, false], promotionMethods: [[0, 1, 'DEFAULT']] },
 *       (x, y, alpha) => x + y * alpha);
 *     const z = await add(a, b, 0.5);                 // broadcasting, promotion, a new output
 *     await add(a, b, 1, { out0: a });                // in place
 *
 * The payload is read once, here (an untranslatable one fails now, pointing at the
 * construct). Each call computes its metadata on the host (`metadata.ts`), then
 * dispatches on the task rank and dtypes to a cached kernel variant (`kernel.ts`):
 * new shapes of a known kind generate no code. `instantiate(rank)` skips the
 * metadata for callers who prepared every operand, as the seed's flip does.
 */
import {
  checkOptionKeys,
  generateCode,
  LruCache,
  perObject,
  targetFacts,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { readArguments, type CallArguments, type OutputArguments } from './arguments.ts';
import type { Scalar } from './host.ts';
import { buildKernel, specKey, type KernelSpec, type PointwiseKernel } from './kernel.ts';
import { kernelSpec, VariantLauncher } from './launch.ts';
import {
  checkDevice,
  fixedLayout,
  inferDevice,
  inferDTypes,
  inferLayout,
  type DTypes,
  type Layout,
} from './metadata.ts';
import { checkOptions, POINTWISE_OPTIONS, type CheckedOptions, type PointwiseOptions } from './options.ts';
import { readPayload, type Payload, type PayloadSource } from './payload.ts';
import { empty, type Tensor } from './tensor.ts';
import type { VariantChoice, VariantName } from './variants.ts';

/** An argument of a pointwise function: a tensor, a scalar, or outputs. */
export type PointwiseArgument = Tensor | Scalar | OutputArguments;

/** What a call will do, computed without running anything: `fn.plan(...args)`. */
export interface PointwisePlan {
  /** The device the call runs on (its tensors'). */
  readonly device: Device;
  /** The outputs' shape (the inputs' broadcast shape). */
  readonly shape: readonly number[];
  /** Per output, the dtype it is computed in and the dtype it holds. */
  readonly dtypes: DTypes;
  /** The task space the kernel iterates over, after rank reduction. */
  readonly taskShape: readonly number[];
  /** The number of axes of `taskShape`. */
  readonly rank: number;
  /** Which shape of kernel the call gets (variants.ts): 'flat', 'vector4' or 'tiled'. */
  readonly variant: VariantName;
  /** Why that variant, in a sentence. */
  readonly reason: string;
  /** The variant's Loom kernel (inspect it, or `generateCode(kernel, device.target)`). */
  readonly kernel: LoopKernel;
  /** The generated code for the device. */
  code(): string;
}

/** What `pointwise` returns: call it on tensors and scalars (broadcast and promoted as PyTorch does). */
export interface PointwiseFunction<R> {
  (...args: PointwiseArgument[]): Promise<R>;
  /** The same function with the metadata skipped: every operand has the rank-`rank` shape of the outputs, all given. */
  instantiate(rank: number): (...args: PointwiseArgument[]) => Promise<R>;
  /** The metadata of a call and its kernel, without running it. */
  plan(...args: PointwiseArgument[]): PointwisePlan;
  /** The body, read: its parameters and expression(s). */
  readonly payload: Payload;
  /** How many tensor and scalar inputs it takes. */
  readonly numInputs: number;
  /** How many outputs it makes. */
  readonly numOutputs: number;
  /** The kernel variants generated and still cached, by spec (the least recently used are dropped beyond the cache size). */
  readonly variants: Pick<LruCache<string, PointwiseKernel>, 'size' | 'capacity' | 'get' | 'values'>;
}

/** A pointwise function with one output resolves to a Tensor, with several to an array of them. */
export function pointwise(
  options: PointwiseOptions & { readonly numOutputs?: 1 },
  payload: PayloadSource,
): PointwiseFunction<Tensor>;
export function pointwise(options: PointwiseOptions, payload: PayloadSource): PointwiseFunction<Tensor[]>;
export function pointwise(options: PointwiseOptions, payload: PayloadSource): PointwiseFunction<Tensor | Tensor[]> {
  checkOptionKeys('pointwise', options, POINTWISE_OPTIONS);
  const read = readPayload(payload, options.params);
  const checked = checkOptions(options, read.params, read.outputs.length);
  return new Pointwise(read, checked, options.name ?? read.name).asFunction();
}

/** What a call's metadata decides: made once per kind of call and kept (`Pointwise.prepare`). */
interface Plan {
  readonly device: Device;
  readonly dtypes: DTypes;
  readonly layout: Layout;
  readonly variant: PointwiseKernel;
  readonly choice: VariantChoice;
  /** How calls launch the variant, once the first call has worked it out. */
  launcher?: VariantLauncher;
}

interface Prepared {
  readonly call: CallArguments;
  readonly plan: Plan;
}

class Pointwise {
  /** Kernel variants by spec (rank, dtypes, contiguity...): bounded, as a function may meet many. */
  readonly #variants = new LruCache<string, PointwiseKernel>();

  constructor(
    readonly payload: Payload,
    readonly options: CheckedOptions,
    readonly name: string,
  ) {}

  asFunction(): PointwiseFunction<Tensor | Tensor[]> {
    const fn = ((...args: PointwiseArgument[]) => this.run(this.prepare(args))) as PointwiseFunction<Tensor | Tensor[]>;
    Object.defineProperties(fn, {
      instantiate: {
        value:
          (rank: number) =>
          (...args: PointwiseArgument[]) =>
            this.run(this.prepare(args, rank)),
      },
      plan: { value: (...args: PointwiseArgument[]) => this.plan(args) },
      payload: { value: this.payload },
      numInputs: { value: this.options.numInputs },
      numOutputs: { value: this.options.numOutputs },
      variants: { get: () => this.#variants },
    });
    return fn;
  }

  /** The metadata (or, for an instantiated rank, only the dtypes) and the variant for a call. */
  prepare(args: readonly unknown[], rank?: number): Prepared {
    const params = this.payload.params;
    const call = readArguments(args, this.options, params);
    // everything below depends only on the operands' metadata: a call like an earlier one
    // (same storages, dtypes, shapes, strides, offsets, scalar kinds) reuses its plan
    const key = `${rank ?? ''}|${metadataKey(call)}`;
    return { call, plan: this.#plans.memo(key, () => this.plan0(call, rank)) };
  }

  /** Plans by the operands' metadata: every new shape or storage makes one, so bounded. */
  readonly #plans = new LruCache<string, Plan>(PLANS_PER_FUNCTION);

  private plan0(call: Prepared['call'], rank?: number): Plan {
    const params = this.payload.params;
    const device = inferDevice(call, params);
    const dtypes = inferDTypes(call, this.options, rank === undefined);
    checkDevice(device, dtypes);
    const layout = rank === undefined ? inferLayout(call, params) : fixedLayout(call, params, rank);
    const { spec, choice } = kernelSpec(
      call.inputs,
      call.outputs,
      dtypes,
      layout.task,
      this.options.blockSize,
      targetFacts(device.target),
    );
    return { device, dtypes, layout, variant: this.variant(spec), choice };
  }

  /** The cached variant for `spec`, built on first use. */
  variant(spec: KernelSpec): PointwiseKernel {
    return this.#variants.memo(specKey(spec), () => buildKernel(this.payload, spec, kernelName(this.name, spec)));
  }

  async run({ call, plan }: Prepared): Promise<Tensor | Tensor[]> {
    const { device, dtypes, layout, variant } = plan;
    const outputs = call.outputs.map(
      (out, k) => out ?? empty(layout.shape, { dtype: dtypes.outputs[k], device, strides: layout.allocate[k] }),
    );
    const operands = { inputs: call.inputs, outputs };
    plan.launcher ??= new VariantLauncher(variant, operands, layout.task);
    await plan.launcher.launch(operands);
    return this.options.numOutputs === 1 ? outputs[0] : outputs;
  }

  plan(args: readonly unknown[]): PointwisePlan {
    const { device, dtypes, layout, variant, choice } = this.prepare(args).plan;
    return {
      device,
      variant: choice.name,
      reason: choice.reason,
      shape: layout.shape,
      dtypes,
      taskShape: layout.task.shape,
      rank: layout.task.shape.length,
      kernel: variant.kernel,
      code: () => generateCode(variant.kernel, device.target).code,
    };
  }
}

const PLANS_PER_FUNCTION = 64;

function kernelName(name: string, spec: KernelSpec): string {
  const safe = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/^([^A-Za-z_])/, '_$1') || 'pointwise';
  return `${safe}_rank${spec.rank}${spec.variant === 'flat' ? '' : `_${spec.variant}`}`;
}

/** What a call's plan depends on, as a string: storages by identity, tensors' layout, scalars' kinds. */
function metadataKey(call: Prepared['call']): string {
  const tensor = tensorKey;
  const inputs = call.inputs.map((i) => (i.kind === 'tensor' ? tensor(i.tensor) : `s:${i.type}:${i.dtype ?? ''}`));
  const outputs = call.outputs.map((t) => (t ? tensor(t) : 'fresh'));
  return `${inputs.join(';')}>${outputs.join(';')}`;
}

/** A tensor's part of a plan's key, made once per tensor (its storage, dtype and layout never change). */
const tensorKey = perObject(
  (t: Tensor) => `${storageId(t.storage)}:${t.dtype}:${t.shape.join(',')}:${t.strides.join(',')}:${t.offset}`,
);

/** A stable number per storage (kept while the storage lives), to key plans by identity. */
const storageId = perObject((_: object) => nextStorageId++);
let nextStorageId = 0;
