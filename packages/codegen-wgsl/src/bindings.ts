/**
 * Where a program's arguments live on the GPU, decided once for the code generator (which
 * declares and reads them) and the device (which binds buffers and fills the uniform).
 *
 * Arrays are storage buffers, one binding each, `read` for inputs and `read_write` for
 * what a kernel writes, holding their elements as `array<f32>`, `array<i32>`, `array<u32>`
 * or `array<f16>`. An array whose `vec` axis has 2 or 4 lanes of a 32-bit dtype is held as
 * vectors, `array<vec4<f32>>` (the same bytes: the host still passes 4n elements), so
 * that a whole vector is one load or store; a `vec3` would not do, its stride in a storage
 * array is that of a `vec4`. Three cases need more:
 *
 *   - 8- and 16-bit dtypes (bool, int8, uint8, int16, uint16, bfloat16): WGSL's storage buffers have
 *     no such types. They are *packed*, four (or two) to a 32-bit word, exactly as the host
 *     holds them, so a device buffer is byte for byte the host array: uploads, downloads and
 *     `DeviceArray`s need no conversion. Reading unpacks with `extractBits`; writing uses
 *     `atomicAnd`/`atomicOr` on the word, since other invocations may be writing its other
 *     bytes at the same time (the words are `atomic<u32>` where the array is written).
 *   - arrays updated by an atomic instruction or fetch: `atomic<i32>`/`atomic<u32>` for int32/uint32,
 *     and float32's bits in `atomic<u32>`, updated by a compare-and-swap loop.
 *   - more arrays than `maxStorageBuffersPerShaderStage`: the last ones are *pooled*: copied
 *     into one shared buffer per access mode (`pool_read`, `pool_read_write`) before the
 *     launch and the written ones back after it; each sits at a word offset given in the
 *     uniform, and is read and written as packed words like the narrow types.
 *
 * Value arguments are gathered in one uniform struct (`params`), 4 bytes each (i32, u32 or
 * f32; bool as u32, float16 as f32, bfloat16 as the f32 of its value), with the pools' offsets and, for a folded grid
 * (`limits.ts`), the grid's size.
 */
import {
  InternalError,
  isAtomicFunction,
  LoomError,
  statementsOfKind,
  type DType,
  type KernelParam,
  type ProgramAst,
} from '@loom/core';
import type { NameTable } from './names.ts';
import { computeType, packedBits } from './types.ts';

/** Dtypes of arrays held as vectors: 32-bit ones (a `vec4<f16>` would need its own alignment rules). */
export const VECTOR_ELEMENTS: ReadonlySet<DType> = new Set(['float32', 'int32', 'uint32']);

/** The bytes of one element of a storage binding: what its buffer's size must be a multiple of. */
export function elementBytes(s: StorageBinding): number {
  const vector = /^vec(\d)</.exec(s.element);
  return vector ? 4 * Number(vector[1]) : 4;
}

/** One `@group(0) @binding(k) var<storage, ...>` declaration. */
export interface StorageBinding {
  readonly binding: number;
  /** The WGSL variable. */
  readonly name: string;
  readonly access: 'read' | 'read_write';
  /** `f32`, `i32`, `u32`, `f16`, `atomic<u32>`, `atomic<i32>`, `vec4<f32>`, ... */
  readonly element: string;
  /** The Loom arrays it holds: one, or several for a pool. */
  readonly arrays: readonly string[];
  readonly pool: boolean;
}

/** How one array argument is reached. */
export interface ArrayPlacement {
  readonly name: string;
  readonly dtype: DType;
  readonly written: boolean;
  readonly storage: StorageBinding;
  /**
   * `native`: `storage[i]` is the element (atomically accessed when `storage.element` is atomic);
   * `words`: elements of `bits` bits packed in 32-bit words, reached through accessor functions;
   * `vector`: `storage[i]` is a vector of `lanes` elements, element `lanes*i + k` its lane k.
   */
  readonly access:
    | { readonly kind: 'native' }
    | { readonly kind: 'words'; readonly bits: 8 | 16 | 32 }
    | { readonly kind: 'vector'; readonly lanes: 2 | 4 };
  /** Some instruction updates it atomically. */
  readonly atomicUpdates: boolean;
  /** For a pooled array: the uniform member holding its first word's index in the pool. */
  readonly offsetMember?: string;
}

export type UniformSource =
  | { readonly kind: 'value'; readonly param: string; readonly dtype: DType }
  | { readonly kind: 'pool-offset'; readonly array: string }
  | { readonly kind: 'group-count' };

export interface UniformMember {
  readonly name: string;
  /** `i32`, `u32`, `f32` or `vec3<u32>`. */
  readonly type: string;
  /** Byte offset in the struct (WGSL's uniform layout rules). */
  readonly offset: number;
  readonly source: UniformSource;
}

export interface UniformLayout {
  readonly binding: number;
  readonly variable: string;
  readonly struct: string;
  readonly members: readonly UniformMember[];
  /** Bytes, a multiple of 16. */
  readonly size: number;
}

/**
 * An image argument (`KernelParam.image`): a sampled texture of one 32-bit channel, bound after
 * the storage buffers and read with `textureLoad`; the device fills it from the buffer the host
 * passed, before each launch (launches.ts).
 */
export interface TextureBinding {
  readonly binding: number;
  /** The WGSL variable. */
  readonly name: string;
  /** The Loom argument. */
  readonly array: string;
  readonly dtype: DType;
  /** 2 or 3 axes: `texture_2d` or `texture_3d`. */
  readonly dimensions: 2 | 3;
  /** The texel type the shader reads: `f32`, `i32` or `u32`. */
  readonly texel: 'f32' | 'i32' | 'u32';
  /** The texture's format, which the device creates it with. */
  readonly format: 'r32float' | 'r32sint' | 'r32uint';
}

export interface ModuleLayout {
  readonly arrays: ReadonlyMap<string, ArrayPlacement>;
  readonly storage: readonly StorageBinding[];
  /** The image arguments, by name. */
  readonly textures: ReadonlyMap<string, TextureBinding>;
  readonly uniform?: UniformLayout;
  /** The program's array and value arguments, by name (the union over its kernels). */
  readonly params: ReadonlyMap<string, KernelParam>;
}

export interface LayoutOptions {
  readonly maxStorageBuffers: number;
  /** The grid is folded: the uniform carries its size. */
  readonly foldedGrid: boolean;
  /** The WGSL names of the struct dtypes of struct arrays (structs.ts), by struct name. */
  readonly structs?: ReadonlyMap<string, string>;
}

export function layoutModule(program: ProgramAst, names: NameTable, options: LayoutOptions): ModuleLayout {
  const params = programParams(program);
  const atomicTargets = atomicallyUpdated(program);
  const arrays = [...params.values()].filter((p) => p.kind !== 'value' && !p.image);
  const pooled = choosePooled(arrays, atomicTargets, options.maxStorageBuffers);
  for (const p of arrays)
    if (p.struct && (pooled.has(p.name) || atomicTargets.has(p.name)))
      throw new LoomError(
        `the array of structs '${p.name}' needs a storage binding of its own (no atomic updates), which the device's maxStorageBuffersPerShaderStage (${options.maxStorageBuffers}) does not leave it`,
      );

  const storage: StorageBinding[] = [];
  const placements = new Map<string, ArrayPlacement>();
  for (const p of arrays.filter((a) => !pooled.has(a.name))) {
    const atomic = atomicTargets.has(p.name);
    const { element, access } = p.struct
      ? { element: options.structs!.get(p.struct.name)!, access: { kind: 'native' } as const }
      : ownBindingElement(p, atomic);
    const binding: StorageBinding = {
      binding: storage.length,
      name: names.of(p.name),
      access: p.written ? 'read_write' : 'read',
      element,
      arrays: [p.name],
      pool: false,
    };
    storage.push(binding);
    placements.set(p.name, {
      name: p.name,
      dtype: p.dtype,
      written: p.written,
      storage: binding,
      access,
      atomicUpdates: atomic,
    });
  }

  const offsetMembers = new Map<string, string>();
  for (const access of ['read', 'read_write'] as const) {
    const members = arrays.filter((a) => pooled.has(a.name) && (a.written ? 'read_write' : 'read') === access);
    if (members.length === 0) continue;
    // narrow elements are written with atomicAnd/atomicOr, which need atomic words
    const atomic =
      access === 'read_write' && members.some((m) => packedBits(m.dtype) !== undefined || m.dtype === 'float16');
    const binding: StorageBinding = {
      binding: storage.length,
      name: `pool_${access}`,
      access,
      element: atomic ? 'atomic<u32>' : 'u32',
      arrays: members.map((m) => m.name),
      pool: true,
    };
    storage.push(binding);
    for (const m of members) {
      const offsetMember = names.fresh(`offset_${names.of(m.name)}`);
      offsetMembers.set(m.name, offsetMember);
      const bits = packedBits(m.dtype) ?? (m.dtype === 'float16' ? 16 : 32);
      placements.set(m.name, {
        name: m.name,
        dtype: m.dtype,
        written: m.written,
        storage: binding,
        access: { kind: 'words', bits },
        atomicUpdates: false,
        offsetMember,
      });
    }
  }

  const textures = new Map<string, TextureBinding>();
  for (const p of params.values()) {
    if (!p.image) continue;
    textures.set(p.name, {
      binding: storage.length + textures.size,
      name: names.of(p.name),
      array: p.name,
      dtype: p.dtype,
      dimensions: p.image.shape.length as 2 | 3,
      ...textureFormat(p),
    });
  }
  const uniform = layoutUniform(params, offsetMembers, names, storage.length + textures.size, options.foldedGrid);
  return { arrays: placements, storage, textures, uniform, params };
}

/** The texel type and format of an image of `p`'s dtype (core's kernel/images.ts lists the dtypes). */
function textureFormat(p: KernelParam): Pick<TextureBinding, 'texel' | 'format'> {
  switch (p.dtype) {
    case 'float32':
      return { texel: 'f32', format: 'r32float' };
    case 'int32':
      return { texel: 'i32', format: 'r32sint' };
    case 'uint32':
      return { texel: 'u32', format: 'r32uint' };
    default:
      throw new InternalError(`image '${p.name}' of dtype ${p.dtype} reached the WGSL layout`);
  }
}

/** The arguments of every kernel of the program, once each (a later kernel may write what an earlier one reads). */
function programParams(program: ProgramAst): Map<string, KernelParam> {
  const params = new Map<string, KernelParam>();
  for (const k of program.kernels) {
    for (const p of k.params) {
      const seen = params.get(p.name);
      if (seen && seen.dtype !== p.dtype)
        throw new InternalError(`argument '${p.name}' has dtypes ${seen.dtype} and ${p.dtype} in one program`);
      params.set(p.name, seen ? { ...seen, written: seen.written || p.written } : p);
    }
  }
  return params;
}

/** Arrays that some instruction updates atomically: an `{atomic}` update's target, an atomic fetch's element. */
function atomicallyUpdated(program: ProgramAst): Set<string> {
  const found = new Set<string>();
  // a callee's device function updates the kernels' bindings too
  for (const k of [...program.kernels, ...(program.deviceFunctions ?? [])]) {
    for (const s of statementsOfKind(k.body, 'assign')) {
      if (s.atomic && s.target.kind === 'subscript') found.add(s.target.array);
      const fetched = s.value.kind === 'call' && isAtomicFunction(s.value.fn) ? s.value.args[0] : undefined;
      if (fetched?.kind === 'subscript') found.add(fetched.array);
    }
  }
  return found;
}

function ownBindingElement(p: KernelParam, atomic: boolean): Pick<ArrayPlacement, 'access'> & { element: string } {
  const bits = packedBits(p.dtype);
  if (atomic) {
    switch (p.dtype) {
      case 'int32':
        return { element: 'atomic<i32>', access: { kind: 'native' } };
      case 'uint32':
        return { element: 'atomic<u32>', access: { kind: 'native' } };
      case 'float32':
        return { element: 'atomic<u32>', access: { kind: 'words', bits: 32 } };
      default:
        throw new LoomError(
          `array '${p.name}' is updated atomically, but WGSL has atomic updates only for int32, uint32 and float32 arrays, not ${p.dtype}`,
        );
    }
  }
  if (bits !== undefined) return { element: p.written ? 'atomic<u32>' : 'u32', access: { kind: 'words', bits } };
  const lanes = p.vectorWidth;
  if ((lanes === 2 || lanes === 4) && VECTOR_ELEMENTS.has(p.dtype))
    return { element: `vec${lanes}<${computeType(p.dtype)}>`, access: { kind: 'vector', lanes } };
  switch (p.dtype) {
    case 'float32':
      return { element: 'f32', access: { kind: 'native' } };
    case 'float16':
      return { element: 'f16', access: { kind: 'native' } };
    case 'int32':
      return { element: 'i32', access: { kind: 'native' } };
    case 'uint32':
      return { element: 'u32', access: { kind: 'native' } };
    default:
      throw new InternalError(`array '${p.name}' of dtype ${p.dtype} reached the WGSL layout`);
  }
}

/**
 * Which arrays share pools when there are more than `limit` storage bindings: as few as
 * possible, from the end of the argument list, never one that is updated atomically.
 */
function choosePooled(arrays: readonly KernelParam[], atomic: ReadonlySet<string>, limit: number): Set<string> {
  if (arrays.length <= limit) return new Set();
  const candidates = arrays.filter((a) => !atomic.has(a.name)).reverse();
  for (let count = 1; count <= candidates.length; count++) {
    const chosen = candidates.slice(0, count);
    const pools = new Set(chosen.map((a) => a.written)).size;
    if (arrays.length - count + pools <= limit) return new Set(chosen.map((a) => a.name));
  }
  throw new LoomError(
    `the kernel has ${arrays.length} array arguments, ${atomic.size} of them updated atomically, more than fit the device's maxStorageBuffersPerShaderStage (${limit})`,
  );
}

function layoutUniform(
  params: ReadonlyMap<string, KernelParam>,
  offsetMembers: ReadonlyMap<string, string>,
  names: NameTable,
  binding: number,
  folded: boolean,
): UniformLayout | undefined {
  const members: UniformMember[] = [];
  let offset = 0;
  for (const p of params.values()) {
    if (p.kind !== 'value') continue;
    members.push({
      name: names.of(p.name),
      type: uniformScalar(p.dtype),
      offset,
      source: { kind: 'value', param: p.name, dtype: p.dtype },
    });
    offset += 4;
  }
  for (const [array, name] of offsetMembers) {
    members.push({ name, type: 'u32', offset, source: { kind: 'pool-offset', array } });
    offset += 4;
  }
  if (folded) {
    offset = roundUp(offset, 16); // a vec3 is 16-byte aligned
    members.push({ name: 'group_count', type: 'vec3<u32>', offset, source: { kind: 'group-count' } });
    offset += 12;
  }
  if (members.length === 0) return undefined;
  return { binding, variable: 'params', struct: 'Params', members, size: roundUp(offset, 16) };
}

/**
 * How a value argument of `dtype` travels in the uniform (float16 as f32: uniforms of f16 need more
 * care; bfloat16 as the f32 of its value, rounded to bfloat16 by the host: launches.ts).
 */
export function uniformScalar(dtype: DType): 'i32' | 'u32' | 'f32' {
  switch (dtype) {
    case 'bool':
    case 'uint32':
      return 'u32';
    case 'float16':
    case 'bfloat16':
    case 'float32':
      return 'f32';
    case 'int8':
    case 'int16':
    case 'int32':
    case 'uint8':
    case 'uint16':
      return 'i32';
    default:
      throw new InternalError(`a ${dtype} value argument reached the WGSL layout`);
  }
}

export function roundUp(n: number, multiple: number): number {
  return Math.ceil(n / multiple) * multiple;
}
