/**
 * The plan a computation builds (Reikna's ComputationPlan): kernel calls, nested
 * computation calls, and the arrays they use besides the computation's parameters.
 *
 *   buildPlan(plan, device, output, input1, input2, param) {
 *     const t = plan.tempArrayLike(output);
 *     plan.kernelCall(scale, { out: t, a: input1, k: param });
 *     plan.kernelCall(add, { out: output, a: t, b: input2 });
 *   }
 *
 * What a call binds a kernel's argument to is a `PlanValue`: one of the computation's
 * parameters (the `KernelArgument`s buildPlan receives), a temporary array (memory the
 * compiled computation owns; temporaries whose uses do not overlap share it), a
 * persistent array (data uploaded once, at compile time), or a number for a value argument.
 */
import {
  checkOptionKeys,
  LoomError,
  dtypeOfHostArray,
  hostLanes,
  optionKeys,
  type DType,
  type HostArray,
  type LoopKernel,
} from '@loom/core';
import type { ComputationParam, ValueType } from './params.ts';
import type { DeviceParameters } from './device-parameters.ts';

/** A parameter of the computation, as buildPlan sees it. */
export class KernelArgument<P extends ComputationParam = ComputationParam> implements ValueType {
  /** Tells a parameter apart from temporaries and persistent arrays. */
  readonly kind = 'parameter';
  constructor(
    /** The computation parameter it stands for. */
    readonly param: P,
    /** The computation whose plan it belongs to (an argument of another computation's plan is refused). */
    readonly owner: object,
  ) {
    Object.freeze(this);
  }
  /** The parameter's name. */
  get name(): P['name'] {
    return this.param.name;
  }
  /** The parameter's element type. */
  get dtype(): P['dtype'] {
    return this.param.dtype;
  }
  /** The parameter's shape; undefined for a scalar. */
  get shape(): readonly number[] | undefined {
    return this.param.shape;
  }
  /** The parameter's role: `'i'`, `'o'`, `'io'` or `'s'` (scalar). */
  get role(): P['role'] {
    return this.param.role;
  }
}

/** A temporary array of a plan, allocated for the computation's calls. */
export class TempArray implements ValueType {
  /** Tells a temporary apart from parameters and persistent arrays. */
  readonly kind = 'temporary';
  constructor(
    /** Its number in the plan. */
    readonly id: number,
    /** Its element dtype. */
    readonly dtype: DType,
    /** Its shape. */
    readonly shape: readonly number[],
  ) {
    Object.freeze(this);
  }
}

/**
 * An array of a plan that keeps its contents between calls (Reikna's `persistent_array`), or
 * that no kernel may write (`constant`: Reikna's `constant_array`).
 */
export class PersistentArray implements ValueType {
  /** Tells a persistent array apart from parameters and temporaries. */
  readonly kind = 'persistent';
  constructor(
    /** Its number in the plan. */
    readonly id: number,
    /** Its element dtype. */
    readonly dtype: DType,
    /** Its shape. */
    readonly shape: readonly number[],
    /** The contents uploaded when the computation is compiled. */
    readonly data: HostArray,
    /** Read only: a kernel or computation that writes it is refused when the plan is built. */
    readonly constant = false,
  ) {
    Object.freeze(this);
  }
}

export type PlanArray = KernelArgument | TempArray | PersistentArray;
/** What a plan passes to a kernel call: an array or a scalar. */
export type PlanValue = PlanArray | number | bigint;

/** Anything with a kernel: a `LoopKernel`, or the DSL's builder (its `.kernel`). */
export type KernelLike = LoopKernel | { readonly kernel: LoopKernel };

export interface KernelCall {
  readonly kind: 'kernel';
  readonly kernel: LoopKernel;
  readonly bindings: ReadonlyMap<string, PlanValue>;
  /** Its integer parameters passed at launch rather than fixed into the code (`KernelCallOptions`). */
  readonly runtimeSizes: boolean;
  /** Applied once the transformations are fused in (`KernelCallOptions.finish`). */
  readonly finish?: (kernel: LoopKernel) => LoopKernel;
}

export interface KernelCallOptions {
  /**
   * Keep the kernel's integer parameters (sizes the bound arrays' shapes determine) as
   * parameters, passed at launch, rather than fixed into its code: the same kernel called on
   * arrays of other sizes (another computation of another shape) is the same code, built
   * once per device. A kernel whose arguments take transformations is still specialized
   * (the transformations are made for concrete shapes).
   */
  readonly runtimeSizes?: boolean;
  /**
   * A last transformation of the kernel, applied when the computation is compiled, after the
   * transformations attached to its parameters (and to those of the computations that call
   * this one) are fused in: for what depends on which arguments are still the arrays bound
   * here, such as viewing an array's rows as vectors (`matmulVectorViews`), which a
   * transformation fused in its place reads its own way. It may change an argument's shape to
   * another of the same elements, a reshape of the contiguous array (the array bound is
   * passed reshaped); nothing else about the arguments.
   */
  readonly finish?: (kernel: LoopKernel) => LoopKernel;
}

/** The options kernelCall reads; any other key is an error. */
const KERNEL_CALL_OPTIONS = optionKeys<KernelCallOptions>()(['finish', 'runtimeSizes']);

export interface ComputationCall {
  readonly kind: 'computation';
  readonly computation: NestedComputation;
  readonly args: readonly PlanValue[];
}

/** What a plan needs of a nested computation (computation.ts implements it). */
export interface NestedComputation {
  readonly name: string;
  readonly signature: readonly ComputationParam[];
}

let nextId = 0;

/** The plan `buildPlan` fills (Reikna's `ComputationPlan`): kernel calls, temporaries, persistent arrays and nested computations, in order. */
export class ComputationPlan {
  readonly #calls: (KernelCall | ComputationCall)[] = [];
  readonly #temporaries: TempArray[] = [];
  readonly #persistent: PersistentArray[] = [];

  constructor(
    /** What the device allows (work-group sizes, local memory): plans size their kernels by it. */
    readonly device: DeviceParameters,
    /** The computation whose plan this is (its arguments are refused in another plan). */
    readonly owner: object,
    /** Names the computation in error messages. */
    readonly what: string,
  ) {}

  /** Memory for intermediate results, owned by the compiled computation. */
  tempArray(dtype: DType, shape: readonly number[]): TempArray {
    if (!Array.isArray(shape) || shape.some((n) => !Number.isSafeInteger(n) || n < 0))
      throw new LoomError(
        `${this.what}: tempArray needs a shape of non-negative integers, got ${JSON.stringify(shape)}`,
      );
    const t = new TempArray(nextId++, dtype, Object.freeze([...shape]));
    this.#temporaries.push(t);
    return t;
  }

  /** A temporary with the dtype and shape of `like` (a parameter, a temporary, any `{ dtype, shape }`). */
  tempArrayLike(like: { readonly dtype: DType; readonly shape?: readonly number[] }): TempArray {
    if (!like.shape) throw new LoomError(`${this.what}: tempArrayLike needs an array, not a scalar`);
    return this.tempArray(like.dtype, like.shape);
  }

  /**
   * Data the computation keeps on the device, uploaded once when it is compiled (a complex
   * dtype's parts interleaved: two numbers per element).
   */
  persistentArray(
    data: HostArray,
    shape: readonly number[] = [data.length],
    dtype: DType | undefined = dtypeOfHostArray(data),
  ): PersistentArray {
    return this.#keep('persistentArray', data, shape, dtype, false);
  }

  /**
   * Data the computation's kernels only read, uploaded once when it is compiled (Reikna's
   * `constant_array`): a kernel or nested computation that writes it is refused.
   */
  constantArray(
    data: HostArray,
    shape: readonly number[] = [data.length],
    dtype: DType | undefined = dtypeOfHostArray(data),
  ): PersistentArray {
    return this.#keep('constantArray', data, shape, dtype, true);
  }

  #keep(
    what: string,
    data: HostArray,
    shape: readonly number[],
    dtype: DType | undefined,
    constant: boolean,
  ): PersistentArray {
    if (!dtype) throw new LoomError(`${this.what}: ${what} takes a typed array`);
    const size = shape.reduce((a, b) => a * b, 1) * hostLanes(dtype);
    if (size !== data.length)
      throw new LoomError(
        `${this.what}: ${what}: shape (${shape.join(', ')}) of ${dtype} holds ${size} numbers, the data ${data.length}`,
      );
    const p = new PersistentArray(nextId++, dtype, Object.freeze([...shape]), data, constant);
    this.#persistent.push(p);
    return p;
  }

  /** Runs a Loom kernel, each of its arguments bound to a parameter, temporary, persistent array or number. */
  kernelCall(kernel: KernelLike, bindings: Readonly<Record<string, PlanValue>>, options: KernelCallOptions = {}): void {
    checkOptionKeys('kernelCall', options, KERNEL_CALL_OPTIONS);
    if (options.finish !== undefined && typeof options.finish !== 'function')
      throw new LoomError(`${this.what}: kernelCall's finish is a function of the kernel`);
    const knl = 'kernel' in kernel && !('instructions' in kernel) ? kernel.kernel : (kernel as LoopKernel);
    if (typeof bindings !== 'object' || bindings === null)
      throw new LoomError(`${this.what}: kernelCall(kernel, { argument: value, ... })`);
    this.#calls.push({
      kind: 'kernel',
      kernel: knl,
      bindings: new Map(Object.entries(bindings)),
      runtimeSizes: options.runtimeSizes ?? false,
      ...(options.finish ? { finish: options.finish } : {}),
    });
  }

  /** Runs another computation (with its transformations), its signature's parameters given in order. */
  computationCall(computation: NestedComputation, ...args: PlanValue[]): void {
    this.#calls.push({ kind: 'computation', computation, args });
  }

  /** The kernel and computation calls added so far, in order. */
  get calls(): readonly (KernelCall | ComputationCall)[] {
    return this.#calls;
  }
  /** The temporary arrays made so far (`tempArray`, `tempArrayLike`). */
  get temporaries(): readonly TempArray[] {
    return this.#temporaries;
  }
  /** The persistent arrays made so far (`persistentArray`). */
  get persistent(): readonly PersistentArray[] {
    return this.#persistent;
  }
}

export function isPlanArray(v: unknown): v is PlanArray {
  return v instanceof KernelArgument || v instanceof TempArray || v instanceof PersistentArray;
}

export function describeValue(v: PlanValue): string {
  if (typeof v === 'number' || typeof v === 'bigint') return `the number ${v}`;
  if (v instanceof KernelArgument) return `parameter '${v.name}'`;
  if (v instanceof TempArray) return `a temporary array (${v.dtype}, (${v.shape.join(', ')}))`;
  if (v instanceof PersistentArray)
    return `a ${v.constant ? 'constant' : 'persistent'} array (${v.dtype}, (${v.shape.join(', ')}))`;
  return String(v);
}
