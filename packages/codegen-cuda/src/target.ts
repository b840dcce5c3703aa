/**
 * `cudaTarget()`: the program AST as CUDA C that reads like loopy's CUDA target's output:
 *
 *   #define tIdx(N) ((int) threadIdx.N)
 *   #define bIdx(N) ((int) blockIdx.N)
 *
 *   extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out)
 *   {
 *     for (int i = 0; i <= -1 + n; ++i)
 *       out[i] = __fmul_rn(2.0f, a[i]);
 *   }
 *
 * (The product is `__fmul_rn` so that NVRTC does not fuse it with a sum into an fma, as it
 * otherwise would: every device rounds `a * b + c` twice unless the kernel allows the fma.)
 */
import {
  statementsOfKind,
  WGMMA_SHAPES,
  WMMA_SHAPES,
  type ProgramAst,
  type Target,
  type TargetOutput,
} from '@loom/core';
import { printCProgram, type TensorMapSpec } from '@loom/codegen-cfamily';
import { cudaDialect } from './dialect.ts';
import { dynamicSharedBytes } from './shared-memory.ts';
import { WARPGROUP } from './warpgroup-matrix.ts';

/** CUDA C needs nothing but the code and its kernels' names (NVRTC finds the rest in it). */
/** What the CUDA target tells its device beyond the code. */
export interface CudaExtra {
  /**
   * Each kernel's local arrays of constant size carved out of the dynamic shared memory (where
   * they take more than 48 KiB), by entry point: the bytes each launch adds to those sized at launch.
   */
  readonly carvedSharedBytes: Readonly<Record<string, number>>;
  /**
   * Some tensor tile is a warpgroup instruction of Hopper's (`wgmma`, warpgroup-matrix.ts): the code
   * compiles for sm_90a and runs on GPUs of compute capability 9.0 only.
   */
  readonly hopperOnly: boolean;
  /**
   * Each kernel's tensor maps, by entry point (bulk copies: codegen-cfamily's bulk-copies.ts):
   * parameters after the kernel's own, which the device encodes at launch from the arrays they view;
   * a kernel with any runs on GPUs of compute capability 9.0 and later.
   */
  readonly tensorMaps: Readonly<Record<string, readonly TensorMapSpec[]>>;
  /**
   * Each kernel's alignment of the arrays carved out of its dynamic shared memory, by entry point,
   * where it is larger than `DYNAMIC_SHARED_ALIGNMENT` (a swizzled array: 8 spans); 0 otherwise.
   */
  readonly sharedAlignment: Readonly<Record<string, number>>;
  /**
   * The block each kernel is launched with, by entry point, where it is larger than the kernel's
   * local size (a producer's row making its bulk copies: codegen-cfamily's bulk-producer.ts).
   */
  readonly launchedBlocks: Readonly<Record<string, readonly number[]>>;
}

/** The lane counts of CUDA's vector types that every element type has (`float2`..`float4`, `double2`..`double4`). */
const CUDA_VECTOR_LANES: readonly number[] = [2, 3, 4];

/**
 * The CUDA target: spells the program AST as CUDA C, for NVRTC. Every dtype OpenCL has is
 * here (float64 natively, int64 as `long long`, float16 as `__half` storage).
 * ```ts
 * console.log(generateCode(knl, cudaTarget()).code);
 * ```
 */
export function cudaTarget(): Target<CudaExtra> {
  return {
    name: 'cuda',
    vectorTypes: true,
    vectorLanes: CUDA_VECTOR_LANES,
    // a warp: what subgroup-sized algorithms (computations' scans) are tuned for
    subgroupSize: 32,
    // warp shuffles (__shfl_xor_sync) on every 32- and 64-bit scalar (dialect.ts); a block of whole warps
    subgroups: { dtypes: ['int32', 'uint32', 'float32', 'int64', 'uint64', 'float64'], size: 32 },
    // tensor tiles as WMMA's warp-wide matrix functions (matrix.ts), and 64-row tiles as Hopper's
    // warpgroup instructions (warpgroup-matrix.ts: sm_90a, refused by the device on other GPUs)
    matrixInstructions: { lanes: 32, shapes: [...WMMA_SHAPES, ...WGMMA_SHAPES] },
    // __launch_bounds__'s minimum blocks per multiprocessor (dialect.ts)
    occupancyHints: true,
    // global-to-shared copies issued as cp.async, waited for before each barrier (async-copies.ts)
    asyncCopies: true,
    // a tile of them as one request of the tensor memory accelerator (bulk-copies.ts; sm_90, refused by the device elsewhere)
    bulkCopies: true,
    // CUDA's own code: a plain C preamble would need __device__ on each function
    functionDialects: cudaDialect.functionDialects,
    // atomicAdd/atomicMin/atomicMax, and compare-and-swap loops for float min and max (dialect.ts)
    // C-family: a cInstruction's C code is printed as given
    cInstructions: true,
    // printf, for traceAssignments
    prints: true,
    // a callee's code is a function that reads the work-item ids and holds barriers as the kernel does
    deviceFunctions: { arrays: 'pointers', workItemIds: 'read', barriers: true, privateArrays: true },
    // no variable-length arrays: a local array sized at launch is carved out of the dynamic shared
    // memory the launch provides (shared-memory.ts); a private one is refused
    runtimeSizedArrays: ['local'],
    localArraysAsArguments: true,
    atomicDTypes: ['int32', 'uint32', 'float32', 'float64'],
    // CUDA's atomics return the old value (atomics.ts)
    atomicFetches: { dtypes: ['int32', 'uint32', 'float32', 'float64'] },
    globalFences: true,
    // float16 and bfloat16 computed in float: their temporaries are floats (half-storage.ts)
    heldInFloat: ['float16', 'bfloat16'],
    // loopy's CUDA target refuses ImageArg too ("not yet: texture arguments in CUDA")
    images: {
      refused:
        "CUDA reads images through texture objects (a CUDA array, a resource and a texture descriptor made with the driver API's cuTexObjectCreate for each launch), which Loom's CUDA device does not make; keep it a global argument, which CUDA's caches serve as well for read-only data",
    },
    // floats as IEEE 754 has them (the float facts' defaults): NVRTC's defaults, which the device
    // keeps (no --use_fast_math), keep subnormals (--ftz=false) and round / and sqrt correctly
    // (--prec-div, --prec-sqrt); products are kept out of fmas by the dialect (__fmul_rn)
    generate: spellCuda,
  };
}

/** The CUDA C source of a program AST. */
export function generateCuda(program: ProgramAst): string {
  return spellCuda(program).code;
}

function spellCuda(program: ProgramAst): TargetOutput<CudaExtra> {
  // the C printer in CUDA's dialect (dialect.ts); float16 is always stored as __half and computed in float
  const { code, entryPoints, declarations, carvedLocalBytes, carvedAlignments, tensorMaps, launchSizes } =
    printCProgram(program, cudaDialect, {
      halfStorage: true,
    });
  const carvedSharedBytes = Object.fromEntries(
    entryPoints.map((name, k) => [name, dynamicSharedBytes(carvedLocalBytes[k] ?? [], carvedAlignments[k])]),
  );
  const hopperOnly = [...program.kernels, ...(program.deviceFunctions ?? [])].some((k) =>
    statementsOfKind(k.body, 'matrix').some((s) => s.op.accumulator.lanes === WARPGROUP),
  );
  return {
    code,
    entryPoints,
    declarations,
    extra: {
      carvedSharedBytes,
      hopperOnly,
      tensorMaps: Object.fromEntries(entryPoints.map((name, k) => [name, tensorMaps[k] ?? []])),
      sharedAlignment: Object.fromEntries(entryPoints.map((name, k) => [name, carvedAlignments[k] ?? 0])),
      launchedBlocks: Object.fromEntries(
        entryPoints.flatMap((name, k) => (launchSizes[k] ? [[name, launchSizes[k]] as const] : [])),
      ),
    },
  };
}
