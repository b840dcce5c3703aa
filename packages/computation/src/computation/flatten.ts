/**
 * From a computation to the kernels its compiled form launches: the plan is built, nested
 * computations are flattened into it, and every kernel argument bound to one of the
 * computation's parameters gets that parameter's transformations fused in (`attach`,
 * down the tree to the leaves). What comes out is a list of kernels, each argument bound
 * to a leaf of the signature, a temporary, a persistent array or a number.
 */
import { LoomError, fixParameters, printExpr, type KernelArg, type LoopKernel } from '@loom/core';
import { attach } from '../transformation/attach.ts';
import { accessesOf } from '../transformation/kernel-accesses.ts';
import { bindKernel, mergeAliases } from './bind-kernel.ts';
import type { DeviceParameters } from './device-parameters.ts';
import { describeType, isInputRole, isOutputRole, sameType, typeOf, type ComputationParam } from './params.ts';
import {
  ComputationPlan,
  describeValue,
  isPlanArray,
  KernelArgument,
  PersistentArray,
  TempArray,
  type KernelCall,
  type PlanValue,
} from './plan.ts';
import type { TransformationTree } from './tree.ts';

export type Bound =
  | { readonly kind: 'leaf'; readonly name: string }
  | { readonly kind: 'temporary'; readonly array: TempArray }
  | { readonly kind: 'persistent'; readonly array: PersistentArray }
  | { readonly kind: 'number'; readonly value: number | bigint };

export interface FusedCall {
  readonly kernel: LoopKernel;
  readonly bindings: ReadonlyMap<string, Bound>;
  /** The kernel call's `finish`, not yet applied (`finishCall` applies it). */
  readonly finish?: (kernel: LoopKernel) => LoopKernel;
  /** Arguments whose arrays the finished kernel takes reshaped: the shape it takes each in. */
  readonly views?: ReadonlyMap<string, readonly number[]>;
}

/** What flattening needs of a computation (computation.ts). */
export interface Flattenable {
  readonly name: string;
  readonly params: readonly ComputationParam[];
  readonly tree: TransformationTree;
  buildPlan(plan: ComputationPlan, device: DeviceParameters, ...args: KernelArgument[]): void;
}

export function flatten(comp: Flattenable, device: DeviceParameters): FusedCall[] {
  const what = `computation '${comp.name}'`;
  const plan = new ComputationPlan(device, comp, what);
  const roots = comp.params.map((p) => new KernelArgument(p, comp));
  comp.buildPlan(plan, device, ...roots);
  const out: FusedCall[] = [];
  for (const call of plan.calls) {
    if (call.kind === 'kernel') {
      const fused = fuseTree(
        kernelCall(call, comp, what, call.runtimeSizes && !takesTransformations(call, comp.tree)),
        comp.tree,
        what,
      );
      out.push(call.finish ? { ...fused, finish: call.finish } : fused);
      continue;
    }
    const nested = call.computation as unknown as Flattenable & { signature: readonly ComputationParam[] };
    const args = checkNestedArgs(nested, call.args, comp, what);
    for (const nestedCall of flatten(nested, device)) {
      // a kernel of runtime sizes meets this computation's transformations: sizes fixed first
      const passed = [...nestedCall.bindings.values()].flatMap((b) => (b.kind === 'leaf' ? [args.get(b.name)!] : []));
      const inner = passed.some((v) => hasTransformations(v, comp.tree)) ? fixSizes(nestedCall) : nestedCall;
      // the nested computation's leaves become what the call passed for them
      const bindings = new Map<string, PlanValue | Bound>();
      for (const [name, bound] of inner.bindings)
        bindings.set(name, bound.kind === 'leaf' ? args.get(bound.name)! : bound);
      const fused = fuseTree(bindOuter(inner.kernel, bindings), comp.tree, what);
      // the caller's transformations are fused in above: finishing waits for the outermost computation
      out.push(nestedCall.finish ? { ...fused, finish: nestedCall.finish } : fused);
    }
  }
  return out;
}

/**
 * A fused call with its `finish` applied: the kernel as it will be compiled. An argument whose
 * shape `finish` changed keeps its elements and dtype (its array is passed reshaped: `views`);
 * anything else is refused.
 */
export function finishCall(call: FusedCall, what: string): FusedCall {
  if (!call.finish) return call;
  const kernel = call.finish(call.kernel);
  const views = new Map<string, readonly number[]>();
  const count = (shape: readonly number[]) => shape.reduce((x, y) => x * y, 1);
  const concrete = (a: KernelArg | undefined) =>
    a?.shape?.every((s) => s.kind === 'int') ? a.shape.map((s) => (s as { value: number }).value) : undefined;
  for (const arg of call.kernel.args) {
    const after = kernel.arg(arg.name);
    const printed = (a: KernelArg) => a.shape?.map(printExpr).join();
    if (after?.kind === arg.kind && after.dtype === arg.dtype && printed(after) === printed(arg)) continue;
    const [before, shape] = [concrete(arg), concrete(after)];
    if (
      !after ||
      after.kind !== arg.kind ||
      after.dtype !== arg.dtype ||
      !before ||
      !shape ||
      count(before) !== count(shape)
    )
      throw new LoomError(
        `${what}: kernel '${kernel.name}': finish changed argument '${arg.name}' other than by a reshape of its elements`,
      );
    views.set(arg.name, shape);
  }
  if (kernel.args.length !== call.kernel.args.length)
    throw new LoomError(`${what}: kernel '${kernel.name}': finish added or removed arguments`);
  return { kernel, bindings: call.bindings, ...(views.size ? { views } : {}) };
}

/** A kernel call bound and specialized; its arguments bound to plan values. */
function kernelCall(
  call: KernelCall,
  comp: Flattenable,
  what: string,
  runtimeSizes: boolean,
): { kernel: LoopKernel; bindings: Map<string, PlanValue | Bound> } {
  for (const [name, v] of call.bindings)
    checkOwned(v, comp, `${what}: kernel '${call.kernel.name}': argument '${name}'`);
  const { kernel, bindings } = bindKernel(call.kernel, call.bindings, what, runtimeSizes);
  return { kernel, bindings: new Map(bindings) };
}

/** Whether a transformation is attached to a parameter the call binds (its shapes are concrete: the kernel's must be too). */
function takesTransformations(call: KernelCall, tree: TransformationTree): boolean {
  return [...call.bindings.values()].some((v) => hasTransformations(v, tree));
}

function hasTransformations(v: PlanValue, tree: TransformationTree): boolean {
  if (!(v instanceof KernelArgument)) return false;
  const node = tree.nodes.get(v.name);
  return node?.input !== undefined || node?.output !== undefined;
}

/** A kernel of runtime sizes specialized after all: its integer parameters bound to numbers fixed into its code. */
function fixSizes(call: FusedCall): FusedCall {
  const parameters = new Set(call.kernel.domains.flatMap((d) => d.params));
  const values: Record<string, number> = {};
  for (const [name, bound] of call.bindings)
    if (bound.kind === 'number' && parameters.has(name) && Number.isSafeInteger(bound.value))
      values[name] = Number(bound.value);
  if (Object.keys(values).length === 0) return call;
  return {
    kernel: fixParameters(call.kernel, values),
    bindings: new Map([...call.bindings].filter(([name]) => !(name in values))),
  };
}

/** A nested computation's kernel, its leaves replaced by what the call passed: arguments that now share an array merge. */
function bindOuter(
  kernel: LoopKernel,
  bindings: Map<string, PlanValue | Bound>,
): { kernel: LoopKernel; bindings: Map<string, PlanValue | Bound> } {
  return mergeAliases(kernel, bindings);
}

/** A nested call's arguments, one per leaf of its signature, of the leaf's type. */
function checkNestedArgs(
  nested: Flattenable & { signature: readonly ComputationParam[] },
  args: readonly PlanValue[],
  comp: Flattenable,
  what: string,
): Map<string, PlanValue> {
  const signature = nested.signature;
  const where = `${what}: computationCall('${nested.name}')`;
  if (args.length !== signature.length) {
    throw new LoomError(
      `${where} takes ${signature.length} arguments (${signature.map((p) => p.name).join(', ')}), got ${args.length}`,
    );
  }
  const out = new Map<string, PlanValue>();
  signature.forEach((leaf, k) => {
    const v = args[k];
    const at = `${where}: argument ${k} ('${leaf.name}')`;
    checkOwned(v, comp, at);
    if (leaf.role === 's') {
      if (isPlanArray(v) && !(v instanceof KernelArgument && v.role === 's'))
        throw new LoomError(`${at} is a scalar, but got ${describeValue(v)}`);
    } else {
      if (!isPlanArray(v) || v.shape === undefined)
        throw new LoomError(`${at} is an array, but got ${describeValue(v)}`);
      if (!sameType(typeOf(leaf), { dtype: v.dtype, shape: v.shape })) {
        throw new LoomError(
          `${at} is ${describeType(typeOf(leaf))}, but got ${describeValue(v)} of ${describeType({ dtype: v.dtype, shape: v.shape })}`,
        );
      }
      if (isOutputRole(leaf.role) && v instanceof KernelArgument && !isOutputRole(v.role))
        throw new LoomError(`${at} is written, but got '${v.name}', an input of the computation`);
      if (isOutputRole(leaf.role) && v instanceof PersistentArray && v.constant)
        throw new LoomError(`${at} is written, but got ${describeValue(v)}, which kernels only read`);
    }
    out.set(leaf.name, v);
  });
  return out;
}

function checkOwned(v: PlanValue, comp: Flattenable, where: string): void {
  if (v instanceof KernelArgument && v.owner !== comp)
    throw new LoomError(
      `${where}: '${v.name}' is a parameter of another computation; the connection target must belong to this computation`,
    );
  if (v === undefined || (typeof v !== 'number' && typeof v !== 'bigint' && !isPlanArray(v))) {
    // a number is the only untyped value a plan takes: the kernel's argument gives it its dtype
    throw new LoomError(
      `${where} is bound to ${typeof v === 'object' ? 'an object' : v === undefined ? 'nothing' : `the ${typeof v} ${JSON.stringify(v)}`}, which is not a plan value (a parameter, plan.tempArray(), plan.persistentArray() or a number)`,
    );
  }
}

/**
 * The kernel with the transformations of the parameters its arguments are bound to fused
 * in, every argument then bound to a leaf, a temporary, a persistent array or a number.
 */
function fuseTree(
  call: { kernel: LoopKernel; bindings: Map<string, PlanValue | Bound> },
  tree: TransformationTree,
  what: string,
): FusedCall {
  let kernel = call.kernel;
  const bindings = new Map<string, Bound>();
  const pending: [string, string][] = [];
  for (const [arg, v] of call.bindings) {
    if (v instanceof KernelArgument) pending.push([arg, v.name]);
    else if (v instanceof TempArray) bindings.set(arg, { kind: 'temporary', array: v });
    else if (v instanceof PersistentArray) bindings.set(arg, { kind: 'persistent', array: v });
    else if (typeof v === 'number' || typeof v === 'bigint') bindings.set(arg, { kind: 'number', value: v });
    else bindings.set(arg, v as Bound);
  }
  // breadth of the tree: each attach may add arguments bound to further nodes
  while (pending.length) {
    const [arg, node] = pending.shift()!;
    const n = tree.nodes.get(node)!;
    for (const edge of [n.input, n.output]) {
      if (!edge || !kernel.arg(arg)) continue;
      const access = accessesOf(kernel, arg);
      const isLoad = edge === n.input;
      if (isLoad ? access.reads.length === 0 : access.writes.length === 0) continue;
      const names = new Map<string, string>();
      const mapping: Record<string, string> = {};
      for (const [param, target] of edge.mapping) {
        if (!names.has(target)) names.set(target, freshName(kernel, target, bindings));
        mapping[param] = names.get(target)!;
      }
      kernel = attach(kernel, arg, edge.transformation, edge.connector, mapping);
      for (const [target, fresh] of names) {
        bindings.set(fresh, { kind: 'leaf', name: target });
        pending.push([fresh, target]);
      }
    }
    if (!kernel.arg(arg)) continue;
    // what is left of the argument must be a leaf, used in a direction the leaf allows
    const leaf = tree.leaf(node);
    if (leaf?.role === 's') {
      bindings.set(arg, { kind: 'leaf', name: node });
      continue;
    }
    const access = accessesOf(kernel, arg);
    const where = `${what}: kernel '${kernel.name}' ${access.writes.length ? 'writes' : 'reads'} '${node}'`;
    if (!leaf) throw new LoomError(`${where}, which transformations hide (it is not in the signature)`);
    if (access.reads.length && !isInputRole(leaf.role))
      throw new LoomError(
        `${what}: kernel '${kernel.name}' reads '${node}', whose input transformations hide it (it is an output in the signature)`,
      );
    if (access.writes.length && !isOutputRole(leaf.role))
      throw new LoomError(`${what}: kernel '${kernel.name}' writes '${node}', which is an input in the signature`);
    bindings.set(arg, { kind: 'leaf', name: node });
  }
  // intermediate nodes a transformation replaced are no longer arguments
  return { kernel, bindings: new Map([...bindings].filter(([arg]) => kernel.arg(arg))) };
}

function freshName(knl: LoopKernel, base: string, bound: ReadonlyMap<string, Bound>): string {
  const taken = new Set([
    ...knl.args.map((a) => a.name),
    ...knl.inames,
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
    ...knl.domains.flatMap((d) => d.params),
    ...bound.keys(),
  ]);
  let name = base;
  for (let k = 0; taken.has(name); k++) name = `${base}_${k}`;
  return name;
}
