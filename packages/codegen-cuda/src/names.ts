/**
 * CUDA C++ identifiers for Loom names: a kernel may call an iname `new`, an array `threadIdx`
 * or `float4`, a value `sinf`. Such a name would not compile, or would silently mean something
 * else (a variable `sqrtf` hides the function). The C printer spells them apart (`new` →
 * `new_`, `__x` → `v__x`); every other name is printed as it is. Each pattern below stops
 * matching when an underscore is appended, so the renamed spelling is never reserved itself.
 */
import { CUDA_MATH_NAMES } from './math.ts';

/** C++ keywords (CUDA C is C++), the alternative operator spellings, and C's type names. */
const KEYWORDS = (
  'alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class compl ' +
  'concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete do ' +
  'double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable namespace ' +
  'new noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires return ' +
  'short signed sizeof static static_assert static_cast struct switch template this thread_local throw true try typedef ' +
  'typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq restrict main std NULL size_t ptrdiff_t'
).split(' ');

/** CUDA's built-in variables and functions, the half type's names and the macros this target's code defines. */
const BUILTINS = (
  'threadIdx blockIdx blockDim gridDim warpSize dim3 tIdx bIdx half half2 nv_bfloat16 nv_bfloat162 printf malloc free memcpy memset assert ' +
  'min max abs llabs umin umax llmin llmax ullmin ullmax isnan isinf isfinite signbit fmin fmax fdim ldexp frexp modf nan ' +
  'lgamma tgamma rint lrint llrint nearbyint remainder remquo scalbn ilogb logb nextafter sincos sincospi sinpi cospi ' +
  'normcdf normcdfinv erfinv erfcinv erfcx rcbrt j0 j1 y0 y1 jn yn'
).split(' ');

const PATTERNS = [
  // vector types and their constructors: float4, ulonglong2, double4_32a, make_int3
  /^(make_)?(u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4](_16a|_32a)?$/,
  // CUDA's intrinsics, synchronization and atomics: __syncthreads, __fmul_rn, atomicAdd, atomicCAS_system
  /^atomic[A-Z][A-Za-z]*(_block|_system)?$/,
  // float16 conversions and arithmetic: __float2half, hsqrt, hexp2
  /^h(sin|cos|exp|exp2|exp10|log|log2|log10|sqrt|rsqrt|rcp|floor|ceil|trunc|rint|abs|max|min|fma|add|sub|mul|div|neg|eq|ne|lt|le|gt|ge|isnan|isinf)2?$/,
  // the C math library's long double names (the float and double ones are listed)
  /^(sin|cos|tan|exp|log|sqrt|pow|fabs|floor|ceil|fmod|atan2)l$/,
  // the predefined macros: FLT_MAX, INT_MIN, M_PI, CUDART_INF_F, __CUDA_ARCH__
  /^(FLT|DBL|HALF|CHAR|SCHAR|UCHAR|SHRT|USHRT|INT|UINT|LONG|ULONG|LLONG|ULLONG|M|CUDART|CUDA)_[A-Z0-9_]*[A-Z0-9]$/,
  /^(INFINITY|NAN|HUGE_VAL|HUGE_VALF|CHAR_BIT)$/,
  // C++ reserves `__x` and `_X` for the implementation (`__global__`, `__half`, `__syncthreads`)
  /^(__|_[A-Z])/,
  // the C printer's helper functions: loom_div_int32, loom_atomic_add_float32
  /^loom_[a-z_0-9]*(bool|int8|int16|int32|int64|uint8|uint16|uint32|uint64|float16|bfloat16|float32|float64)(_f64)?$/,
  // the CUDA runtime's names: cudaMalloc, cudaError_t
  /^(cuda|cu|nvrtc)[A-Z][A-Za-z0-9_]*$/,
];

const RESERVED = new Set([...KEYWORDS, ...BUILTINS, ...CUDA_MATH_NAMES]);

/** Whether CUDA C++ cannot use `name` as it is. */
export function isReservedInCuda(name: string): boolean {
  return RESERVED.has(name) || PATTERNS.some((p) => p.test(name));
}
