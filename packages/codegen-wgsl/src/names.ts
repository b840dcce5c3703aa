/**
 * WGSL identifiers for Loom names.
 *
 * A kernel may well call an array `filter`, `active` or `target` (WGSL reserves them for
 * future use), `select` or `min` (WGSL's built-in functions, which a variable of that
 * name would shadow), or `params` (the name this target gives the uniform struct). Such
 * names get underscores appended (`filter` → `filter_`) until the result is free; every
 * other name is printed as it is, so generated code reads with the kernel's own names.
 *
 * Loom names are checked identifiers (see @loom/core's names.ts); this table adds WGSL's
 * own reserved words, as OpenCL's and JavaScript's names.ts add theirs.
 *
 * One `NameTable` serves a whole WGSL module: the target's own names are taken from the
 * start, the kernel's names and names derived from them (`load_flags`) are given out as
 * they come, each one unique.
 */
import { checkInternalName } from '@loom/core';
import { MATH_HELPER_KINDS } from './math-helpers.ts';

/** Keywords: the grammar's own words. */
const KEYWORDS = [
  'alias',
  'break',
  'case',
  'const',
  'const_assert',
  'continue',
  'continuing',
  'default',
  'diagnostic',
  'discard',
  'else',
  'enable',
  'false',
  'fn',
  'for',
  'if',
  'let',
  'loop',
  'override',
  'requires',
  'return',
  'struct',
  'switch',
  'true',
  'var',
  'while',
];

/** Words WGSL reserves for future use: a shader that uses one as a name does not compile. */
const RESERVED_WORDS = [
  'NULL',
  'Self',
  'abstract',
  'active',
  'alignas',
  'alignof',
  'as',
  'asm',
  'asm_fragment',
  'async',
  'attribute',
  'auto',
  'await',
  'become',
  'binding_array',
  'cast',
  'catch',
  'class',
  'co_await',
  'co_return',
  'co_yield',
  'coherent',
  'column_major',
  'common',
  'compile',
  'compile_fragment',
  'concept',
  'const_cast',
  'consteval',
  'constexpr',
  'constinit',
  'crate',
  'debugger',
  'decltype',
  'delete',
  'demote',
  'demote_to_helper',
  'do',
  'dynamic_cast',
  'enum',
  'explicit',
  'export',
  'extends',
  'extern',
  'external',
  'fallthrough',
  'filter',
  'final',
  'finally',
  'friend',
  'from',
  'fxgroup',
  'get',
  'goto',
  'groupshared',
  'highp',
  'impl',
  'implements',
  'import',
  'inline',
  'instanceof',
  'interface',
  'layout',
  'lowp',
  'macro',
  'macro_rules',
  'match',
  'mediump',
  'meta',
  'mod',
  'module',
  'move',
  'mut',
  'mutable',
  'namespace',
  'new',
  'nil',
  'noexcept',
  'noinline',
  'nointerpolation',
  'non_coherent',
  'noncoherent',
  'noperspective',
  'null',
  'nullptr',
  'of',
  'operator',
  'package',
  'packoffset',
  'partition',
  'pass',
  'patch',
  'pixelfragment',
  'precise',
  'precision',
  'premerge',
  'priv',
  'protected',
  'pub',
  'public',
  'readonly',
  'ref',
  'regardless',
  'register',
  'reinterpret_cast',
  'require',
  'resource',
  'restrict',
  'self',
  'set',
  'shared',
  'sizeof',
  'smooth',
  'snorm',
  'static',
  'static_assert',
  'static_cast',
  'std',
  'subroutine',
  'super',
  'target',
  'template',
  'this',
  'thread_local',
  'throw',
  'trait',
  'try',
  'type',
  'typedef',
  'typeid',
  'typename',
  'typeof',
  'union',
  'unless',
  'unorm',
  'unsafe',
  'unsized',
  'use',
  'using',
  'varying',
  'virtual',
  'volatile',
  'wgsl',
  'where',
  'with',
  'writeonly',
  'yield',
];

/** Predeclared types and their aliases: legal to shadow, but then the type is gone. */
const TYPES = [
  'bool',
  'f16',
  'f32',
  'f64',
  'i8',
  'i16',
  'i32',
  'i64',
  'u8',
  'u16',
  'u32',
  'u64',
  'array',
  'atomic',
  'ptr',
  'vec2',
  'vec3',
  'vec4',
  'mat2x2',
  'mat2x3',
  'mat2x4',
  'mat3x2',
  'mat3x3',
  'mat3x4',
  'mat4x2',
  'mat4x3',
  'mat4x4',
  ...['2', '3', '4'].flatMap((n) => ['i', 'u', 'f', 'h'].map((s) => `vec${n}${s}`)),
  ...['2x2', '2x3', '2x4', '3x2', '3x3', '3x4', '4x2', '4x3', '4x4'].flatMap((d) => [`mat${d}f`, `mat${d}h`]),
  'sampler',
  'sampler_comparison',
  'texture_1d',
  'texture_2d',
  'texture_2d_array',
  'texture_3d',
  'texture_cube',
  'texture_cube_array',
  'texture_multisampled_2d',
  'texture_depth_multisampled_2d',
  'texture_external',
  'texture_storage_1d',
  'texture_storage_2d',
  'texture_storage_2d_array',
  'texture_storage_3d',
  'texture_depth_2d',
  'texture_depth_2d_array',
  'texture_depth_cube',
  'texture_depth_cube_array',
];

/** Predeclared enumerants: address spaces, access modes and the like, spelled inside `var<...>`. */
const ENUMERANTS = [
  'function',
  'private',
  'workgroup',
  'uniform',
  'storage',
  'handle',
  'read',
  'write',
  'read_write',
  'center',
  'centroid',
  'sample',
  'flat',
  'linear',
  'perspective',
  'first',
  'either',
];

/** Built-in functions (the ones a kernel could call, and the rest, which a future printer might). */
// the language's own list, not Loom's functions (core's table): a kernel's name must not hide any
const BUILTIN_FUNCTIONS = [
  'bitcast',
  'all',
  'any',
  'select',
  'arrayLength',
  'abs',
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atanh',
  'atan2',
  'ceil',
  'clamp',
  'cos',
  'cosh',
  'countLeadingZeros',
  'countOneBits',
  'countTrailingZeros',
  'cross',
  'degrees',
  'determinant',
  'distance',
  'dot',
  'dot4U8Packed',
  'dot4I8Packed',
  'exp',
  'exp2',
  'extractBits',
  'faceForward',
  'firstLeadingBit',
  'firstTrailingBit',
  'floor',
  'fma',
  'fract',
  'frexp',
  'insertBits',
  'inverseSqrt',
  'ldexp',
  'length',
  'log',
  'log2',
  'max',
  'min',
  'mix',
  'modf',
  'normalize',
  'pow',
  'quantizeToF16',
  'radians',
  'reflect',
  'refract',
  'reverseBits',
  'round',
  'saturate',
  'sign',
  'sin',
  'sinh',
  'smoothstep',
  'sqrt',
  'step',
  'tan',
  'tanh',
  'transpose',
  'trunc',
  'dpdx',
  'dpdxCoarse',
  'dpdxFine',
  'dpdy',
  'dpdyCoarse',
  'dpdyFine',
  'fwidth',
  'fwidthCoarse',
  'fwidthFine',
  'textureDimensions',
  'textureGather',
  'textureGatherCompare',
  'textureLoad',
  'textureNumLayers',
  'textureNumLevels',
  'textureNumSamples',
  'textureSample',
  'textureSampleBias',
  'textureSampleCompare',
  'textureSampleCompareLevel',
  'textureSampleGrad',
  'textureSampleLevel',
  'textureSampleBaseClampToEdge',
  'textureStore',
  'atomicLoad',
  'atomicStore',
  'atomicAdd',
  'atomicSub',
  'atomicMax',
  'atomicMin',
  'atomicAnd',
  'atomicOr',
  'atomicXor',
  'atomicExchange',
  'atomicCompareExchangeWeak',
  'pack4x8snorm',
  'pack4x8unorm',
  'pack4xI8',
  'pack4xU8',
  'pack4xI8Clamp',
  'pack4xU8Clamp',
  'pack2x16snorm',
  'pack2x16unorm',
  'pack2x16float',
  'unpack4x8snorm',
  'unpack4x8unorm',
  'unpack4xI8',
  'unpack4xU8',
  'unpack2x16snorm',
  'unpack2x16unorm',
  'unpack2x16float',
  'storageBarrier',
  'textureBarrier',
  'workgroupBarrier',
  'workgroupUniformLoad',
  'subgroupAdd',
  'subgroupBroadcast',
  'subgroupBallot',
  'subgroupElect',
  'subgroupMax',
  'subgroupMin',
  'subgroupShuffle',
  'quadBroadcast',
  'quadSwapX',
  'quadSwapY',
  'quadSwapDiagonal',
];

const UNAVAILABLE = new Set<string>([...KEYWORDS, ...RESERVED_WORDS, ...TYPES, ...ENUMERANTS, ...BUILTIN_FUNCTIONS]);

/** Whether `name` can never be a WGSL identifier of ours (a keyword, reserved word or predeclared name). */
export function isReservedInWgsl(name: string): boolean {
  return UNAVAILABLE.has(name);
}

/**
 * The names generated code uses besides the kernel's: module-scope ones (the uniform, pools,
 * helper functions) and those of entry points and accessor functions, whose locals and
 * parameters would otherwise shadow a kernel array of the same name.
 */
const TARGET_NAMES = [
  'params',
  'Params',
  'pool_read',
  'pool_read_write',
  'group_count',
  'workgroup_id',
  'local_invocation_id',
  'local_invocation_index',
  'subgroup_invocation_id',
  'subgroup_size',
  'num_workgroups',
  'group_index',
  'group_id',
  'local_id',
  'index',
  'value',
  'word',
  'shift',
  'old_bits',
  'old_value',
  'swap',
  ...[
    'floor_div',
    'at_run_time',
    'mod',
    'pow',
    'round',
    'cbrt',
    'erf',
    'nan',
    'infinity',
    'shl',
    'shr',
    'div',
    'is_nan',
    'truthy',
    'fmod',
    'remainder',
    'maximum',
    'minimum',
    'to_i32',
    'to_u32',
    'to_bfloat16',
    ...MATH_HELPER_KINDS,
  ].flatMap((k) => ['i32', 'u32', 'f32', 'f16'].map((t) => `${k}_${t}`)),
];

export class NameTable {
  private readonly taken = new Set<string>([...UNAVAILABLE, ...TARGET_NAMES]);
  private readonly byLoomName = new Map<string, string>();

  /** The WGSL name of a Loom name: itself, or with underscores appended where it is not free. */
  of(loomName: string): string {
    const known = this.byLoomName.get(loomName);
    if (known !== undefined) return known;
    const name = this.unique(spellable(loomName));
    this.byLoomName.set(loomName, name);
    return name;
  }

  /** The entry point of a kernel: its own name where free (kernel names are apart from argument names in Loom). */
  entryPoint(kernelName: string): string {
    return this.unique(spellable(kernelName));
  }

  /** Takes `name` as it is (a user function's), unless something has it already: then false. */
  claim(name: string): boolean {
    if (this.taken.has(name)) return false;
    this.take(name);
    return true;
  }

  /** A fresh name built from `base` (`guard`, `load_flags`): `base`, else `base_1`, `base_2`... */
  fresh(base: string): string {
    const start = spellable(base);
    if (!this.taken.has(start)) return this.take(start);
    for (let k = 1; ; k++) if (!this.taken.has(`${start}_${k}`)) return this.take(`${start}_${k}`);
  }

  private unique(base: string): string {
    let name = base;
    while (this.taken.has(name)) name += '_';
    return this.take(name);
  }

  private take(name: string): string {
    this.taken.add(name);
    return name;
  }
}

/**
 * A legal WGSL identifier for a Loom name: WGSL forbids a leading `__` and the lone `_`.
 * Anything but a name is refused, never repaired: core has checked every name already.
 */
function spellable(name: string): string {
  checkInternalName(name, 'a name in the generated WGSL');
  if (name.startsWith('__')) return `v${name}`;
  return name === '_' ? 'v_' : name;
}
