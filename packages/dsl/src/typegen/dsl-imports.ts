/**
 * Which names in a file are the DSL's: `kernel`, `domain`, `insn` and the element types
 * (`f32`, ...) imported from `@loom/dsl` (under any alias), or reached through a
 * namespace import (`loom.kernel`); and which are @loom/computation's makers of
 * computations (`computation`, `pureParallel`).
 */
import { Node, type SourceFile } from 'ts-morph';
import * as elementTypes from '../signature/element-types.ts';

export const ELEMENT_TYPES: readonly string[] = Object.keys(elementTypes);
export type DslRole = 'kernel' | 'domain' | 'insn' | keyof typeof elementTypes;
const ROLES: readonly string[] = ['kernel', 'domain', 'insn', ...ELEMENT_TYPES];
export const DSL_MODULE = '@loom/dsl';

/** @loom/computation's functions that make a computation from a spec with `name` and `params`. */
export const COMPUTATION_MODULE = '@loom/computation';
export type ComputationMaker = 'computation' | 'pureParallel';
const MAKERS: readonly string[] = ['computation', 'pureParallel'];

/** The @loom/computation function that an expression names (`computation`, `pureParallel`), under any alias or through a namespace. */
export function computationMakerOf(node: Node): ComputationMaker | undefined {
  const file = node.getSourceFile();
  if (Node.isIdentifier(node)) {
    for (const declaration of file.getImportDeclarations()) {
      if (declaration.getModuleSpecifierValue() !== COMPUTATION_MODULE) continue;
      for (const specifier of declaration.getNamedImports()) {
        if (
          (specifier.getAliasNode()?.getText() ?? specifier.getName()) === node.getText() &&
          MAKERS.includes(specifier.getName())
        )
          return specifier.getName() as ComputationMaker;
      }
    }
    return undefined;
  }
  if (Node.isPropertyAccessExpression(node) && MAKERS.includes(node.getName())) {
    const object = node.getExpression();
    const namespaces = file
      .getImportDeclarations()
      .filter((d) => d.getModuleSpecifierValue() === COMPUTATION_MODULE && d.getNamespaceImport());
    if (Node.isIdentifier(object) && namespaces.some((d) => d.getNamespaceImport()!.getText() === object.getText()))
      return node.getName() as ComputationMaker;
  }
  return undefined;
}

/** The DSL function an expression names, if it names one. */
export function dslRoleOf(node: Node): DslRole | undefined {
  const file = node.getSourceFile();
  if (Node.isIdentifier(node)) return importedNames(file).get(node.getText());
  if (Node.isPropertyAccessExpression(node)) {
    const object = node.getExpression();
    const name = node.getName();
    if (Node.isIdentifier(object) && namespaceImports(file).has(object.getText()) && ROLES.includes(name))
      return name as DslRole;
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
