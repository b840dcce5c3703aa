/**
 * The plan of a call: everything `run` and `prepareLaunch` work out from a call's
 * signature (dtypes, shapes, values) and never from the arrays themselves. Binding,
 * the bounds checks, code generation and compilation, the sizes of outputs and global
 * temporaries, the grids and each kernel's arguments: all are done once per signature
 * and kept, so that a loop of like calls pays, per call, for comparing its arguments with
 * the last call's, one size comparison per device array and the launches.
 *
 * The key is the signature as text (dtypes, shapes, values spelled out): two calls with
 * the same key bind alike, and nothing that could stand for two different things (an
 * object's identity, a rounded number) is ever part of it. The last call's signature is
 * also kept as values (`LastCall`), compared before any text is made.
 */
import { ownEntry } from '../names.ts';
import { InternalError } from '../errors.ts';
import { checkOptionKeys } from '../option-keys.ts';
import type { DType, HostArray } from '../dtypes.ts';
import { byteSize, hostArrayOf } from '../dtypes.ts';
import { LruCache } from '../lru.ts';
import { perObject } from '../memo.ts';
import type { DeviceKernel, DeviceParameter, GeneratedCode, HostArgument } from '../codegen/generated.ts';
import type { HostStep } from '../codegen/ast.ts';
import type { Expr } from '../expr/nodes.ts';
import type { KernelArg, LoopKernel } from '../kernel/model.ts';
import { requiredLength, stridesOf } from '../kernel/strides.ts';
import { bindArguments, byteLengthOf, typeBinding, type Binding, type RunArgument } from './arguments.ts';
import { checkAccessBounds, checkLayoutsFit, layoutDoesNotFit } from './bounds-check.ts';
import { NO_RUN_OPTIONS, RUN_OPTIONS, wantsBoundsChecks, type RunOptions } from './bounds-flags.ts';
import { compileFor } from './compile.ts';
import { DeviceArray, type Device, type DeviceBuffer, type LaunchArgument } from './device.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';
import { NO_VIEWS, type ViewLayout } from './views.ts';
import { checkGridLimits } from './limits.ts';
import { pieceStrides, type SepLayout } from './sep-pieces.ts';
import type { BoundsChecks } from '../codegen/access-guards.ts';
import { targetFacts } from '../codegen/target-facts.ts';

/** A caller's array as the plan has it: where its buffer goes, how large it is, what it must hold. */
export interface PlannedArray {
  readonly arg: KernelArg;
  readonly dtype: DType;
  readonly shape: readonly number[];
  /**
   * The bytes `run` allocates for a host array: those of the array passed, else of `shape` in
   * `dtype` (row-major), or what a padded layout reaches.
   */
  readonly byteLength: number;
  /** Its strides in elements, when a layout tag gives them (row-major and dense otherwise). */
  readonly strides?: readonly number[];
  /** Where its element 0 lies in its buffer, when the argument has an offset. */
  readonly offset?: number;
  /**
   * The elements a DeviceArray's buffer must hold for the argument's layout: more than
   * the element count when strides leave gaps (`checkLayoutsFit`).
   */
  readonly requiredElements: number;
  /** Where its buffer goes in the call's buffer list; a `sep` array's pieces take `sepSlots`. */
  readonly slot: number;
  readonly sep?: HostArgument['sep'] & SepLayout & { readonly slots: readonly number[] };
}

export interface PlannedTemporary {
  readonly slot: number;
  readonly byteLength: number;
  /** What it holds before the first launch (temporaryVariable's initializer), in its dtype. */
  readonly initializer?: HostArray;
}

/**
 * A buffer-list slot, a value fixed by the signature, or the value of an enclosing host
 * loop (set at each launch), for each parameter of a kernel.
 */
export type PlannedArgument =
  | LaunchArgument
  | { readonly kind: 'slot'; readonly slot: number }
  | { readonly kind: 'host-loop'; readonly iname: string; readonly dtype: DType };

export interface PlannedLaunch {
  readonly kernel: DeviceKernel;
  readonly args: readonly PlannedArgument[];
  readonly groupCount: readonly number[];
  readonly localSize: readonly number[];
  /** The arguments of the last call (`launchArguments`): the next one with the same buffers passes them again. */
  last?: readonly LaunchArgument[];
}

export interface CallPlan {
  readonly binding: Binding;
  readonly code: GeneratedCode;
  /** What the device compiled the code to (only ever handed back to that device's `launch`). */
  readonly compiled: unknown;
  readonly arrays: readonly PlannedArray[];
  /** Global temporaries (save slots, user-placed ones): allocated for the whole call; a read-only table with its values. */
  readonly temporaries: readonly PlannedTemporary[];
  /** The bounds-check flag buffer, when the code was compiled with checks. */
  readonly checks?: BoundsChecks & { readonly slot: number };
  /** How many buffers a call binds: the length of its buffer list. */
  readonly slots: number;
  /** The kernels in launch order, those with an empty grid left out. */
  readonly launches: readonly PlannedLaunch[];
  /** The launches and the host loops around them (host-loops.ts runs them); `launch` indexes `launches`. */
  readonly steps: readonly PlannedStep[];
  /** Whether `steps` has a host loop; without one, `launches` in order is the whole program. */
  readonly hasHostLoops: boolean;
}

export type PlannedStep =
  | { readonly kind: 'launch'; readonly launch: number }
  | {
      readonly kind: 'loop';
      readonly iname: string;
      readonly lower: Expr;
      readonly upper: Expr;
      readonly body: readonly PlannedStep[];
    };

/**
 * Per device and kernel (weakly), the plans for each signature (elementwise kernels see every
 * shape, so bounded), and the last call's signature argument by argument (`LastCall`).
 */
const plans = perObject((_: Device) =>
  perObject((_: LoopKernel): KernelPlans => ({ bySignature: new LruCache<string, CallPlan>(PLANS_PER_KERNEL) })),
);
const PLANS_PER_KERNEL = 64;

interface KernelPlans {
  readonly bySignature: LruCache<string, CallPlan>;
  last?: LastCall;
}

/**
 * The signature of the last call whose arguments were all DeviceArrays and numbers, kept as
 * values to compare with rather than as text: a loop of like calls finds its plan without
 * making and hashing a string. It holds no caller's object (a DeviceArray's dtype and a copy
 * of its shape), so it keeps no memory alive.
 */
interface LastCall {
  readonly checkBounds: boolean;
  /** Per kernel argument, in `knl.args` order: what the call passed, as its signature sees it. */
  readonly given: readonly SignaturePart[];
  /** How many arguments the call passed (all of them the kernel's). */
  readonly count: number;
  readonly plan: CallPlan;
}

/** Nothing, a number or bigint (compared with Object.is, so 0 is not -0), or a DeviceArray's dtype and shape. */
type SignaturePart = undefined | number | bigint | { readonly dtype: DType; readonly shape: readonly number[] };

/**
 * The plan for a call with `args`: the cached one when a call with the same signature
 * came before (no promise, no binding), otherwise made, which checks, binds and compiles.
 */
export function planCall(
  knl: LoopKernel,
  device: Device,
  args: Readonly<Record<string, RunArgument>>,
  options: RunOptions | undefined,
  caller: 'run' | 'prepareLaunch' = 'run',
  views: ReadonlyMap<string, ViewLayout> = NO_VIEWS,
): CallPlan | Promise<CallPlan> {
  // most calls pass no options: nothing to check
  if (options === undefined) options = NO_RUN_OPTIONS;
  else checkOptionKeys(caller, options, RUN_OPTIONS);
  const checkBounds = wantsBoundsChecks(device, options);
  const perKernel = plans(device)(knl);
  const last = perKernel.last;
  // a call with views is never the fast path's: their layouts are no part of `LastCall`
  if (last !== undefined && views.size === 0 && last.checkBounds === checkBounds && isLastCall(knl, args, last))
    return last.plan;
  const signature = callSignature(knl, args, checkBounds, views);
  const known = signature === undefined ? undefined : perKernel.bySignature.get(signature);
  if (known) {
    if (views.size === 0) perKernel.last = lastCall(knl, args, checkBounds, known) ?? perKernel.last;
    return known;
  }
  return makePlan(knl, device, args, checkBounds, views).then((plan) => {
    if (signature !== undefined) perKernel.bySignature.set(signature, plan);
    return plan;
  });
}

/**
 * Whether `args` has the signature of `last`: the same arguments, each the same number or
 * a DeviceArray of the same dtype and shape. Anything else (a host array, an argument
 * more or less) is for `callSignature` to describe.
 */
function isLastCall(knl: LoopKernel, args: Readonly<Record<string, RunArgument>>, last: LastCall): boolean {
  const params = knl.args;
  let found = 0;
  for (let k = 0; k < params.length; k++) {
    const v = ownEntry(args, params[k].name);
    const was = last.given[k];
    if (v === undefined) {
      if (was !== undefined) return false;
      continue;
    }
    found++;
    if (v instanceof DeviceArray) {
      if (typeof was !== 'object' || v.dtype !== was.dtype || !sameShape(v.shape, was.shape)) return false;
    } else if (!Object.is(v, was)) return false;
  }
  return found === last.count && Object.keys(args).length === found;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** `args`'s signature part by part, when a call of that plan had only DeviceArrays and numbers; otherwise undefined. */
function lastCall(
  knl: LoopKernel,
  args: Readonly<Record<string, RunArgument>>,
  checkBounds: boolean,
  plan: CallPlan,
): LastCall | undefined {
  const given: SignaturePart[] = [];
  let count = 0;
  for (const arg of knl.args) {
    const v = ownEntry(args, arg.name);
    if (v !== undefined) count++;
    if (v === undefined || typeof v === 'number' || typeof v === 'bigint') given.push(v);
    else if (v instanceof DeviceArray) given.push({ dtype: v.dtype, shape: [...v.shape] });
    else return undefined;
  }
  return { checkBounds, given, count, plan };
}

async function makePlan(
  knl: LoopKernel,
  device: Device,
  args: Readonly<Record<string, RunArgument>>,
  checkBounds: boolean,
  views: ReadonlyMap<string, ViewLayout>,
): Promise<CallPlan> {
  const bound = bindArguments(knl, args, views);
  checkAccessBounds(knl, bound.values, new Map(bound.arrays.map((a) => [a.arg.name, a.shape])));
  checkLayoutsFit(knl, bound);
  const { code, compiled } = await compileFor(knl, device, bound.dtypes, { checkBounds });
  const binding = typeBinding(bound, code);
  // the plan keeps no caller's data: a cached plan must not hold arrays alive
  const template: Binding = { ...binding, arrays: binding.arrays.map(({ given: _given, ...a }) => a) };

  const slotOf = new Map<string, number>();
  const slot = (name: string) => slotOf.get(name) ?? (slotOf.set(name, slotOf.size), slotOf.size - 1);
  const arrays = template.arrays.map((a, k): PlannedArray => {
    const layout = layoutOf(a.arg, a.shape, binding.values);
    return {
      arg: a.arg,
      dtype: a.dtype,
      shape: a.shape,
      // a host array's data (a view's whole buffer, which may be more than its shape); an
      // output nobody passed, what its layout reaches (a padded one more than its elements,
      // as loopy allocates it)
      byteLength:
        hostByteLength(binding.arrays[k].given) ??
        (layout.strides ? layout.requiredElements * byteSize(a.dtype) : byteLengthOf(a.dtype, a.shape)),
      ...layout,
      slot: slot(a.arg.name),
      ...(a.sep
        ? {
            sep: {
              ...a.sep,
              pieceStrides: pieceStrides(a.arg, a.shape, a.sep.axis, binding.values),
              slots: a.sep.names.map(slot),
            },
          }
        : {}),
    };
  });
  const size = (e: Parameters<typeof evaluateInt>[0], what: string) =>
    evaluateInt(e, valuesEnv(binding.values, what), what);
  const temporaries = code.host.temporaries.map(
    (t): PlannedTemporary => ({
      slot: slot(t.name),
      byteLength: byteLengthOf(
        t.dtype,
        t.shape.map((s) => size(s, `the shape of '${t.name}'`)),
      ),
      ...(t.initializer ? { initializer: hostArrayOf(t.dtype, t.initializer) } : {}),
    }),
  );
  const checks = code.host.boundsChecks
    ? { ...code.host.boundsChecks, slot: slot(code.host.boundsChecks.flags) }
    : undefined;

  const launches: PlannedLaunch[] = [];
  const launchOf = new Map<number, number>();
  for (const [index, kernel] of code.kernels.entries()) {
    const groupCount = kernel.grid.groupCount.map((g) => size(g, 'the grid size'));
    // a work-group size known only now (`l.0` over `0 <= i < n`), as loopy sets it at launch
    const localSize = kernel.grid.localSize.map((l) => size(l, 'the work-group size'));
    // an empty grid, or work-groups of no work-items (n = 0), runs nothing
    if (groupCount.some((g) => g <= 0) || localSize.some((l) => l <= 0)) continue;
    checkGridLimits(
      kernel.function,
      groupCount,
      localSize,
      device.limits,
      device.name,
      (l) => size(l, 'the size of a temporary'),
      targetFacts(device.target).heldInFloat,
    );
    const launchArgs = kernel.parameters.map(
      (p): PlannedArgument => Object.freeze(plannedArgument(p, binding.values, slot)),
    );
    launchOf.set(index, launches.length);
    launches.push({ kernel, args: launchArgs, groupCount, localSize });
  }
  const steps = (items: readonly HostStep[]): PlannedStep[] =>
    items.flatMap((h): PlannedStep[] => {
      if (h.kind === 'loop') return [{ ...h, body: steps(h.body) }];
      const launch = launchOf.get(h.kernel);
      return launch === undefined ? [] : [{ kind: 'launch', launch }];
    });
  const program = steps(code.host.program);
  const hasHostLoops = program.some((s) => s.kind === 'loop');
  return {
    binding: template,
    code,
    compiled,
    arrays,
    temporaries,
    ...(checks ? { checks } : {}),
    slots: slotOf.size,
    launches,
    steps: program,
    hasHostLoops,
  };
}

/** The bytes of a host array passed (all of a view's data); undefined for a DeviceArray or nothing. */
function hostByteLength(given: HostArray | DeviceArray | undefined): number | undefined {
  return given === undefined || given instanceof DeviceArray ? undefined : given.byteLength;
}

function plannedArgument(
  p: DeviceParameter,
  values: ReadonlyMap<string, number | bigint>,
  slot: (name: string) => number,
): PlannedArgument {
  if (p.kind === 'host-loop') return { kind: 'host-loop', iname: p.argument, dtype: p.dtype };
  if (p.kind === 'value') return { kind: 'value', dtype: p.dtype, value: values.get(p.argument)! };
  if (p.kind === 'local') {
    const what = `the size of local array '${p.name}'`;
    const length = evaluateInt(p.localLength!, valuesEnv(values, what), what);
    // at least one element: a work-group of no work-items reads none, and OpenCL wants some bytes
    return { kind: 'local', byteLength: Math.max(length, 1) * byteSize(p.dtype) };
  }
  return { kind: 'slot', slot: slot(p.name) };
}

/** An array's strides and the elements its layout reaches (its element count when row-major and dense). */
function layoutOf(
  arg: KernelArg,
  shape: readonly number[],
  values: ReadonlyMap<string, number | bigint>,
): Pick<PlannedArray, 'strides' | 'offset' | 'requiredElements'> {
  if (!arg.shape || (!arg.dimTags && !arg.offset) || arg.dimTags?.some((t) => t.kind === 'sep'))
    return { requiredElements: shape.reduce((x, y) => x * y, 1) };
  const what = `the layout of '${arg.name}'`;
  const env = valuesEnv(values, what);
  const strides = stridesOf(arg.shape, arg.dimTags).map((s) => evaluateInt(s, env, what));
  const reach = requiredLength(shape, strides);
  const offset = arg.offset ? evaluateInt(arg.offset, env, what) : 0;
  return { strides, offset, requiredElements: reach === 0 ? 0 : offset + reach };
}

/**
 * Whether `given`'s buffer holds what the layout reaches. The shape and dtype are part of
 * the signature; the buffer is not (a DeviceArray may be allocated larger than its shape).
 */
export function checkBufferFits(a: PlannedArray, given: DeviceArray): void {
  // counted as the plan counts: a complex array's parts (the kernel's storage view)
  const view = given.partsView();
  const held = Math.floor(view.buffer.byteLength / byteSize(view.dtype));
  if (held < a.requiredElements)
    throw layoutDoesNotFit(a.arg.name, a.strides ?? [], a.requiredElements, held, a.offset);
}

/**
 * The LaunchArguments of one launch of the plan, with the call's buffers in their slots:
 * frozen, and the very array of the last call when the buffers are the same, so that a
 * device can keep what it derives from them (`isImmutableArguments`).
 */
export function launchArguments(
  launch: PlannedLaunch,
  buffers: readonly (DeviceBuffer | undefined)[],
  loops?: ReadonlyMap<string, number>,
): readonly LaunchArgument[] {
  const last = launch.last;
  if (last && sameBuffers(launch, last, buffers, loops)) return last;
  const args = Object.freeze(
    launch.args.map(
      (a): LaunchArgument =>
        Object.freeze(
          a.kind === 'slot'
            ? { kind: 'buffer', buffer: buffers[a.slot]! }
            : a.kind === 'host-loop'
              ? { kind: 'value', dtype: a.dtype, value: loopValue(loops, a.iname) }
              : a,
        ),
    ),
  );
  launch.last = args;
  return args;
}

function loopValue(loops: ReadonlyMap<string, number> | undefined, iname: string): number {
  const v = loops?.get(iname);
  if (v === undefined) throw new InternalError(`a kernel inside the host loop '${iname}' was launched outside it`);
  return v;
}

function sameBuffers(
  launch: PlannedLaunch,
  last: readonly LaunchArgument[],
  buffers: readonly (DeviceBuffer | undefined)[],
  loops?: ReadonlyMap<string, number>,
): boolean {
  for (let k = 0; k < launch.args.length; k++) {
    const a = launch.args[k];
    if (a.kind === 'slot' && (last[k] as { buffer: DeviceBuffer }).buffer !== buffers[a.slot]) return false;
    if (a.kind === 'host-loop' && (last[k] as { value: number }).value !== loopValue(loops, a.iname)) return false;
  }
  return true;
}

/**
 * What binding depends on, as a string; undefined for arguments it cannot describe (then
 * no reuse). Walks the kernel's arguments in their order, so no sort is needed; a key the
 * kernel does not have leaves the counts unequal, and the slow path reports it.
 */
/** A DeviceArray's dtype and shape never change: its part of a signature is made once. */
const deviceArrayKey = perObject((v: DeviceArray) => `@${v.dtype}[${v.shape.join(',')}]`);

export function callSignature(
  knl: LoopKernel,
  args: Readonly<Record<string, RunArgument>>,
  checkBounds: boolean,
  views: ReadonlyMap<string, ViewLayout> = NO_VIEWS,
): string | undefined {
  let signature = checkBounds ? 'checked' : '';
  for (const [name, view] of views) signature += `;${name}@view(${view.offset};${view.strides.join(',')})`;
  let found = 0;
  for (const arg of knl.args) {
    const v = ownEntry(args, arg.name);
    if (v === undefined) continue;
    found++;
    const name = arg.name;
    if (typeof v === 'number') signature += `;${name}=n:${Object.is(v, -0) ? '-0' : v}`;
    else if (typeof v === 'bigint') signature += `;${name}=b:${v}`;
    else if (v instanceof DeviceArray) signature += `;${name}${deviceArrayKey(v)}`;
    else if (ArrayBuffer.isView(v)) signature += `;${name}:${v.constructor.name}[${(v as HostArray).length}]`;
    else if (typeof v === 'object' && v !== null && 'data' in v && 'shape' in v && ArrayBuffer.isView(v.data)) {
      signature += `;${name}:${v.data.constructor.name}[${v.data.length}](${v.shape.join(',')})`;
    } else return undefined;
  }
  return found === Object.keys(args).length ? signature : undefined;
}
