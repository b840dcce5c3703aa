/**
 * Struct arrays in C (ast.ts `KernelParam.struct`): each struct a `typedef struct { ... } name;`
 * before the kernels, its fields in order, so that the C compiler lays them out as core's C
 * rules do (structs/layout.ts: natural alignment, which OpenCL C and CUDA share); a struct
 * array parameter is a pointer to it; an access is `a[element].path`.
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
import type { CDialect } from './dialect.ts';

/** The typedefs of the structs a program's parameters hold, nested ones first. */
export function structDeclarations(program: ProgramAst, dialect: CDialect, halfStorage: boolean): string[] {
  const lines: string[] = [];
  for (const s of programStructs(program)) {
    checkName(s.name, `struct '${s.name}'`, dialect);
    // the C rules are checked here too: a struct a target cannot lay out is refused, never guessed
    structLayout(s, 'c');
    lines.push('typedef struct {');
    for (const f of s.fields) {
      checkName(f.name, `field '${f.name}' of struct '${s.name}'`, dialect);
      const { element, length } = arrayOf(f.type);
      lines.push(`  ${elementType(element, dialect, halfStorage, s)} ${f.name}${length ? `[${length}]` : ''};`);
    }
    lines.push(`} ${s.name};`);
  }
  return lines;
}

function arrayOf(type: FieldType): { element: RealDType | StructDType; length?: number } {
  return typeof type === 'object' && type.kind === 'array'
    ? { element: type.element, length: type.length }
    : { element: type };
}

function elementType(
  element: RealDType | StructDType,
  dialect: CDialect,
  halfStorage: boolean,
  s: StructDType,
): string {
  if (typeof element === 'object') return element.name;
  if ((element === 'float16' && halfStorage) || element === 'bfloat16')
    throw new LoomError(
      `struct '${s.name}' has a ${element} field, which ${dialect.language} here only loads and stores through conversions (no ${element} arithmetic)`,
    );
  return dialect.type(element);
}

function checkName(name: string, what: string, dialect: CDialect): void {
  if (dialect.isReserved(name))
    throw new LoomError(`${what}: '${name}' is a reserved word of ${dialect.language}; choose another name`);
}
