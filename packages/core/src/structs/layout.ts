/**
 * Where each field of a struct lies in memory, by the rules of the language that stores it.
 *
 * - `'c'` (C, OpenCL C, CUDA, and the CPU device, which reads the bytes C would write): each
 *   real dtype aligned to its size (OpenCL fixes `long` and `double` at 8), a field at the
 *   next multiple of its alignment, a struct aligned as its most aligned field and padded to
 *   a multiple of that, an array's elements one struct (or scalar) size apart.
 * - `'wgsl-storage'` (WGSL's storage buffers, WGSL §14.4 "Memory Layout"): AlignOf and SizeOf
 *   of `i32`, `u32`, `f32` are 4, of `f16` 2; a structure's alignment is its largest member's,
 *   its members at `roundUp(AlignOf(T), end of the previous)`, its size rounded up to its
 *   alignment; `array<E, N>` strides by `roundUp(AlignOf(E), SizeOf(E))`. For these types
 *   that is the C layout exactly (the 16-byte rules are the uniform address space's, where
 *   Loom binds no array). What WGSL cannot store in a buffer (`bool`, which is not
 *   host-shareable, 8-, 16- and 64-bit integers, `f64`) is refused with the reason.
 *
 * The layout is what the host packs (host.ts) and what every target declares: a target
 * spells it, it never computes another.
 */
import { byteSize, type RealDType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { isStructDType, type FieldType, type StructDType } from './struct-dtype.ts';

/** The layout rules of a language: `'c'` (C, OpenCL, CUDA, the CPU device) or `'wgsl-storage'`. */
export type StructLayoutRules = 'c' | 'wgsl-storage';

/** Where one field lies: its offset from the struct's start, and what it holds. */
export interface FieldLayout {
  /** The field's name. */
  readonly name: string;
  /** Its first byte, from the struct's start. */
  readonly offset: number;
  /** What it holds, laid out. */
  readonly type: LaidOutType;
}

/** A field's contents laid out: a real dtype, a struct, or an array of either with its stride. */
export type LaidOutType =
  | { readonly kind: 'scalar'; readonly dtype: RealDType }
  | { readonly kind: 'struct'; readonly layout: StructLayout }
  | {
      readonly kind: 'array';
      readonly element: LaidOutElement;
      readonly length: number;
      /** Bytes from one element to the next. */
      readonly stride: number;
    };

/** An array field's element laid out: a real dtype or a struct. */
export type LaidOutElement = Extract<LaidOutType, { kind: 'scalar' } | { kind: 'struct' }>;

/** A struct dtype laid out by one language's rules: its fields' offsets, its size and alignment. */
export interface StructLayout {
  /** The struct laid out. */
  readonly dtype: StructDType;
  /** The rules that placed it. */
  readonly rules: StructLayoutRules;
  /** Bytes from one element of an array of it to the next (padding included). */
  readonly size: number;
  /** The alignment of its start. */
  readonly alignment: number;
  /** Its fields, in order. */
  readonly fields: readonly FieldLayout[];
}

const WGSL_STORABLE: ReadonlySet<RealDType> = new Set(['int32', 'uint32', 'float32', 'float16']);

const cache = new WeakMap<StructDType, Map<StructLayoutRules, StructLayout>>();

/**
 * A struct dtype's layout by a language's rules (default C's).
 * ```ts
 * const s = structDType('s', [['a', 'uint32'], ['b', 'uint64'], ['c', 'uint32']]);
 * structLayout(s).size; // 24: b at 8, c at 16, padded to a multiple of 8
 * ```
 */
export function structLayout(dtype: StructDType, rules: StructLayoutRules = 'c'): StructLayout {
  let byRules = cache.get(dtype);
  if (!byRules) cache.set(dtype, (byRules = new Map()));
  const known = byRules.get(rules);
  if (known) return known;
  let offset = 0;
  let alignment = 1;
  const fields: FieldLayout[] = [];
  for (const f of dtype.fields) {
    const type = layOut(f.type, rules, `${dtype.name}.${f.name}`);
    const a = alignmentOf(type);
    offset = roundUp(offset, a);
    fields.push(Object.freeze({ name: f.name, offset, type }));
    offset += sizeOf(type);
    alignment = Math.max(alignment, a);
  }
  const layout: StructLayout = Object.freeze({
    dtype,
    rules,
    size: roundUp(offset, alignment),
    alignment,
    fields: Object.freeze(fields),
  });
  byRules.set(rules, layout);
  return layout;
}

function layOut(type: FieldType, rules: StructLayoutRules, where: string): LaidOutType {
  if (typeof type === 'string') return scalar(type, rules, where);
  if (isStructDType(type)) return Object.freeze({ kind: 'struct', layout: structLayout(type, rules) });
  const element = (
    isStructDType(type.element)
      ? { kind: 'struct', layout: structLayout(type.element, rules) }
      : scalar(type.element, rules, where)
  ) as LaidOutElement;
  const stride = roundUp(sizeOf(element), alignmentOf(element));
  return Object.freeze({ kind: 'array', element, length: type.length, stride });
}

function scalar(dtype: RealDType, rules: StructLayoutRules, where: string): LaidOutType {
  if (rules === 'wgsl-storage' && !WGSL_STORABLE.has(dtype))
    throw new LoomError(
      `struct field ${where} is ${dtype}, which WGSL cannot hold in a storage buffer (only int32, uint32, float32 and float16)`,
    );
  return Object.freeze({ kind: 'scalar', dtype });
}

/** The bytes a laid-out field takes (an array: all its elements). */
export function sizeOf(type: LaidOutType): number {
  switch (type.kind) {
    case 'scalar':
      return byteSize(type.dtype);
    case 'struct':
      return type.layout.size;
    case 'array':
      return type.stride * type.length;
  }
}

/** The alignment a laid-out field needs. */
export function alignmentOf(type: LaidOutType): number {
  switch (type.kind) {
    case 'scalar':
      return byteSize(type.dtype);
    case 'struct':
      return type.layout.alignment;
    case 'array':
      return alignmentOf(type.element);
  }
}

const roundUp = (n: number, a: number) => Math.ceil(n / a) * a;

/** One real value inside a struct: its path of field names and array indices, its offset and dtype. */
export interface StructLeaf {
  /** Field names and, inside array fields, element indices, from the outermost struct in. */
  readonly path: readonly (string | number)[];
  /** Its first byte, from the struct's start. */
  readonly offset: number;
  /** Its dtype. */
  readonly dtype: RealDType;
}

/**
 * Every real value of a struct, in memory order, with its offset: what packing reads and writes.
 * ```ts
 * structLeaves(structLayout(s)).map((l) => l.path.join('.')); // ['a', 'b', 'c']
 * ```
 */
export function structLeaves(layout: StructLayout): readonly StructLeaf[] {
  const leaves: StructLeaf[] = [];
  const visit = (type: LaidOutType, path: (string | number)[], offset: number) => {
    switch (type.kind) {
      case 'scalar':
        leaves.push(Object.freeze({ path: Object.freeze([...path]), offset, dtype: type.dtype }));
        return;
      case 'struct':
        for (const f of type.layout.fields) visit(f.type, [...path, f.name], offset + f.offset);
        return;
      case 'array':
        for (let k = 0; k < type.length; k++) visit(type.element, [...path, k], offset + k * type.stride);
        return;
    }
  };
  visit({ kind: 'struct', layout }, [], 0);
  return Object.freeze(leaves);
}
