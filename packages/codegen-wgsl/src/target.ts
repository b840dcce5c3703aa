/**
 * `wgslTarget()`: the program AST as a WGSL module that reads like careful hand-written code:
 *
 *   struct Params {
 *     n: i32,
 *   }
 *
 *   @group(0) @binding(0) var<storage, read> a: array<f32>;
 *   @group(0) @binding(1) var<storage, read_write> out: array<f32>;
 *   @group(0) @binding(2) var<uniform> params: Params;
 *
 *   @compute @workgroup_size(1)
 *   fn loopy_kernel() {
 *     let n = params.n;
 *     for (var i: i32 = 0i; i <= -1i + n; i++) {
 *       out[i] = 2.0 * a[i];
 *     }
 *   }
 *
 * The module is: `enable f16;` where float16 is used, the uniform struct and the bindings
 * (`bindings.ts`, `arrays.ts`), local temporaries as `var<workgroup>`, helper functions, and
 * one entry point per kernel (`statements.ts`).
 */
import { atomicElementType, workgroupAtomics } from './workgroup-atomics.ts';
import {
  expr,
  isSubgroupFunction,
  LoomError,
  ownExpressions,
  someStmt,
  statementsOfKind,
  type DType,
  type Expr,
  type KernelFunction,
  type ProgramAst,
  type Target,
  type TargetOutput,
  checkOptionKeys,
  constantLength,
  constantLocalSize,
  optionKeys,
} from '@loom/core';
import { WorkgroupRows } from './array-rows.ts';
import { ArrayAccess } from './arrays.ts';
import { layoutModule, type ModuleLayout } from './bindings.ts';
import { helperDefinition, helperDependencies, helperName, type HelperKind } from './helpers.ts';
import { checkWorkgroupSize, checkWorkgroupStorage, DEFAULT_LIMITS, type WgslLimits } from './limits.ts';
import { NameTable } from './names.ts';
import { structDeclarations, structNames } from './structs.ts';
import { vectorLanesOf } from './declared-units.ts';
import { printDeviceFunction, printKernel } from './statements.ts';
import { UserFunctions, WGSL_FUNCTION_DIALECTS } from './user-functions.ts';
import { computeType, unsupportedDType, type WgslScalar } from './types.ts';

/** The options wgslTarget reads; any other key is an error. */
const WGSL_TARGET_OPTIONS = optionKeys<WgslTargetOptions>()(['limits', 'shaderF16', 'subgroups']);

export interface WgslTargetOptions {
  /** Whether float16 may be used: the device has the 'shader-f16' feature (default true: code only). */
  readonly shaderF16?: boolean;
  /** The limits the code must respect (default: those every WebGPU device has). */
  readonly limits?: Partial<WgslLimits>;
  /**
   * Whether subgroup functions may be used (the device has the 'subgroups' feature), and the
   * subgroup sizes its adapter reports (`subgroupMinSize`, `subgroupMaxSize`); `false` where it
   * has none. Default `{ min: 4, max: 128 }`, WebGPU's bounds: code only.
   */
  readonly subgroups?: false | { readonly min: number; readonly max: number };
}

export interface WgslModuleOptions extends WgslTargetOptions {
  /** Generate entry points that recover their group ids from a folded grid (`limits.ts`). */
  readonly foldedGrid?: boolean;
}

/** A generated module: the code, and where its arguments live (for the device). */
export interface WgslModule {
  /** The WGSL source. */
  readonly code: string;
  /** Where each kernel parameter is bound: storage bindings and the uniform struct. */
  readonly layout: ModuleLayout;
  /** Each kernel's entry point (its name, unless WGSL reserves it). */
  readonly entryPoints: ReadonlyMap<string, string>;
  /**
   * Per kernel whose work-group size is known only at launch: per axis, the pipeline-overridable
   * constant (`override`) its `@workgroup_size` reads, or undefined for a constant axis. The
   * device sets them when it makes the pipeline for a launch's sizes.
   */
  readonly localSizeOverrides: ReadonlyMap<string, readonly (string | undefined)[]>;
  /**
   * Per kernel with local arrays sized at launch (`KernelFunction.localArguments`): the
   * `override` constant of each one's element count, in order. The device sets them, with the
   * work-group size's, when it makes the pipeline for a launch.
   */
  readonly localArrayOverrides: ReadonlyMap<string, readonly string[]>;
}

/** What the WebGPU device needs besides the code: where every argument is bound, and the folded-grid variant. */
export interface WgslExtra {
  /** The module as generated: its binding layout and entry points. */
  readonly module: WgslModule;
  /**
   * The same program for a folded grid (`limits.ts`), which a launch needs when its grid has
   * more work-groups along an axis than the device dispatches: made the first time it is asked for.
   */
  folded(): WgslModule;
}

/**
 * Why the WGSL target runs no tensor tile: WebGPU offers Loom no subgroup matrices, and a tile of
 * bfloat16 could not be one anyway (WGSL has no bfloat16 type: Loom computes it in f32).
 */
const MATRIX_REFUSAL =
  'it has no matrix instructions (WebGPU offers Loom no subgroup matrices; and WGSL has no bfloat16 type, so a bfloat16 tile could never be one)';

export function wgslTarget(options: WgslTargetOptions = {}): Target<WgslExtra> {
  checkOptionKeys('wgslTarget', options, WGSL_TARGET_OPTIONS);
  const shaderF16 = options.shaderF16 ?? true;
  const subgroups = options.subgroups ?? { min: 4, max: 128 };
  return {
    name: 'wgsl',
    // a loop over a `vec` iname of 2 or 4 lanes is one vector statement (`array<vec4<f32>>`, bindings.ts)
    vectorTypes: true,
    vectorLanes: [2, 4],
    // a local array sized at launch is an array<T, C> whose count C is an override constant, set
    // by the pipeline the device makes for the launch; WGSL has no private array of such a size
    runtimeSizedArrays: ['local'],
    localArraysAsArguments: true,
    // the narrow integers are packed in words, float16 is not held as vectors
    vectorDTypes: ['float32', 'int32', 'uint32'],
    // a storage is bound whole, as `array<vec4<f32>>`: a partial last vector could not be bound
    wholeVectorStorage: true,
    // Tint and Naga load a vec4 at once only from a vector statement, not from four component reads
    preferVectorStatements: true,
    // measured on the H200 through Dawn and NVIDIA's Vulkan driver, the GPU warmed up: FFT passes of
    // radix 16 (about 70 live values) ran 5% faster than of radix 8 for 2^10 points, 10-18% for 2^20
    // and more, in every process (the 4.7x slower runs of the ninth session were the GPU's idle
    // clocks); radix 27 and 25 (3^k, 5^k), beyond this, were not measured there
    livePrivateValues: 80,
    // a staged convolution's taps as loops ran 1.25x slower through Dawn and NVIDIA's Vulkan driver
    // than unrolled (bench/auto-schedule.ts, H200), where NVIDIA's OpenCL and CUDA ran them faster as loops
    unrollsConstantLoops: false,
    functionDialects: WGSL_FUNCTION_DIALECTS,
    atomicDTypes: ['int32', 'uint32', 'float32'],
    // WGSL's atomic built-ins return the old value, on atomic<i32> and atomic<u32> (statements.ts)
    atomicFetches: { dtypes: ['int32', 'uint32'] },
    globalFences: {
      refused:
        "WGSL orders memory only within a work-group (storageBarrier): nothing orders one work-item's writes before what other work-groups read in the same dispatch",
    },
    // what WGSL promises less than IEEE 754 (the README's semantics): compilers may assume floats
    // finite and ignore a zero's sign, float32 subnormals may be flushed (and so bfloat16's, computed
    // in f32: NVIDIA's Vulkan driver flushes them), `/`, math functions and fma have WGSL's accuracy
    floatSpecials: false,
    signedZeros: false,
    flushesSubnormals: ['float32', 'bfloat16'],
    relaxedFloatAccuracy: true,
    // bfloat16 computed in f32: its temporaries are f32s (types.ts)
    heldInFloat: ['bfloat16'],
    // texture_2d/texture_3d read with textureLoad (bindings.ts); the device fills them at launch
    images: 'native',
    // a function reaches the arrays by their module-scope bindings (it can take no storage
    // pointer) and takes the work-item ids as values; no barrier, whose uniformity WGSL checks per function
    deviceFunctions: { arrays: 'bindings', workItemIds: 'passed', barriers: false, privateArrays: false },
    // a struct in a storage buffer is laid out by WGSL's own rules, which hold only 32-bit scalars and f16
    structLayoutRules: 'wgsl-storage',
    // subgroupAdd, subgroupShuffle, ... are WGSL's own built-ins (`enable subgroups;`) on 32-bit values
    subgroups:
      subgroups === false
        ? { refused: "this WebGPU adapter lacks the 'subgroups' feature" }
        : { dtypes: ['int32', 'uint32', 'float32'], size: subgroups },
    // tensor tiles (tensorize): refused before any code is written (core's matrix-tiles.ts)
    matrixInstructions: { refused: MATRIX_REFUSAL },
    generate: (program) => spellWgsl(program, options),
    unsupportedDType: (dtype) => unsupportedDType(dtype, shaderF16),
  };
}

function spellWgsl(program: ProgramAst, options: WgslTargetOptions): TargetOutput<WgslExtra> {
  const module = generateWgsl(program, options);
  let folded: WgslModule | undefined;
  return {
    code: module.code,
    entryPoints: program.kernels.map((k) => module.entryPoints.get(k.name)!),
    extra: { module, folded: () => (folded ??= generateWgsl(program, { ...options, foldedGrid: true })) },
  };
}

export function generateWgsl(program: ProgramAst, options: WgslModuleOptions = {}): WgslModule {
  const limits: WgslLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const shaderF16 = options.shaderF16 ?? true;
  const foldedGrid = options.foldedGrid ?? false;
  for (const k of program.kernels) checkKernel(k, shaderF16, limits);

  const names = new NameTable();
  const structs = structNames(program, names);
  const layout = layoutModule(program, names, {
    maxStorageBuffers: limits.maxStorageBuffersPerShaderStage,
    foldedGrid,
    structs,
  });
  const arrays = new ArrayAccess(layout, names);
  const helpers = new Map<string, string>();
  const helper = (kind: HelperKind, t: WgslScalar): string => {
    const name = helperName(kind, t);
    if (!helpers.has(name)) {
      helpers.set(name, helperDefinition(kind, t));
      for (const [k, u] of helperDependencies(kind, t)) helper(k, u);
    }
    return name;
  };
  const user = new UserFunctions(program.functions ?? new Map(), names);
  const userFunction = (name: string, argTypes: readonly DType[]) => user.call(name, argTypes);
  // workgroup arrays in rows where that spares a robustness clamp per access (array-rows.ts)
  const rows = WorkgroupRows.of(program);
  // a local temporary used by several kernels (saved and reloaded across a global barrier) is declared once
  const workgroupVars = [...new Set(program.kernels.flatMap((k) => workgroupDeclarations(k, names, limits, rows)))];
  const entryNames = new Map(program.kernels.map((k) => [k.name, names.entryPoint(k.name)]));
  const localSizeOverrides = new Map(
    program.kernels
      .filter((k) => !constantLocalSize(k.localSize))
      .map((k) => {
        const entry = entryNames.get(k.name)!;
        return [
          k.name,
          k.localSize.map((s, axis) => (s.kind === 'int' ? undefined : names.fresh(`${entry}_local_size_${axis}`))),
        ];
      }),
  );
  // local arrays sized at launch: an array<T, C> whose element count C is an override constant
  const localArrayOverrides = new Map(
    program.kernels
      .filter((k) => k.localArguments?.length)
      .map((k) => {
        const entry = entryNames.get(k.name)!;
        return [k.name, k.localArguments!.map((l) => names.fresh(`${entry}_${l.name}_length`))] as const;
      }),
  );
  const localArrayVars = program.kernels.flatMap((k) =>
    (k.localArguments ?? []).map((l, i) => {
      const count = localArrayOverrides.get(k.name)![i];
      return `var<workgroup> ${names.of(l.name)}: array<${computeType(l.dtype)}, ${count}>;`;
    }),
  );
  const overrides = [
    ...[...localSizeOverrides.values()].flatMap((axes) =>
      axes.flatMap((name) => (name === undefined ? [] : [`override ${name}: u32;`])),
    ),
    ...[...localArrayOverrides.values()].flat().map((name) => `override ${name}: u32;`),
  ];
  const fusedMultiplyAdd = program.fusedMultiplyAdd ?? false;
  const context = { names, layout, arrays, helper, userFunction, foldedGrid, fusedMultiplyAdd, rows };
  // the callees' functions before the entry points (WGSL needs no order; a reader does)
  const deviceFunctions = (program.deviceFunctions ?? []).map((f) => printDeviceFunction(f, context));
  const entryPoints = program.kernels.map((k) =>
    printKernel(k, entryNames.get(k.name)!, { ...context, localSizeOverrides: localSizeOverrides.get(k.name) }),
  );

  const sections: string[][] = [];
  const all = [...program.kernels, ...(program.deviceFunctions ?? [])];
  const enables = [
    ...(all.some(usesFloat16) ? ['enable f16;'] : []),
    // core checked that every work-item of a subgroup reaches each call (codegen/subgroup-uses.ts); WGSL's own
    // analysis takes any guard on an id for a divergent one
    ...(all.some(usesSubgroups) ? ['enable subgroups;', 'diagnostic(off, subgroup_uniformity);'] : []),
  ];
  if (enables.length) sections.push(enables);
  sections.push(structDeclarations(program, structs));
  sections.push(arrays.declarations());
  // work-group sizes and local arrays known only at launch: set when the device makes a pipeline for the launch
  if (overrides.length) sections.push(overrides);
  if (workgroupVars.length || localArrayVars.length) sections.push([...workgroupVars, ...localArrayVars]);
  const functions = [...helpers.values(), ...user.preambles, ...arrays.accessorFunctions()];
  if (functions.length) sections.push(functions.join('\n\n').split('\n'));
  sections.push([...deviceFunctions, ...entryPoints].join('\n\n').split('\n'));
  const code = `${sections
    .filter((s) => s.length)
    .map((s) => s.join('\n'))
    .join('\n\n')}\n`;
  return { code, layout, entryPoints: entryNames, localSizeOverrides, localArrayOverrides };
}

function checkKernel(k: KernelFunction, shaderF16: boolean, limits: WgslLimits): void {
  for (const [name, dtype] of k.types) {
    // float64 only as intermediate values (see types.ts); as a name's type it is data
    const why = unsupportedDType(dtype, shaderF16);
    if (why) throw new LoomError(`kernel '${k.name}': '${name}' has dtype ${dtype}: ${why}`);
  }
  // a float16 value with no float16 name (`float32(float16(x))`) needs f16 as much
  if (!shaderF16 && usesFloat16(k))
    throw new LoomError(`kernel '${k.name}' computes in float16: ${unsupportedDType('float16', false)}`);
  // a size known only at launch is checked there, against the device's limits (core's checkGridLimits)
  const constant = constantLocalSize(k.localSize);
  if (constant) checkWorkgroupSize(k.name, constant, limits);
}

/**
 * Whether the kernel has an f16 anywhere, which WGSL accepts only after `enable f16;`: a name
 * of dtype float16, or a value made float16 without one (a cast, `float16(0.1)`, or a user
 * function returning float16), whose literals are f16 too.
 */
function usesFloat16(k: Pick<KernelFunction, 'types' | 'body'>): boolean {
  if ([...k.types.values()].includes('float16')) return true;
  const isHalf = (e: Expr) => (e.kind === 'cast' || e.kind === 'call') && e.dtype === 'float16';
  return someStmt(k.body, (s) => ownExpressions(s).some((e) => expr.someExpr(e, isHalf)));
}

/** Whether the kernel calls a subgroup function, which WGSL accepts only after `enable subgroups;`. */
function usesSubgroups(k: Pick<KernelFunction, 'body'>): boolean {
  const isSubgroup = (e: Expr) => e.kind === 'call' && isSubgroupFunction(e.fn);
  return someStmt(k.body, (s) => ownExpressions(s).some((e) => expr.someExpr(e, isSubgroup)));
}

/** `var<workgroup>` declarations of a kernel's local temporaries (module scope in WGSL), arrays in `rows` as rows. */
function workgroupDeclarations(k: KernelFunction, names: NameTable, limits: WgslLimits, rows: WorkgroupRows): string[] {
  const locals = statementsOfKind(k.body, 'declare').filter((d) => d.addressSpace === 'local');
  const atomics = workgroupAtomics(k);
  let bytes = 0;
  const lines = locals.map((d) => {
    const atomic = atomics.get(d.name);
    const t = atomic ? atomicElementType(atomic) : computeType(d.dtype as DType);
    const length = constantLength(d, 'WGSL');
    bytes += (length ?? 1) * (t === 'f16' ? 2 : 4);
    const lanes = vectorLanesOf(d, atomics);
    if (lanes && length !== undefined)
      return `var<workgroup> ${names.of(d.name)}: ${rows.arrayType(d.name, `vec${lanes}<${t}>`, length / lanes)};`;
    return `var<workgroup> ${names.of(d.name)}: ${length === undefined ? t : rows.arrayType(d.name, t, length)};`;
  });
  checkWorkgroupStorage(k.name, bytes, locals.map((d) => d.name).join(', '), limits);
  return lines;
}
