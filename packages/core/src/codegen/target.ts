/**
 * A target spells the program AST in one language. What it returns besides the code is
 * what its device needs to run that code and would otherwise have to work out again
 * (WGSL's binding layout, the JavaScript functions' layouts): `Extra`, typed per target,
 * reaches the device through `GeneratedCode<Extra>` (generated.ts).
 */
import type { StructLayoutRules } from '../structs/layout.ts';
import type { DType } from '../dtypes.ts';
import type { FunctionDialect } from '../functions/user-functions.ts';
import type { ProgramAst } from './ast.ts';

/**
 * A code generation target: spells the program AST in one language (OpenCL C, WGSL, JavaScript) and returns
 * with it what its device needs (`Extra`).
 */
export interface Target<Extra = unknown> {
  /**
   * 'opencl', 'wgsl', 'js': for messages and display only. What differs between targets is a
   * fact the target states below, never a comparison of names.
   */
  readonly name: string;
  /** Device source code for the program, and what the device needs to know about it. */
  generate(program: ProgramAst): TargetOutput<Extra>;
  /**
   * Whether loops over `vec` inames become vector code (OpenCL's `float4`); a target
   * without vector types gets them unrolled, lane by lane (codegen/vectorize.ts).
   */
  readonly vectorTypes?: boolean;
  /**
   * The lane counts of the target's vector types (default all of `VECTOR_LANES`, OpenCL's):
   * a `vec` loop of another length is unrolled. WGSL's are 2 and 4 (a `vec3` has the
   * stride of a `vec4` in a storage array).
   */
  readonly vectorLanes?: readonly number[];
  /** Why a dtype cannot be used here (float64, float16, int64...), or undefined when it can. */
  unsupportedDType?(dtype: DType): string | undefined;
  /**
   * The dtypes its vector types hold in an array (default: every dtype but bool and float16, as
   * OpenCL C's `float4`, `int4`, ...). WGSL holds only the 32-bit ones (`array<vec4<f32>>`).
   */
  readonly vectorDTypes?: readonly DType[];
  /**
   * Whether an array of vectors is bound whole, as vectors (WGSL's `array<vec4<f32>>`), so that
   * its storage must hold whole vectors; default false (OpenCL reads a `float4 *` anywhere).
   */
  readonly wholeVectorStorage?: boolean;
  /**
   * Whether vector code is best written as whole-vector statements (a `vec` loop) rather than
   * lane by lane (components, OpenCL's `.s2`): WGSL's compilers load a vector at once only from a
   * vector statement. Default false.
   */
  readonly preferVectorStatements?: boolean;
  /**
   * How many 32-bit values a work-item's straight-line code may keep live before the target's
   * compilers make it much slower (spilling, or scheduling it poorly); undefined where they
   * manage as many as the hardware has registers. A sizing hint for unrolled code: `fft` keeps
   * its butterflies within it (WGSL states 80: radix 16, about 70 live values, measured faster
   * than radix 8 through Dawn on the H200; larger butterflies were not measured there), and
   * autoSchedule's cost model slows a candidate whose work-items keep more.
   */
  readonly livePrivateValues?: number;
  /**
   * Whether its compilers unroll a short loop of constant trip count themselves where that pays
   * (LLVM's, NVIDIA's for OpenCL C and CUDA); where they do not, Loom unrolls such loops where it
   * knows they pay (`autoSchedule`'s convolution taps). Default true. On the H200, NVIDIA's
   * compilers ran a staged convolution's 25 taps as loops 1.1-1.5x faster than unrolled by Loom;
   * through Dawn's WGSL the loops ran 1.25x slower.
   */
  readonly unrollsConstantLoops?: boolean;
  /**
   * Whether the work-items of a group run one after another (the CPU device's JavaScript, a C
   * loop nest) rather than side by side: nothing is gained by coalescing memory accesses, and no
   * two work-items ever run in lockstep. Default false.
   */
  readonly sequentialWorkItems?: boolean;
  /**
   * Work-items that run in lockstep (a warp, a subgroup): a size to make work-groups a multiple
   * of. Default 32 (NVIDIA's warp, a multiple of most others' subgroups), 1 where work-items run
   * one after another.
   */
  readonly subgroupSize?: number;
  /**
   * Whether kernels here may call subgroup functions (`subgroupAdd`, `subgroupShuffle`, ...:
   * expr/subgroup-functions.ts), on which dtypes, and how wide a subgroup is; or why not
   * (`{ refused }`, said in a LoomError naming the function before any code is built). A
   * device's target states what the device in hand has (OpenCL's `cl_khr_subgroups`, WebGPU's
   * `subgroups` feature). Default refused: no subgroup operations (and where work-items run one
   * after another, none can be).
   */
  readonly subgroups?: SubgroupSupport;
  /**
   * The matrix instructions (tensor cores) that a tensor tile (`tensorize`) becomes here: the
   * tile shapes and dtypes they multiply, and how many lanes run one together; or why there are
   * none (`{ refused }`, said in a LoomError naming the instruction before any code is built).
   * Default refused.
   */
  readonly matrixInstructions?: MatrixSupport;
  /**
   * Whether the target can ask its compiler for a number of work-groups per compute unit (the
   * kernel option `minGroupsPerComputeUnit`: CUDA's `__launch_bounds__`). Default false: a kernel
   * that asks is refused.
   */
  readonly occupancyHints?: boolean;
  /**
   * Whether the target issues asynchronous copies into local memory (`asyncCopies`, an `{async}`
   * instruction: CUDA's `cp.async`), each waited for at the work-item's next barrier. Default: only
   * where work-items run one after another (a copy completed at once is complete by the barrier);
   * elsewhere a kernel with one is refused.
   */
  readonly asyncCopies?: boolean;
  /**
   * Whether the target moves a tile of asynchronous copies as one bulk transfer (`bulkCopies`, a
   * `{bulk}` instruction: CUDA's `cp.async.bulk.tensor` on sm_90). Default: only where work-items
   * run one after another (the copies completed at once); elsewhere a kernel with one is refused.
   */
  readonly bulkCopies?: boolean;
  /**
   * Which of a user function's implementations (`defineFunction`'s keys) this target reads,
   * most specific first: OpenCL's own code, say, before the C code it shares with CUDA and C.
   * Default none: a call of a user function is then an error.
   */
  readonly functionDialects?: readonly FunctionDialect[];
  /**
   * The dtypes an `{atomic}` update may have here (default none: an atomic instruction is an
   * error before any code is written).
   */
  readonly atomicDTypes?: readonly DType[];
  /**
   * Whether it has atomic fetches, read-modify-writes that return the element's old value
   * (`old = atomicAdd(counter[0], 1)`, expr/atomic-functions.ts), on elements of global and local
   * arrays, and of which dtypes; or why not. Default refused: a kernel with one is refused
   * before code is generated.
   */
  readonly atomicFetches?: AtomicFetchSupport;
  /**
   * Whether it has a device-wide memory fence (`... gfence`: CUDA's `__threadfence()`), which
   * orders a work-item's writes to global memory before its later accesses as every work-group
   * sees them; or why not. Default refused: a kernel with one is refused before code is
   * generated.
   */
  readonly globalFences?: true | { readonly refused: string };
  /**
   * Whether the target compiles C, so that a `cInstruction`'s code (loopy's CInstruction) is
   * printed as given (default false: a kernel with one is refused before code is generated).
   */
  readonly cInstructions?: boolean;
  /**
   * Whether device code can print a line (the `trace` statement: OpenCL, CUDA and C's `printf`,
   * JavaScript's `console.log`), which the kernel options `traceAssignments` and
   * `traceAssignmentValues` need. Default false: a kernel with either is refused before code is
   * generated.
   */
  readonly prints?: boolean;
  /**
   * The address spaces in which a temporary may have a size known only at launch (a prefetch of
   * `a[:, :]` over `0 <= i, j < n` needs `n*n` elements): C declares a variable-length array
   * there, the CPU device allocates a typed array, the GPU targets take local ones as launch
   * arguments (`localArraysAsArguments`). Default none: such a temporary is refused before code
   * is generated, naming the target and what to write instead (OpenCL C has no variable-length
   * arrays: a private one is refused there).
   */
  readonly runtimeSizedArrays?: readonly ('private' | 'local')[];
  /**
   * Whether a local array of a size known only at launch is a launch argument rather than a
   * declaration in the body (`KernelFunction.localArguments`, a `'local'` `LaunchArgument` of
   * its bytes): OpenCL's `__local float *a_fetch` parameter, set with `clSetKernelArg(kernel, k,
   * bytes, NULL)`; CUDA's dynamic shared memory; WGSL's workgroup array sized by an `override`.
   * Default false: declared in the body (a C variable-length array).
   */
  readonly localArraysAsArguments?: boolean;
  /**
   * Whether float arithmetic keeps NaN and infinities as IEEE 754 says. Default true; WGSL lets
   * its compilers assume values finite (lavapipe folds `(b - k) - b` to `-k` whatever `b` is), so
   * there a result computed through NaN or ±Inf may be any value. Tests of NaN (`isnan`, `a != a`)
   * read the bits and hold either way.
   */
  readonly floatSpecials?: boolean;
  /** Whether the sign of a float zero is kept (`1 / -0.0` is -Inf). Default true; WGSL may ignore it. */
  readonly signedZeros?: boolean;
  /**
   * The float dtypes whose subnormal values the device may flush to zero, as operands or results.
   * Default none; WGSL allows it for float32 (NVIDIA's Vulkan driver does it, lavapipe does not).
   */
  readonly flushesSubnormals?: readonly DType[];
  /**
   * The 16-bit float dtypes its private and local temporaries hold as float32, computing in float
   * (bfloat16 everywhere, float16 without half arithmetic), but for tiles that matrix instructions
   * load: each element takes 4 bytes of the device's memory, which its limits are checked against.
   * Default none.
   */
  readonly heldInFloat?: readonly DType[];
  /**
   * Whether float division, math functions and `fma` are held only to a looser accuracy than
   * OpenCL C's: WGSL's `/` is within 2.5 ulp, its `exp` and `log` have absolute error bounds near
   * 0, and its `fma` is as accurate as `a * b + c` (it may round twice). Default false: `/`
   * correctly rounded, math functions within a few ulp, `fma` rounded once.
   */
  readonly relaxedFloatAccuracy?: boolean;
  /**
   * How it reads image arguments (`changeArgToImage`, `imageArg`): `'native'`, as images of its
   * own (OpenCL's `image2d_t`, WGSL's `texture_2d`), whose reads keep one index per axis in the
   * program AST (`KernelParam.image`) and whose device makes the image at launch; `'emulated'`,
   * as the global arrays they were made from (the same numbers: an image is read only within
   * its shape, as every array is); or why it cannot have them (`{ refused }`, said in a
   * LoomError naming the argument before any code is built). Default `'emulated'`.
   */
  readonly images?: ImageSupport;
  /**
   * Whether and how it calls a callee kernel's code as a function (`ProgramAst.deviceFunctions`,
   * codegen/device-functions.ts), loopy's `inline=False`. Default false: every callee is inlined.
   */
  readonly deviceFunctions?: DeviceFunctionSupport | false;
  /**
   * The rules by which it lays out a struct dtype in an array (structs/layout.ts): `'c'` (C,
   * OpenCL C, CUDA, the CPU device) or `'wgsl-storage'` (WGSL's storage buffers, which hold
   * fewer scalar types). Default `'c'`. Host data of a struct array is packed by these rules.
   */
  readonly structLayoutRules?: StructLayoutRules;
}

/** Whether and of which dtypes a target has atomic fetches (`Target.atomicFetches`). */
export type AtomicFetchSupport = { readonly dtypes: readonly DType[] } | { readonly refused: string };

/** Whether and how a target has subgroup functions (`Target.subgroups`). */
export type SubgroupSupport =
  | {
      /** The dtypes their values may have here. */
      readonly dtypes: readonly DType[];
      /**
       * How many work-items a subgroup has: always the same (a warp of 32), or one the driver
       * picks per pipeline within a range (WebGPU's adapter reports it), powers of two.
       */
      readonly size: number | { readonly min: number; readonly max: number };
    }
  | { readonly refused: string };

/** Whether and how a target has matrix instructions (`Target.matrixInstructions`). */
export type MatrixSupport =
  | {
      /** How many work-items (a subgroup: CUDA's warp of 32) run one matrix instruction together. */
      readonly lanes: number;
      /** The tiles it multiplies. */
      readonly shapes: readonly MatrixShape[];
    }
  | { readonly refused: string };

/** One tile a target's matrix instructions multiply: an `m`×`k` by `k`×`n` product added to an `m`×`n` accumulator. */
export interface MatrixShape {
  /** Rows of the product. */
  readonly m: number;
  /** Columns of the product. */
  readonly n: number;
  /** The reduction between them. */
  readonly k: number;
  /** The dtype of both factors' elements. */
  readonly operand: DType;
  /** The dtypes the accumulator may have. */
  readonly accumulators: readonly DType[];
  /** `'tf32'`: float32 factors rounded to TF32 first (tensorize's precision); absent: the factors as they are. */
  readonly precision?: 'tf32';
  /** The work-items that run it together, where not the support's `lanes` (a warpgroup's 128 for Hopper's `wgmma`). */
  readonly lanes?: number;
  /**
   * `'core-matrices'`: it reads both factors from local memory as 8 x 8 blocks of 128 contiguous
   * bytes (codegen/matrix-cores.ts), as Hopper's `wgmma` does; absent: tiles in lines, in global or local memory.
   */
  readonly factors?: 'core-matrices';
  /**
   * Dtypes besides its own that the accumulator may be stored into, each element rounded as it is
   * stored (where each work-item stores its own registers one by one, as Hopper's `wgmma`
   * accumulators are); absent: only its own.
   */
  readonly storedAs?: readonly DType[];
  /**
   * Both factors must lie with their lines along k (a's rows, b's columns: "K-major"), where the
   * instruction cannot read a factor transposed (Hopper's TF32 `wgmma`); absent: either way.
   */
  readonly kMajor?: boolean;
  /**
   * With `precision: 'tf32'`: the instruction takes a float as TF32 by dropping its 13 low bits
   * (truncating towards zero), not by rounding, as Hopper's warpgroup instructions do with floats
   * they read from local memory (bench/wgmma/tf32-probe.cu, on an H100); every device then computes so.
   */
  readonly truncatesTf32?: boolean;
}

/** How a target reads image arguments (`Target.images`). */
export type ImageSupport = 'native' | 'emulated' | { readonly refused: string };

/**
 * What a target's functions can do (`Target.deviceFunctions`). A callee's code that needs more
 * than its target can is inlined where it is called, as loopy inlines what it cannot call.
 */
export interface DeviceFunctionSupport {
  /**
   * How a function reaches a global array: `'pointers'`, as a parameter (C's `float *a`, a
   * JavaScript typed array); `'bindings'`, by the module-scope name the kernel binds it to
   * (WGSL, whose functions take no pointers into storage buffers), with no parameter.
   */
  readonly arrays: 'pointers' | 'bindings';
  /**
   * Whether a function reads the work-item ids itself (`'read'`: OpenCL's `get_local_id`, CUDA's
   * `threadIdx`) or takes the ids it uses as parameters (`'passed'`: WGSL's built-ins are the
   * entry point's, and serialized work-items are loop counters of the kernel).
   */
  readonly workItemIds: 'read' | 'passed';
  /**
   * Whether a function may hold a local barrier (false where the work-items are serialized at
   * the barriers of the kernel's own body, or run as generators that yield there).
   */
  readonly barriers: boolean;
  /**
   * Whether a function takes a private array of its caller's by pointer (C's `float *t`); false
   * where it cannot (WGSL's function pointers) or where the array may become one copy per
   * work-item after the function is made (serialized work-items).
   */
  readonly privateArrays: boolean;
}

/** One program spelled by a target. */
export interface TargetOutput<Extra = unknown> {
  /** The program in the target's language. */
  readonly code: string;
  /** Each kernel's name as the code spells it (`kernel` is `kernel_` in OpenCL C), in program order. */
  readonly entryPoints: readonly string[];
  /**
   * Each kernel's declaration, in program order, where the language has them (the C family):
   * the prototype a header holds for a caller of the entry point (`generateHeader`).
   */
  readonly declarations?: readonly string[];
  /** The target's own facts about the code, for its device. */
  readonly extra: Extra;
}

/** What a target tells its device: `ExtraOf<Target<E>>` is `E` (of a union of targets, the union). */
export type ExtraOf<T> = T extends Target<infer Extra> ? Extra : never;

export type { GeneratedCode } from './generated.ts';
