/**
 * Struct dtypes (numpy's structured dtypes, C's structs): named fields in order, each a real
 * dtype, a nested struct or a fixed-size array of either. A `StructDType` only describes the
 * fields; where each one lies in memory is its layout (layout.ts), computed by the rules of
 * the target that stores it, so that one description serves every target.
 */
import { isDType, isComplex, type RealDType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';

/** A fixed-size array inside a struct: `length` elements of a real dtype or a struct. */
export interface FieldArray {
  /** Tells a field array apart from a struct and from a real dtype's name. */
  readonly kind: 'array';
  /** The element: a real dtype or a struct. */
  readonly element: RealDType | StructDType;
  /** Its number of elements (at least one). */
  readonly length: number;
}

/** What a struct's field holds: a real dtype, a nested struct, or a fixed-size array of either. */
export type FieldType = RealDType | StructDType | FieldArray;

/** One named field of a struct. */
export interface StructField {
  /** The field's name, an identifier. */
  readonly name: string;
  /** What it holds. */
  readonly type: FieldType;
}

/** A struct dtype: its name (what targets call its type) and its fields, in order. */
export interface StructDType {
  /** Tells a struct apart from a field array and from a real dtype's name. */
  readonly kind: 'struct';
  /** The type's name in generated code (an identifier). */
  readonly name: string;
  /** The fields, in declaration order (the order of their offsets). */
  readonly fields: readonly StructField[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A struct dtype from its name and its fields in order, as numpy's `np.dtype([...])` takes them.
 * ```ts
 * const hit = structDType('bbhit', [['tmin', 'float32'], ['tmax', 'float32'], ['bi', 'int32'], ['hit', 'int32']]);
 * const outer = structDType('outer', [['i1', 'uint32'], ['nested', structDType('inner', [['v', 'uint64']])]]);
 * ```
 */
export function structDType(name: string, fields: readonly (readonly [string, FieldType])[]): StructDType {
  if (!IDENTIFIER.test(name)) throw new LoomError(`structDType: the name '${name}' is not an identifier`);
  if (fields.length === 0) throw new LoomError(`structDType '${name}': a struct needs at least one field`);
  const seen = new Set<string>();
  for (const [field, type] of fields) {
    if (!IDENTIFIER.test(field))
      throw new LoomError(`structDType '${name}': the field name '${field}' is not an identifier`);
    if (seen.has(field)) throw new LoomError(`structDType '${name}': the field '${field}' is named twice`);
    seen.add(field);
    checkFieldType(name, field, type);
  }
  return Object.freeze({
    kind: 'struct',
    name,
    fields: Object.freeze(fields.map(([n, type]) => Object.freeze({ name: n, type }))),
  });
}

/**
 * A field holding `length` elements of a real dtype or a struct (C's `float v[3]`).
 * ```ts
 * const particle = structDType('particle', [['position', fieldArray('float32', 3)], ['id', 'int32']]);
 * ```
 */
export function fieldArray(element: RealDType | StructDType, length: number): FieldArray {
  if (!Number.isInteger(length) || length < 1)
    throw new LoomError(`fieldArray: the length must be a positive integer, got ${length}`);
  checkElement('fieldArray', element);
  return Object.freeze({ kind: 'array', element, length });
}

/** Whether a value is a struct dtype (rather than a real or complex dtype's name). */
export const isStructDType = (t: unknown): t is StructDType =>
  typeof t === 'object' && t !== null && (t as { kind?: unknown }).kind === 'struct';

function checkFieldType(struct: string, field: string, type: FieldType): void {
  if (typeof type === 'object' && type.kind === 'array') {
    if (!Number.isInteger(type.length) || type.length < 1)
      throw new LoomError(`structDType '${struct}': the array field '${field}' needs a positive length`);
    checkElement(`structDType '${struct}', field '${field}'`, type.element);
    return;
  }
  checkElement(`structDType '${struct}', field '${field}'`, type);
}

function checkElement(where: string, element: RealDType | StructDType): void {
  if (isStructDType(element)) return;
  if (typeof element !== 'string' || !isDType(element))
    throw new LoomError(`${where}: ${String(element)} is neither a dtype nor a struct dtype`);
  // a complex field would need the complex lowering to reach inside structs; it is refused until it does
  if (isComplex(element)) throw new LoomError(`${where}: complex fields are not supported (store the parts)`);
}

/**
 * Each struct a struct uses, nested ones before the structs that hold them (the order a C or
 * WGSL declaration needs), each once. Two different structs of one name are an error.
 */
export function structsInOrder(types: Iterable<StructDType>): readonly StructDType[] {
  const order: StructDType[] = [];
  const byName = new Map<string, StructDType>();
  const visit = (s: StructDType) => {
    const known = byName.get(s.name);
    if (known) {
      if (!sameStruct(known, s))
        throw new LoomError(`two different struct dtypes are both named '${s.name}': rename one`);
      return;
    }
    byName.set(s.name, s);
    for (const f of s.fields) {
      const inner = typeof f.type === 'object' && f.type.kind === 'array' ? f.type.element : f.type;
      if (isStructDType(inner)) visit(inner);
    }
    order.push(s);
  };
  for (const s of types) visit(s);
  return order;
}

/** Whether two struct dtypes have the same name and the same fields (equal dtypes, built apart). */
export function sameStruct(a: StructDType, b: StructDType): boolean {
  return (
    a === b ||
    (a.name === b.name && a.fields.length === b.fields.length && a.fields.every((f, k) => sameField(f, b.fields[k])))
  );
}

function sameField(a: StructField, b: StructField): boolean {
  return a.name === b.name && sameType(a.type, b.type);
}

function sameType(a: FieldType, b: FieldType): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a.kind === 'array' && b.kind === 'array') return a.length === b.length && sameType(a.element, b.element);
  if (a.kind === 'struct' && b.kind === 'struct') return sameStruct(a, b);
  return false;
}
