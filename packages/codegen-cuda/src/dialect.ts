/**
 * What CUDA C says differently from the C printer's defaults (@loom/codegen-cfamily's
 * `CDialect`), as loopy's CUDA target prints it: `extern "C" __global__` kernels with
 * `__launch_bounds__` of their work-group size, `__shared__` local memory, `threadIdx`/
 * `blockIdx` behind the `tIdx`/`bIdx` macros, `__syncthreads()`, C's type names (`unsigned
 * int`, `long long`), `f`-suffixed float32 math functions, `float4` vectors assembled with
 * `make_float4` and read with `.x`, float16 as `__half` storage, `atomicAdd`/`atomicCAS`.
 */
import { cudaMatrix } from './matrix.ts';
import { cudaAsyncCopy } from './async-copies.ts';
import { cudaBulkCopy } from './bulk-copies.ts';
import { constantLocalSize, LoomError, type DType } from '@loom/core';
import {
  KEEP_ROLLED,
  type CDialect,
  type LocalArraySpelling,
  type ProgramFacts,
  type VectorSpelling,
} from '@loom/codegen-cfamily';
import { DYNAMIC_SHARED_ALIGNMENT, STATIC_SHARED_BYTES } from './shared-memory.ts';
import { cudaAtomic, cudaAtomicCompareSwap, cudaAtomicFetch, cudaAtomicLoad, cudaAtomicStore } from './atomics.ts';
import { cudaFloatToInteger, cudaLiteral, cudaType } from './c-types.ts';
import { cudaBfloat16Storage } from './bfloat16-storage.ts';
import { cudaHalfStorage } from './half-storage.ts';
import { cudaMathFunction } from './math.ts';
import { isReservedInCuda } from './names.ts';

const AXES = 'xyzw';

/** The element names of CUDA's vector types (`float4`, `ulonglong2`); float16 has none. */
const VECTOR_ELEMENT: Partial<Record<DType, string>> = {
  bool: 'uchar',
  int8: 'char',
  uint8: 'uchar',
  int16: 'short',
  uint16: 'ushort',
  int32: 'int',
  uint32: 'uint',
  int64: 'longlong',
  uint64: 'ulonglong',
  float32: 'float',
  float64: 'double',
};

function vectorName(t: DType, lanes: number): string {
  const element = VECTOR_ELEMENT[t];
  if (!element)
    throw new LoomError(`CUDA has no vector type of ${t}: leave the ${t} array's axis unvectorized (no 'vec' tag)`);
  return `${element}${lanes}`;
}

/** CUDA's vector types have no operators: a vector statement is built lane by lane with `make_float4`. */
const cudaVectors: VectorSpelling = {
  type: vectorName,
  // float3 is three floats, unpadded: an array of them steps over the caller's groups of three
  packed: [],
  element: (lane) => `.${AXES[lane]}`,
  arithmetic: false,
  construct: (t, lanes) => `make_${vectorName(t, lanes.length)}(${lanes.join(', ')})`,
};

/** CUDA C as a dialect of the C printer. */
export const cudaDialect: CDialect = {
  language: 'CUDA C',
  isReserved: isReservedInCuda,
  // user functions are keyed by language (defineFunction's `opencl`, `wgsl`); CUDA has no key yet
  functionDialects: ['cuda'],
  type: cudaType,
  literal: cudaLiteral,
  mathFunction: cudaMathFunction,
  // CUDA's integer intrinsics have the high half of a product; a rotation is the printer's helper
  integerBuiltin: (fn, t) => (fn === 'mul_hi' ? CUDA_MUL_HI[t] : undefined),
  // |x| of an unsigned x is x (CUDA's abs has no unsigned overload); llabs for long long
  integerAbs: (t) => (t === 'int64' ? 'llabs' : t.startsWith('uint') ? undefined : 'abs'),
  unordered: (a, b) => `(isnan(${a}) || isnan(${b}))`,
  // NVRTC fuses a * b + c into an fma by default (--fmad=true); __fmul_rn is never fused
  product: (l, r, t, fused) => (fused ? undefined : `${t === 'float64' ? '__dmul_rn' : '__fmul_rn'}(${l}, ${r})`),
  floatToInteger: cudaFloatToInteger,
  helperQualifier: 'inline __device__',
  oversizedShift: () => 'CUDA leaves it undefined',
  hardwareId: (fn, axis) => `${fn === 'lid' ? 'tIdx' : 'bIdx'}(${AXES[axis]})`,
  subgroups: {
    kind: 'shuffles',
    width: 32,
    // a warp is 32 consecutive threads of the block, x fastest
    linearLocalId: '((int) (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)))',
    // __shfl_*_sync is overloaded for every 32- and 64-bit scalar; every lane of the warp takes part
    shuffle: (mode, _t, value, arg) => ({
      text: `__shfl${mode === 'idx' ? '' : mode === 'bfly' ? '_xor' : '_up'}_sync(0xffffffffu, ${value}, ${arg})`,
      helpers: [],
    }),
  },
  matrix: cudaMatrix,
  asyncCopy: cudaAsyncCopy,
  // tiles of copies moved by the tensor memory accelerator (bulk-copies.ts: sm_90)
  bulkCopy: cudaBulkCopy,
  wideCopy: (to, toIndex, from, fromIndex) =>
    `*(uint4 *) (${to} + (${toIndex})) = *(uint4 const *) (${from} + (${fromIndex}));`,
  // a block-wide barrier that also orders the block's global memory accesses: OpenCL's
  // barrier(CLK_GLOBAL_MEM_FENCE) promises no more (work-groups still do not see each other)
  barrier: (_scope, comment) => `__syncthreads()${comment ? ` /* ${comment} */` : ''};`,
  kernelDeclaration: (k, params) => {
    const constant = constantLocalSize(k.localSize);
    // a block size known only at launch (`l.0` over `0 <= i < n`) bounds nothing the compiler could use
    if (!constant) return `extern "C" __global__ void ${k.name}(${params.join(', ')})`;
    const threads = constant.reduce((a, b) => a * b, 1);
    // with a request for blocks per multiprocessor (minGroupsPerComputeUnit), its second number
    const bounds = k.minGroupsPerComputeUnit ? `${threads}, ${k.minGroupsPerComputeUnit}` : `${threads}`;
    return `extern "C" __global__ void __launch_bounds__(${bounds}) ${k.name}(${params.join(', ')})`;
  },
  // CUDA's __constant__ is a variable's space, not a pointer's: a constant argument is a const pointer
  functionDeclaration: (name, params) => `__device__ void ${name}(${params.join(', ')})`,
  arrayParameter: (p, type, restrict) =>
    `${type}${p.written ? '' : ' const'} *${restrict ? '__restrict__ ' : ''}${p.name}`,
  // a pointer in CUDA has no address space: it is generic
  addressSpace: () => '',
  localQualifier: '__shared__ ',
  // more than that is carved out of the dynamic shared memory, which the device opts in to
  staticLocalBytes: STATIC_SHARED_BYTES,
  localArrayPrologue: dynamicSharedArrays,
  halfStorage: cudaHalfStorage,
  bfloat16Storage: cudaBfloat16Storage,
  vectors: cudaVectors,
  atomic: cudaAtomic,
  atomicCompareSwap: cudaAtomicCompareSwap,
  atomicStore: cudaAtomicStore,
  atomicLoad: cudaAtomicLoad,
  // atomicAdd and atomicExch take plain pointers: loads are volatile where they are read
  atomicQualifier: '',
  atomicFetch: cudaAtomicFetch,
  // membar.gl: the thread's memory accesses in order, as every block of the grid sees them
  globalFence: '__threadfence();',
  keepRolled: KEEP_ROLLED,
  prelude: cudaPrelude,
};

/**
 * Local arrays sized at launch, carved in order out of the block's dynamic shared memory (one
 * `extern __shared__` byte array; the device passes their total as cuLaunchKernel's
 * sharedMemBytes), each starting at a multiple of `DYNAMIC_SHARED_ALIGNMENT` bytes (or of the kernel's
 * larger alignment, where it carves a swizzled array).
 */
function dynamicSharedArrays(arrays: readonly LocalArraySpelling[], alignment: number): string[] {
  const a = Math.max(DYNAMIC_SHARED_ALIGNMENT, alignment);
  const lines = [`extern __shared__ __align__(${a}) unsigned char loom_dynamic_shared[];`];
  let offset = '0';
  for (const { name, type, bytes } of arrays) {
    lines.push(`${type} *__restrict__ ${name} = (${type} *) (loom_dynamic_shared + ${offset});`);
    const rounded = `((${bytes}) + ${a - 1}) / ${a} * ${a}`;
    offset = offset === '0' ? rounded : `${offset} + ${rounded}`;
  }
  return lines;
}

function cudaPrelude({ float16, bfloat16, matrix }: ProgramFacts): string[] {
  return [
    ...(float16 || matrix ? ['#include <cuda_fp16.h>'] : []),
    ...(bfloat16 ? ['#include <cuda_bf16.h>'] : []),
    ...(matrix ? ['#include <mma.h>', 'namespace wmma = nvcuda::wmma;'] : []),
    '#define tIdx(N) ((int) threadIdx.N)',
    '#define bIdx(N) ((int) blockIdx.N)',
  ];
}

/** CUDA's intrinsic for the high half of a product, per dtype. */
const CUDA_MUL_HI: Partial<Record<DType, string>> = {
  int32: '__mulhi',
  uint32: '__umulhi',
  int64: '__mul64hi',
  uint64: '__umul64hi',
};
