/**
 * Computations (Reikna's Computation): typed parameters, a plan built for a device, and
 * transformations attached to the parameters.
 *
 *   const comp = computation({
 *     params: [
 *       { name: 'output', dtype: 'float32', shape: [100], role: 'o' },
 *       { name: 'input1', dtype: 'float32', shape: [100], role: 'i' },
 *       { name: 'input2', dtype: 'float32', shape: [100], role: 'i' },
 *       { name: 'param', dtype: 'float32', role: 's' },
 *     ],
 *     buildPlan(plan, device, output, input1, input2, param) {
 *       plan.kernelCall(kernel, { out: output, a: input1, b: input2, k: param });
 *     },
 *   });
 *   const scaled = comp.attach('output', mulConst(...), 'in', { out: 'scaledOutput' });
 *   const run = await scaled.compile(device);
 *   await run(out, a, b, 0.5);
 *
 * or, as in Reikna, a class: `class Mine extends Computation<typeof PARAMS> { buildPlan(...) }`.
 *
 * Computations are immutable: `attach` returns a new computation (of the same class), with
 * its signature's type changed accordingly. `compile(device)` builds the plan once per
 * device, fuses every transformation into the kernels, checks their code and allocates
 * their memory, and returns the function that runs them.
 */
import { checkOptionKeys, LoomError, generateCode, optionKeys, perObject, type Device } from '@loom/core';
import type { ParamSpec } from '../transformation/params.ts';
import type { Transformation } from '../transformation/transformation.ts';
import { makeCompiled, type Compiled, type PreparedComputation } from './compiled.ts';
import { deviceParameters, type DeviceParameters } from './device-parameters.ts';
import { finishCall, flatten } from './flatten.ts';
import { allocateMemory } from './memory.ts';
import { checkComputationParams, type ComputationParam } from './params.ts';
import type { ComputationPlan, KernelArgument } from './plan.ts';
import { TransformationTree, type ConnectOptions } from './tree.ts';
import type {
  Attached,
  AttachableNames,
  InitialTree,
  KernelArgumentsOf,
  MappingFor,
  NamedArguments,
  NamedOutputs,
  OnlyKnown,
  Outputs,
  PositionalArguments,
  PreparedArguments,
  RegisteredParams,
  SignatureOf,
} from './typed.ts';

/** A computation compiled for a device: call it with its parameters in order, `byName`, or `prepare` it for repeated launches. */
export interface CompiledComputation<L extends readonly ComputationParam[]>
  extends Omit<Compiled, 'byName' | 'prepare'> {
  <const G extends PositionalArguments<L>>(...args: G): Promise<Outputs<L, G>>;
  /**
   * The call with its arguments by parameter name (an output left out is made for the call);
   * resolves to the outputs by name: a DeviceArray passed for one comes back as itself, host data
   * as host data (the array passed, or a new one).
   */
  byName<const G extends NamedArguments<L>>(args: OnlyKnown<G, L>): Promise<NamedOutputs<L, G>>;
  /**
   * The signature bound once to DeviceArrays (arrays) and numbers (scalars), in order, every
   * kernel prepared and checked: `launch()` then runs the call again without binding or copying.
   */
  prepare(...args: PreparedArguments<L>): Promise<PreparedComputation>;
}

/**
 * `P`: the computation's own parameters; `T`: its tree of transformations as the compiler
 * sees it (typed.ts), from which the signature `SignatureOf<P, T>` comes.
 */
export class Computation<P extends readonly ComputationParam[] = readonly ComputationParam[], T = InitialTree<P>> {
  /** Its name, for messages and the `ComputationRegistry`. */
  readonly name: string;
  /** The computation's own parameters: what buildPlan receives. */
  readonly params: P;
  /** The transformations attached to it, as a tree from its parameters to the signature's. */
  readonly tree: TransformationTree;

  constructor(params: P, name?: string) {
    this.name = name ?? new.target.name ?? 'computation';
    checkComputationParams(params, `computation '${this.name}'`);
    this.params = Object.freeze([...params]) as unknown as P;
    this.tree = TransformationTree.of(params);
  }

  /** The parameters the compiled computation takes, in order: the leaves of its transformations. */
  get signature(): SignatureOf<P, T> {
    return this.tree.leaves as unknown as SignatureOf<P, T>;
  }

  /** A parameter of the signature, by name (its dtype and shape, for building transformations). */
  parameter<N extends SignatureOf<P, T>[number]['name']>(
    name: N,
  ): Extract<SignatureOf<P, T>[number], { readonly name: N }> {
    const p = this.tree.leaf(name);
    if (!p) throw new LoomError(`computation '${this.name}' has no parameter '${name}' in its signature`);
    return p as Extract<SignatureOf<P, T>[number], { readonly name: N }>;
  }

  /**
   * Fills the plan: kernel calls, temporaries, nested computations. Subclasses override it
   * (`computation()` takes it as a function).
   */
  buildPlan(plan: ComputationPlan, device: DeviceParameters, ...args: KernelArgumentsOf<P>): void;
  buildPlan(): void {
    throw new LoomError(
      `computation '${this.name}' has no buildPlan: override it, or make the computation with computation({ params, buildPlan })`,
    );
  }

  /**
   * Reikna's `connect`: `tr` runs in place of every access of the signature's parameter
   * `name`, through its parameter `connector`; its other parameters join the signature
   * under the names `mapping` gives. A new parameter named like an existing one of the other
   * direction (an output like an input) joins it into one `'io'` parameter only when
   * `options.inOut` names it; otherwise that is a LoomError.
   */
  attach<
    const TP extends readonly ParamSpec[],
    TC extends string,
    C extends TC,
    N extends AttachableNames<SignatureOf<P, T>, TP, C>,
    const M extends MappingFor<TP, C>,
  >(
    name: N,
    tr: Transformation<TP, TC>,
    connector: C,
    mapping: M,
    options: ConnectOptions = {},
  ): Computation<P, Attached<T, N, TP, C, M>> {
    const tree = this.tree.connect(
      name,
      tr as unknown as Transformation,
      connector,
      mapping as Readonly<Record<string, string>>,
      `computation '${this.name}': attach('${name}')`,
      options,
    );
    const copy = Object.create(Object.getPrototypeOf(this)) as Computation<P, Attached<T, N, TP, C, M>>;
    return Object.freeze(Object.assign(copy, this, { tree }));
  }

  /** Builds the plan for `device` (once per device), fuses the transformations, checks the code, allocates memory. */
  compile(device: Device): Promise<CompiledComputation<SignatureOf<P, T>>> {
    return compiledOn(this as unknown as Computation)(device) as unknown as Promise<
      CompiledComputation<SignatureOf<P, T>>
    >;
  }
}

const compiledOn = perObject((comp: Computation) =>
  perObject((device: Device) => {
    const entry = build(comp, device);
    // a failed compilation is not remembered
    entry.catch(() => undefined);
    return entry;
  }),
);

async function build(comp: Computation, device: Device): Promise<Compiled> {
  const calls = flatten(comp as never, deviceParameters(device)).map((c) =>
    finishCall(c, `computation '${comp.name}'`),
  );
  // every kernel's code, generated now: what Loom cannot generate fails here, before any call
  for (const call of calls) generateCode(call.kernel, device.target);
  const memory = await allocateMemory(device, calls);
  return makeCompiled({ name: comp.name, device, signature: comp.signature, calls, memory });
}

/**
 * What `computation` takes: the parameters and `buildPlan`, which adds kernel calls, temporaries and nested
 * computations to a plan (Reikna's `_build_plan`).
 */
export interface ComputationSpec<P extends readonly ComputationParam[]> {
  /** The computation's name (default `'computation'`); a literal one looks up its types in the `ComputationRegistry`. */
  readonly name?: string;
  /** Its parameters: name, role, dtype and shape each (Reikna's `Parameter`s). */
  readonly params: P;
  /**
   * Adds the computation's kernel calls, temporaries and nested computations to `plan`, given
   * the device's parameters and one argument per parameter (Reikna's `_build_plan`). Runs once
   * per device the computation is compiled for; `this` is the computation.
   */
  buildPlan(plan: ComputationPlan, device: DeviceParameters, ...args: KernelArgumentsOf<P>): void;
}

/** What a computation's spec may say; any other key is an error. */
const COMPUTATION_SPEC_KEYS = optionKeys<ComputationSpec<readonly ComputationParam[]> & { readonly name?: string }>()([
  'buildPlan',
  'name',
  'params',
]);

/**
 * A computation (Reikna's `Computation`) from its parameters and its plan-building function:
 * kernels, temporaries and nested computations built into a plan for a device, with
 * transformations attachable to its parameters. Its type carries the parameters when they are
 * written in place (a tuple the compiler sees); a list it cannot see is looked up in the
 * `ComputationRegistry` under the computation's name (`loom typegen`).
 */
export function computation<const P extends readonly ComputationParam[], const N extends string = string>(
  spec: ComputationSpec<P> & { readonly name?: N },
): Computation<RegisteredParams<N, P>> {
  checkOptionKeys('computation', spec, COMPUTATION_SPEC_KEYS);
  return new FunctionComputation(spec) as unknown as Computation<RegisteredParams<N, P>>;
}

class FunctionComputation<P extends readonly ComputationParam[]> extends Computation<P> {
  // a plain field, not #private: attach copies the computation with Object.assign
  readonly planBuilder: ComputationSpec<P>['buildPlan'];
  constructor(spec: ComputationSpec<P>) {
    super(spec.params, spec.name ?? 'computation');
    this.planBuilder = spec.buildPlan;
  }
  override buildPlan(plan: ComputationPlan, device: DeviceParameters, ...args: KernelArgumentsOf<P>): void {
    this.planBuilder.call(this, plan, device, ...args);
  }
}

export type { KernelArgument };
