/**
 * OpenCL C identifiers for Loom names.
 *
 * Loom names are checked identifiers (see @loom/core's names.ts), but a kernel may well
 * call an iname `int`, an array `kernel`, `sqrt` or `float4`, a value `M_PI`: C keywords,
 * OpenCL qualifiers, built-in functions and types, and the macros every OpenCL compiler
 * defines. Such a name would not compile, or would silently mean something else (a
 * variable `sqrt` hides the function; `M_PI` expands to a number). `openclNames` spells
 * them apart with core's `TargetNames` (`int` → `int_`, `__kernel` → `v__kernel`); every
 * other name is printed as it is.
 *
 * Each pattern below stops matching when an underscore is appended, so the renamed
 * spelling is never reserved itself.
 */
import { programNames, TargetNames, type ProgramAst } from '@loom/core';

/** C99 keywords and the OpenCL C keywords and qualifiers. */
const KEYWORDS = [
  'auto', 'break', 'case', 'char', 'const', 'continue', 'default', 'do', 'double', 'else', 'enum', 'extern', 'float',
  'for', 'goto', 'if', 'inline', 'int', 'long', 'register', 'restrict', 'return', 'short', 'signed', 'sizeof', 'static',
  'struct', 'switch', 'typedef', 'union', 'unsigned', 'void', 'volatile', 'while',
  'kernel', 'global', 'local', 'constant', 'private', 'generic', 'read_only', 'write_only', 'read_write', 'uniform',
  'pipe', 'complex', 'imaginary', 'true', 'false', 'bool', 'half', 'quad', 'uchar', 'ushort', 'uint', 'ulong',
  'size_t', 'ptrdiff_t', 'intptr_t', 'uintptr_t', 'sampler_t', 'event_t', 'queue_t', 'clk_event_t', 'reserve_id_t',
  'ndrange_t', 'cl_mem_fence_flags', 'memory_scope', 'memory_order', 'image1d_t', 'image1d_array_t',
  'image1d_buffer_t', 'image2d_t', 'image2d_array_t', 'image2d_depth_t', 'image2d_array_depth_t', 'image3d_t',
  'atomic_int', 'atomic_uint', 'atomic_long', 'atomic_ulong', 'atomic_float', 'atomic_double', 'atomic_flag',
  'printf', 'main', 'NULL',
  // the work-item macros this target's code defines
  'lid', 'gid',
];

/** OpenCL C built-in functions (math, integer, common, geometric, relational, work-item, sync, vector data). */
const BUILTIN_FUNCTIONS = [
  'acos', 'acosh', 'acospi', 'asin', 'asinh', 'asinpi', 'atan', 'atan2', 'atanh', 'atanpi', 'atan2pi', 'cbrt', 'ceil',
  'copysign', 'cos', 'cosh', 'cospi', 'erfc', 'erf', 'exp', 'exp2', 'exp10', 'expm1', 'fabs', 'fdim', 'floor', 'fma',
  'fmax', 'fmin', 'fmod', 'fract', 'frexp', 'hypot', 'ilogb', 'ldexp', 'lgamma', 'lgamma_r', 'log', 'log2', 'log10',
  'log1p', 'logb', 'mad', 'maxmag', 'minmag', 'modf', 'nan', 'nextafter', 'pow', 'pown', 'powr', 'remainder', 'remquo',
  'rint', 'rootn', 'round', 'rsqrt', 'sin', 'sincos', 'sinh', 'sinpi', 'sqrt', 'tan', 'tanh', 'tanpi', 'tgamma', 'trunc',
  'abs', 'abs_diff', 'add_sat', 'hadd', 'rhadd', 'clamp', 'clz', 'ctz', 'mad_hi', 'mad_sat', 'max', 'min', 'mul_hi',
  'rotate', 'sub_sat', 'upsample', 'popcount', 'mad24', 'mul24', 'degrees', 'mix', 'radians', 'step', 'smoothstep',
  'sign', 'cross', 'dot', 'distance', 'length', 'normalize', 'fast_distance', 'fast_length', 'fast_normalize',
  'isequal', 'isnotequal', 'isgreater', 'isgreaterequal', 'isless', 'islessequal', 'islessgreater', 'isfinite', 'isinf',
  'isnan', 'isnormal', 'isordered', 'isunordered', 'signbit', 'any', 'all', 'bitselect', 'select', 'shuffle', 'shuffle2',
  'vec_step', 'get_work_dim', 'get_global_size', 'get_global_id', 'get_local_size', 'get_enqueued_local_size',
  'get_local_id', 'get_num_groups', 'get_group_id', 'get_global_offset', 'get_global_linear_id', 'get_local_linear_id',
  'get_sub_group_size', 'get_max_sub_group_size', 'get_num_sub_groups', 'get_sub_group_id', 'get_sub_group_local_id',
  'barrier', 'work_group_barrier', 'sub_group_barrier', 'mem_fence', 'read_mem_fence', 'write_mem_fence',
  'async_work_group_copy', 'async_work_group_strided_copy', 'wait_group_events', 'prefetch', 'to_global', 'to_local',
  'to_private', 'get_fence', 'vload_half', 'vstore_half', 'vloada_half', 'vstorea_half', 'vload', 'vstore',
];

const SCALAR_TYPES = 'bool|char|uchar|short|ushort|int|uint|long|ulong|half|float|double|quad';
const WIDTHS = '2|3|4|8|16';
const MATH_NAMES = 'cos|divide|exp|exp2|exp10|log|log2|log10|powr|recip|rsqrt|sin|sqrt|tan';

const PATTERNS = [
  // vector and matrix types: float4, int16, double2x2
  new RegExp(`^(${SCALAR_TYPES})(${WIDTHS})(x(${WIDTHS}))?$`),
  // conversions and reinterpretations: convert_int4_sat_rte, as_float
  new RegExp(`^convert_(${SCALAR_TYPES})(${WIDTHS})?(_sat)?(_(rte|rtz|rtp|rtn))?$`),
  new RegExp(`^as_(${SCALAR_TYPES})(${WIDTHS})?$`),
  // reduced-precision math: native_sin, half_exp
  new RegExp(`^(native|half)_(${MATH_NAMES})$`),
  // vector loads and stores: vload4, vstore_half8_rte
  new RegExp(`^(vload|vstore|vloada|vstorea)(_half)?(${WIDTHS})?(_(rte|rtz|rtp|rtn))?$`),
  // atomics: atomic_add, atom_cmpxchg, atomic_fetch_add_explicit
  /^atomic?_[a-z_]*[a-z]$/,
  // the predefined macros: FLT_MAX, M_PI_F, CLK_LOCAL_MEM_FENCE, CL_VERSION_1_2, MAXFLOAT...
  /^(FLT|DBL|HALF|CHAR|SCHAR|UCHAR|SHRT|USHRT|INT|UINT|LONG|ULONG|M|CLK|CL|FP)_[A-Z0-9_]*[A-Z0-9]$/,
  /^(MAXFLOAT|HUGE_VALF|HUGE_VAL|INFINITY|NAN|CHAR_BIT)$/,
  // C reserves `__x` and `_X` for the implementation (`__kernel`, `__OPENCL_VERSION__`, `_Bool`)
  /^(__|_[A-Z])/,
  // this target's helper functions: loom_div_int32, loom_atomic_add_float32
  /^loom_[a-z_0-9]*(bool|int8|int16|int32|int64|uint8|uint16|uint32|uint64|float16|float32|float64)$/,
];

const RESERVED = new Set(KEYWORDS.concat(BUILTIN_FUNCTIONS));

/** Whether OpenCL C cannot use `name` as it is. */
export function isReservedInOpenCL(name: string): boolean {
  return RESERVED.has(name) || PATTERNS.some((p) => p.test(name));
}

/** How the program's names are spelled in OpenCL C (kernel names included). */
export function openclNames(program: ProgramAst): TargetNames {
  return new TargetNames(isReservedInOpenCL, programNames(program));
}
