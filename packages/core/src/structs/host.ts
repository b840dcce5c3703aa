/**
 * Struct values on the host: JS objects (`{ x: 1, y: { a: 2 }, v: [1, 2, 3] }`) packed into
 * the bytes of a layout (layout.ts) and read back, through a DataView, little-endian as every
 * device Loom runs on. 64-bit integer fields take numbers or bigints and read back as
 * bigints (as Loom's BigInt64Arrays do), float16 fields take and give numbers, bool fields
 * 0/1 (or booleans). Padding bytes are zeros.
 */
import type { RealDType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { bfloat16Bits, bfloat16Value } from '../bfloat16.ts';
import { float16Bits, float16Value } from '../float16.ts';
import type { LaidOutType, StructLayout } from './layout.ts';

/** A real value of a struct field: a number, a bigint (64-bit integers) or a boolean (bool). */
export type StructScalar = number | bigint | boolean;
/** A struct value on the host: each field by name; array fields as JS arrays. */
export interface StructValue {
  readonly [field: string]: StructScalar | StructValue | readonly (StructScalar | StructValue)[];
}

/**
 * Structs packed into the bytes of their layout, one after another (`layout.size` bytes each).
 * ```ts
 * const bytes = packStructs(structLayout(s), [{ a: 1, b: 2n, c: 3 }]);
 * ```
 */
export function packStructs(layout: StructLayout, values: readonly StructValue[]): Uint8Array {
  const bytes = new Uint8Array(layout.size * values.length);
  const view = new DataView(bytes.buffer);
  values.forEach((v, k) => writeStruct(view, k * layout.size, layout, v, `[${k}]`));
  return bytes;
}

/**
 * The structs held in bytes of a layout (an ArrayBuffer, or any view of one), as JS objects.
 * ```ts
 * const [first] = unpackStructs(structLayout(s), bytes); // { a: 1, b: 2n, c: 3 }
 * ```
 */
export function unpackStructs(layout: StructLayout, data: ArrayBuffer | ArrayBufferView): StructValue[] {
  const view =
    data instanceof ArrayBuffer ? new DataView(data) : new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.byteLength % layout.size !== 0)
    throw new LoomError(
      `unpackStructs: ${view.byteLength} bytes are not a whole number of '${layout.dtype.name}' structs (${layout.size} bytes each)`,
    );
  const out: StructValue[] = [];
  for (let at = 0; at < view.byteLength; at += layout.size) out.push(readStruct(view, at, layout));
  return out;
}

function writeStruct(view: DataView, at: number, layout: StructLayout, value: StructValue, where: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new LoomError(`packStructs: ${where} must be an object with the fields of '${layout.dtype.name}'`);
  const names = new Set(layout.fields.map((f) => f.name));
  const extra = Object.keys(value).filter((k) => !names.has(k));
  if (extra.length)
    throw new LoomError(`packStructs: ${where} has '${extra.join("', '")}', not a field of '${layout.dtype.name}'`);
  for (const f of layout.fields) {
    if (!Object.hasOwn(value, f.name))
      throw new LoomError(`packStructs: ${where} has no field '${f.name}' (struct '${layout.dtype.name}')`);
    writeField(view, at + f.offset, f.type, value[f.name], `${where}.${f.name}`);
  }
}

function writeField(view: DataView, at: number, type: LaidOutType, value: unknown, where: string): void {
  switch (type.kind) {
    case 'scalar':
      return writeScalar(view, at, type.dtype, value, where);
    case 'struct':
      return writeStruct(view, at, type.layout, value as StructValue, where);
    case 'array':
      if (!Array.isArray(value) || value.length !== type.length)
        throw new LoomError(`packStructs: ${where} must be an array of ${type.length} elements`);
      value.forEach((v, k) => writeField(view, at + k * type.stride, type.element, v, `${where}[${k}]`));
      return;
  }
}

function writeScalar(view: DataView, at: number, dtype: RealDType, value: unknown, where: string): void {
  const v = typeof value === 'boolean' ? Number(value) : value;
  if (typeof v !== 'number' && typeof v !== 'bigint')
    throw new LoomError(`packStructs: ${where} must be a number (a ${dtype} field), got ${String(value)}`);
  if (typeof v === 'bigint' && !isWide(dtype))
    throw new LoomError(`packStructs: ${where} is a ${dtype} field: pass a number, not a bigint`);
  switch (dtype) {
    case 'bool':
      return view.setUint8(at, v ? 1 : 0);
    case 'int8':
      return view.setInt8(at, Number(v));
    case 'uint8':
      return view.setUint8(at, Number(v));
    case 'int16':
      return view.setInt16(at, Number(v), true);
    case 'uint16':
      return view.setUint16(at, Number(v), true);
    case 'float16':
      return view.setUint16(at, float16Bits(Number(v)), true);
    case 'bfloat16':
      return view.setUint16(at, bfloat16Bits(Number(v)), true);
    case 'int32':
      return view.setInt32(at, Number(v), true);
    case 'uint32':
      return view.setUint32(at, Number(v), true);
    case 'float32':
      return view.setFloat32(at, Number(v), true);
    case 'float64':
      return view.setFloat64(at, Number(v), true);
    case 'int64':
      return view.setBigInt64(at, toBigInt(v, where), true);
    case 'uint64':
      return view.setBigUint64(at, toBigInt(v, where), true);
  }
}

/** Whether a dtype is a 64-bit integer, the only fields a bigint belongs in. */
const isWide = (dtype: RealDType) => dtype === 'int64' || dtype === 'uint64';

function toBigInt(v: number | bigint, where: string): bigint {
  if (typeof v === 'bigint') return v;
  if (!Number.isSafeInteger(v))
    throw new LoomError(`packStructs: ${where} is a 64-bit integer field: ${v} is not a safe integer (pass a bigint)`);
  return BigInt(v);
}

function readStruct(view: DataView, at: number, layout: StructLayout): StructValue {
  const out: Record<string, unknown> = {};
  for (const f of layout.fields) out[f.name] = readField(view, at + f.offset, f.type);
  return out as StructValue;
}

function readField(view: DataView, at: number, type: LaidOutType): unknown {
  switch (type.kind) {
    case 'scalar':
      return readScalar(view, at, type.dtype);
    case 'struct':
      return readStruct(view, at, type.layout);
    case 'array':
      return Array.from({ length: type.length }, (_, k) => readField(view, at + k * type.stride, type.element));
  }
}

function readScalar(view: DataView, at: number, dtype: RealDType): StructScalar {
  switch (dtype) {
    case 'bool':
    case 'uint8':
      return view.getUint8(at);
    case 'int8':
      return view.getInt8(at);
    case 'int16':
      return view.getInt16(at, true);
    case 'uint16':
      return view.getUint16(at, true);
    case 'float16':
      return float16Value(view.getUint16(at, true));
    case 'bfloat16':
      return bfloat16Value(view.getUint16(at, true));
    case 'int32':
      return view.getInt32(at, true);
    case 'uint32':
      return view.getUint32(at, true);
    case 'float32':
      return view.getFloat32(at, true);
    case 'float64':
      return view.getFloat64(at, true);
    case 'int64':
      return view.getBigInt64(at, true);
    case 'uint64':
      return view.getBigUint64(at, true);
  }
}
