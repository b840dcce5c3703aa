/**
 * Struct arrays in WGSL (core's ast.ts `KernelParam.struct`): each struct a WGSL `struct`,
 * its members in order, so that WGSL lays them out by its storage rules, which core's
 * 'wgsl-storage' layout follows (and which refuses what WGSL cannot store); a struct array is
 * bound as `array<S>` and an access is `a[element].path`.
 */
import {
  LoomError,
  programStructs,
  structLayout,
  type FieldType,
  type ProgramAst,
  type RealDType,
  type StructDType,
} from '@loom/core';
import { isReservedInWgsl, type NameTable } from './names.ts';
import { computeType } from './types.ts';

/** The WGSL names of a program's structs, by struct name, taken before any other name (a bfloat16 field refused). */
export function structNames(program: ProgramAst, names: NameTable): ReadonlyMap<string, string> {
  const structs = programStructs(program);
  // before anything lays a struct out
  for (const s of structs) for (const f of s.fields) if (holdsBfloat16(f.type)) throw bfloat16Field(s.name, f.name);
  return new Map(structs.map((s) => [s.name, names.fresh(s.name)]));
}

/** The `struct` declarations, nested structs first. */
export function structDeclarations(program: ProgramAst, structs: ReadonlyMap<string, string>): string[] {
  const lines: string[] = [];
  for (const s of programStructs(program)) {
    const layout = structLayout(s, 'wgsl-storage');
    // WebGPU binds storage in multiples of 4 bytes: an array of 2-byte structs could not be bound whole
    if (layout.size % 4 !== 0)
      throw new LoomError(
        `struct '${s.name}' takes ${layout.size} bytes, which WGSL cannot bind as a storage array (a multiple of 4 bytes): add a field`,
      );
    if (lines.length) lines.push('');
    lines.push(`struct ${structs.get(s.name)} {`);
    for (const f of s.fields) {
      if (isReservedInWgsl(f.name))
        throw new LoomError(`field '${f.name}' of struct '${s.name}' is a reserved word of WGSL; choose another name`);
      lines.push(`  ${f.name}: ${memberType(f.type, structs)},`);
    }
    lines.push('}');
  }
  return lines;
}

/**
 * Whether a field holds bfloat16 values (itself, or an array of them: a nested struct is checked
 * as a struct of its own). WGSL has no 16-bit type but f16 that a struct member could be; arrays
 * of bfloat16 are packed two to a u32 word (bindings.ts), which a member of a struct cannot be.
 */
function holdsBfloat16(type: FieldType): boolean {
  return type === 'bfloat16' || (typeof type === 'object' && type.kind === 'array' && type.element === 'bfloat16');
}

function bfloat16Field(struct: string, field: string): LoomError {
  return new LoomError(
    `field '${field}' of struct '${struct}' is bfloat16, which a WGSL struct cannot hold: WGSL has no bfloat16 type ` +
      '(bfloat16 arrays are packed two to a 32-bit word, which a struct member cannot be); use float32 or float16 fields, or a separate bfloat16 array',
  );
}

function memberType(type: FieldType, structs: ReadonlyMap<string, string>): string {
  if (typeof type === 'object' && type.kind === 'array')
    return `array<${elementType(type.element, structs)}, ${type.length}>`;
  return elementType(type, structs);
}

function elementType(element: RealDType | StructDType, structs: ReadonlyMap<string, string>): string {
  return typeof element === 'object' ? structs.get(element.name)! : computeType(element);
}
