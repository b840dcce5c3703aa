/**
 * C identifiers for Loom names: a kernel may call an iname `int`, an array `sqrtf` or
 * `uint16_t`, a value `NAN`. Such a name would not compile, or would silently mean something
 * else (a variable `sqrtf` hides the function the code calls). The C printer spells them apart
 * (`int` → `int_`, `__x` → `v__x`); every other name is printed as it is. Each pattern below
 * stops matching when an underscore is appended, so the renamed spelling is never reserved.
 */
import { C_MATH_NAMES } from './math.ts';

/** The name of the group ids' parameter that each kernel function takes last (`int const *`), reserved by its dtype suffix. */
export const GROUP_IDS = 'loom_group_ids_int32';

/** C99's keywords, C11's that compilers take in C99 mode, and the names of `<stdbool.h>` and `<stddef.h>`. */
const KEYWORDS = (
  'auto break case char const continue default do double else enum extern float for goto if inline int long register ' +
  'restrict return short signed sizeof static struct switch typedef union unsigned void volatile while asm typeof ' +
  'bool true false NULL size_t ptrdiff_t main'
).split(' ');

/** The library functions and macros the generated code calls or may meet (`<math.h>`, `<string.h>`), and the prelude's. */
const LIBRARY = (
  'abs labs llabs fabs fabsf isnan isinf isfinite isnormal signbit isunordered isgreater isless fpclassify ' +
  'fmin fmax fminf fmaxf fdim ldexp frexp modf nan nanf rint lrint llrint nearbyint remainder remquo scalbn ilogb logb ' +
  'nextafter lgamma tgamma exp10 memcpy memset memmove malloc free printf assert errno ' +
  'loom_half_to_float loom_half_bits loom_to_half loom_to_half_f64 loom_bfloat16_to_float loom_bfloat16_bits loom_bfloat16_round_bits loom_rsqrt loom_rsqrtf gid'
).split(' ');

/** The launcher's own names (launchers.ts): a kernel called `group` would be hidden by its array of group ids. */
const LAUNCHER = 'args group group_count count0 count1 count2 g0 g1 g2'.split(' ');

const PATTERNS = [
  // <stdint.h>'s types and macros: int64_t, uint_fast8_t, INT64_C
  /^u?int(8|16|32|64|ptr|max|_least8|_least16|_least32|_least64|_fast8|_fast16|_fast32|_fast64)?_t$/,
  /^U?INT(8|16|32|64|MAX)_C$/,
  // the predefined macros: FLT_MAX, INT_MIN, M_PI, FP_NAN
  /^(FLT|DBL|LDBL|CHAR|SCHAR|UCHAR|SHRT|USHRT|INT|UINT|LONG|ULONG|LLONG|ULLONG|INT8|INT16|INT32|INT64|UINT8|UINT16|UINT32|UINT64|M|FP|SIZE|PTRDIFF)_[A-Z0-9_]*[A-Z0-9]$/,
  /^(INFINITY|NAN|HUGE_VAL|HUGE_VALF|HUGE_VALL|CHAR_BIT|EOF)$/,
  // the math library's long double names (the float and double ones are listed)
  /^(sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|exp|exp2|log|log2|log10|sqrt|cbrt|pow|fabs|floor|ceil|round|trunc|fmod|hypot|erf|erfc|fma)l$/,
  // C reserves `__x` and `_X` for the implementation (`__atomic_load`, `_Bool`)
  /^(__|_[A-Z])/,
  // OpenMP's functions
  /^omp_[a-z_]*[a-z]$/,
  // this target's helper functions: loom_div_int32, loom_atomic_add_float32, loom_group_ids_int32
  /^loom_[a-z_0-9]*(bool|int8|int16|int32|int64|uint8|uint16|uint32|uint64|float16|bfloat16|float32|float64)(_f64)?$/,
];

const RESERVED = new Set([...KEYWORDS, ...LIBRARY, ...LAUNCHER, ...C_MATH_NAMES]);

/** Whether C cannot use `name` as it is. */
export function isReservedInC(name: string): boolean {
  return RESERVED.has(name) || PATTERNS.some((p) => p.test(name));
}
