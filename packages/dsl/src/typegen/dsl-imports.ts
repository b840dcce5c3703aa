/**
 * Which names in a file are the DSL's: `kernel`, `domain`, `insn` and the element types
 * (`f32`, ...) imported from `@loom/dsl` (under any alias), or reached through a
 * namespace import (`loom.kernel`).
 */
import { Node, type SourceFile } from 'ts-morph';
import * as elementTypes from '../signature/element-types.ts';

export const ELEMENT_TYPES: readonly string[] = Object.keys(elementTypes);
export type DslRole = 'kernel' | 'domain' | 'insn' | keyof typeof elementTypes;
const ROLES: readonly string[] = ['kernel', 'domain', 'insn', ...ELEMENT_TYPES];
export const DSL_MODULE = '@loom/dsl';

/** The DSL function an expression names, if it names one. */
export function dslRoleOf(node: Node): DslRole | undefined {
  const file = node.getSourceFile();
  if (Node.isIdentifier(node)) return importedNames(file).get(node.getText());
  if (Node.isPropertyAccessExpression(node)) {
    const object = node.getExpression();
    const name = node.getName();
    if (Node.isIdentifier(object) && namespaceImports(file).has(object.getText()) && ROLES.includes(name)) return name as DslRole;
  }
  return undefined;
}

export function importsDsl(file: SourceFile): boolean {
  return file.getImportDeclarations().some((d) => d.getModuleSpecifierValue() === DSL_MODULE);
}

function importedNames(file: SourceFile): Map<string, DslRole> {
  const names = new Map<string, DslRole>();
  for (const declaration of file.getImportDeclarations()) {
    if (declaration.getModuleSpecifierValue() !== DSL_MODULE) continue;
    for (const specifier of declaration.getNamedImports()) {
      const imported = specifier.getName();
      if (ROLES.includes(imported)) names.set(specifier.getAliasNode()?.getText() ?? imported, imported as DslRole);
    }
  }
  return names;
}

function namespaceImports(file: SourceFile): Set<string> {
  const names = new Set<string>();
  for (const declaration of file.getImportDeclarations()) {
    const namespace = declaration.getNamespaceImport();
    if (declaration.getModuleSpecifierValue() === DSL_MODULE && namespace) names.add(namespace.getText());
  }
  return names;
}
