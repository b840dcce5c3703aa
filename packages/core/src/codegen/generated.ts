/**
 * What `generateCode` returns: not only the code, but everything code generation knew
 * when it wrote it, so that nobody downstream works it out again. Per device kernel: its
 * name in the code, its parameters (which caller argument each one takes, in which dtype,
 * and for a `sep` axis which of the separate arrays), its grid. For the host: the caller's
 * arguments with every dtype known (outputs' inferred ones included), the global
 * temporaries to allocate for a call, the bounds-check flag buffer. And the target's own
 * facts (`extra`), for its device.
 *
 * `run` binds the caller's data to this, allocates, and launches the kernels in order;
 * a device compiles `code` with the help of `extra`.
 */
import type { DType } from '../dtypes.ts';
import type { Expr } from '../expr/nodes.ts';
import type { KernelArg } from '../kernel/model.ts';
import type { BoundsChecks } from './access-guards.ts';
import type { HostStep, KernelFunction, ProgramAst } from './ast.ts';
import { commented, printHostProgram } from './host-code.ts';
import { sepAxisOf, separateName } from '../preprocess/separate-arrays.ts';
import type { Target, TargetOutput } from './target.ts';

/** What `generateCode` returns: the device code, its kernels and grid sizes, and the host steps that launch them. */
export interface GeneratedCode<Extra = unknown> {
  /** The target's name: 'opencl', 'wgsl', 'js'. */
  readonly target: string;
  /** The device code, as the target printed it. */
  readonly code: string;
  /** The device kernels, in launch order (one unless the kernel has global barriers). */
  readonly kernels: readonly DeviceKernel[];
  /** What the host does around the launches. */
  readonly host: HostSteps;
  /** The target's own facts about the code (WGSL: its binding layout; JavaScript: its functions' layouts). */
  readonly extra: Extra;
  /** The target-independent program the code was printed from. */
  readonly program: ProgramAst;
  /** What the host runs, as loopy's host program: the host loops and the launches (host-code.ts). */
  readonly hostCode: string;
  /** The code: printing the result prints the code (and, where the host runs loops, the host program as comments after it). */
  toString(): string;
}

/** One device kernel of generated code: its name, parameters and launch grid. */
export interface DeviceKernel {
  /** Loom's name for it: the kernel's, or `name_0`, `name_1`... after global barriers. */
  readonly name: string;
  /** Its name in the code (the target's spelling of `name`). */
  readonly entryPoint: string;
  /** Its declaration, as a header holds it, where the target's language has them (`TargetOutput.declarations`). */
  readonly declaration?: string;
  /** In the order the kernel takes them. */
  readonly parameters: readonly DeviceParameter[];
  /** The launch grid. */
  readonly grid: {
    /** Work-groups per axis, as expressions in the value arguments. */
    readonly groupCount: readonly Expr[];
    /** Work-items per work-group, per axis: integer literals, or expressions in the value arguments. */
    readonly localSize: readonly Expr[];
  };
  /** The kernel as the program AST has it. */
  readonly function: KernelFunction;
}

/**
 * What the host passes for one kernel parameter:
 *   `array`        the caller's array `argument` (with `sepIndex`: its slice at that index of the sep axis)
 *   `value`        the value argument `argument`
 *   `temporary`    the global temporary `argument`, allocated for the call (`HostSteps.temporaries`)
 *   `bounds-flags` the bounds-check flag buffer (`HostSteps.boundsChecks`)
 *   `host-loop`    the value of the enclosing host loop over the iname `argument` (`HostSteps.program`)
 *   `local`        local memory of `localLength` elements per work-group, sized at launch (OpenCL's `__local T *`)
 */
export interface DeviceParameter {
  /** The name the code gives it (`a_s1` for slice 1 of a sep array `a`). */
  readonly name: string;
  /** What it is bound to: an argument, a global temporary or a host loop's iname (see `kind`). */
  readonly argument: string;
  /** Its element dtype. */
  readonly dtype: DType;
  /** What the host passes (see above). */
  readonly kind: 'array' | 'value' | 'temporary' | 'bounds-flags' | 'host-loop' | 'local';
  /** A `local` parameter's elements, in the value arguments (`KernelFunction.localArguments`). */
  readonly localLength?: Expr;
  /** An array with a `sep` axis: which of its separate arrays. */
  readonly sepIndex?: number;
  /** Arrays: the kernel writes it. */
  readonly written: boolean;
  /** An array the device binds as an image of this shape (`KernelParam.image`; `imageExtents` evaluates it). */
  readonly image?: { readonly shape: readonly Expr[] };
}

/** The host side of generated code: arguments, global temporaries and the launches in order. */
export interface HostSteps {
  /** The kernel's arguments as the caller passes them, in order, each with its dtype. */
  readonly arguments: readonly HostArgument[];
  /** Global temporaries (save slots, user-placed ones): allocated before the first launch, freed after the last. */
  readonly temporaries: readonly HostTemporary[];
  /** With bounds checking, where an access needed a guard: the flag buffer, zeroed before and read after. */
  readonly boundsChecks?: BoundsChecks;
  /** The launches (indices into `kernels`) and the host loops around them, in order. */
  readonly program: readonly HostStep[];
}

/** An argument as the caller passes it to the generated code. */
export interface HostArgument {
  /** The argument's name. */
  readonly name: string;
  /** Given, or inferred from what the kernel assigns (outputs nobody passed); a complex array's part dtype. */
  readonly dtype: DType;
  /** A complex array: its dtype, stored as `dtype` parts with a trailing axis of 2 (preprocess/lower-complex.ts). */
  readonly complex?: DType;
  /** An array or a scalar value. */
  readonly kind: 'array' | 'value';
  /** A `sep` axis: the caller's array is split along `axis` into `length` device arrays, called `names`. */
  readonly sep?: { readonly axis: number; readonly length: number; readonly names: readonly string[] };
}

/** A global temporary the host allocates before the first launch and frees after the last. */
export interface HostTemporary {
  /** The temporary's name. */
  readonly name: string;
  /** Its element dtype. */
  readonly dtype: DType;
  /** In the value arguments. */
  readonly shape: readonly Expr[];
  /** Its values, row-major, written into it before the first launch (a read-only table). */
  readonly initializer?: readonly number[];
}

/** The generated code of `program`, whose caller-facing arguments are `hostArguments`, as `target` printed it. */
export function describeProgram<Extra>(
  target: string,
  program: ProgramAst,
  printed: TargetOutput<Extra>,
  hostArguments: readonly HostArgument[],
): GeneratedCode<Extra> {
  // a separate array's name stands for a slice of the caller's array
  const slices = new Map<string, { argument: string; sepIndex: number }>();
  for (const a of hostArguments) a.sep?.names.forEach((name, k) => slices.set(name, { argument: a.name, sepIndex: k }));
  const temporaries = new Map<string, HostTemporary>();
  const flags = program.boundsChecks?.flags;
  const kernels = program.kernels.map((fn, index): DeviceKernel => {
    const parameters = fn.params.map((p): DeviceParameter => {
      const common = { name: p.name, argument: p.name, dtype: p.dtype, written: p.written };
      if (p.name === flags) return { ...common, kind: 'bounds-flags' };
      if (p.temporaryShape) {
        if (!temporaries.has(p.name)) {
          temporaries.set(p.name, {
            name: p.name,
            dtype: p.dtype,
            shape: p.temporaryShape,
            ...(p.temporaryInitializer ? { initializer: p.temporaryInitializer } : {}),
          });
        }
        return { ...common, kind: 'temporary' };
      }
      if (p.hostLoop) return { ...common, kind: 'host-loop' };
      if (p.kind === 'value') return { ...common, kind: 'value' };
      const slice = slices.get(p.name);
      const array = p.image ? { ...common, image: p.image } : common;
      return slice ? { ...array, kind: 'array', ...slice } : { ...array, kind: 'array' };
    });
    // after the parameters, as the target prints them: local arrays sized at launch
    for (const l of fn.localArguments ?? [])
      parameters.push({
        name: l.name,
        argument: l.name,
        dtype: l.dtype,
        written: true,
        kind: 'local',
        localLength: l.length,
      });
    return {
      name: fn.name,
      entryPoint: printed.entryPoints[index],
      ...(printed.declarations ? { declaration: printed.declarations[index] } : {}),
      parameters,
      grid: { groupCount: fn.groupCount, localSize: fn.localSize },
      function: fn,
    };
  });
  const steps = program.host ?? kernels.map((_, kernel): HostStep => ({ kind: 'launch', kernel }));
  const common = { arguments: hostArguments, temporaries: [...temporaries.values()], program: steps };
  const host: HostSteps = program.boundsChecks ? { ...common, boundsChecks: program.boundsChecks } : common;
  const code = printed.code;
  const hostCode = printHostProgram(kernels, steps);
  const shown = steps.some((h) => h.kind === 'loop') ? `${code}\n${commented(hostCode)}` : code;
  return { target, code, kernels, host, extra: printed.extra, program, hostCode, toString: () => shown };
}

/**
 * The generated code of a program AST built by hand (tests, tools): its arguments are the
 * kernels' parameters, with no `sep` axes (those are a kernel's, and split before the AST).
 */
export function programCode<Extra>(program: ProgramAst, target: Target<Extra>): GeneratedCode<Extra> {
  const args = new Map<string, HostArgument>();
  for (const p of program.kernels.flatMap((k) => k.params)) {
    if (p.temporaryShape || p.hostLoop || p.name === program.boundsChecks?.flags || args.has(p.name)) continue;
    args.set(p.name, { name: p.name, dtype: p.dtype, kind: p.kind === 'value' ? 'value' : 'array' });
  }
  return describeProgram(target.name, program, target.generate(program), [...args.values()]);
}

/**
 * A kernel argument as the caller passes it (typed; a complex one as its parts; before its
 * `sep` axis, if any, was split off). `typed` is its declared or inferred dtype.
 */
export function hostArgument(arg: KernelArg, typed?: DType): HostArgument {
  const common = {
    name: arg.name,
    dtype: arg.dtype!,
    kind: arg.kind === 'value' ? ('value' as const) : ('array' as const),
    ...(typed !== undefined && typed !== arg.dtype ? { complex: typed } : {}),
  };
  const sep = sepAxisOf(arg);
  if (!sep) return common;
  return { ...common, sep: { ...sep, names: Array.from({ length: sep.length }, (_, k) => separateName(arg.name, k)) } };
}
