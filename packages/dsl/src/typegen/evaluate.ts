/**
 * Static evaluation: the value an expression in a source file will have, worked out
 * without running the file, for the arguments of `kernel(...)` calls.
 *
 * What can be evaluated: literals (numbers, bigints, strings, plain templates), `-x`,
 * `+ - * /` on numbers and `+` on strings, arrays, object literals, `as`/`satisfies`/
 * parentheses, `domain`/`insn` templates (through the DSL's own tags, so the text is
 * exactly what the program builds), argument declarations (`f32('n')`, through the DSL's
 * own element types), and names bound by `const` to any of these — in the
 * same file, or imported from a relative module. Anything else (a function call, a
 * `let`, a parameter) is not static: `NotStatic` says where, and the kernel stays typed
 * loosely.
 */
import path from 'node:path';
import {
  Node,
  SyntaxKind,
  VariableDeclarationKind,
  type CallExpression,
  type Identifier,
  type Project,
  type SourceFile,
  type TaggedTemplateExpression,
} from 'ts-morph';
import { fragmentAt } from '../template/tags.ts';
import type { Fragment } from '../template/fragments.ts';
import * as elementTypes from '../signature/element-types.ts';
import { dslRoleOf, ELEMENT_TYPES } from './dsl-imports.ts';

export type StaticValue =
  | number
  | bigint
  | string
  | boolean
  | undefined
  | Fragment
  | readonly StaticValue[]
  | { readonly [key: string]: StaticValue };

export class NotStatic extends Error {
  constructor(
    readonly node: Node,
    why: string,
  ) {
    super(why);
  }
}

export class Evaluator {
  /** Names being evaluated, to stop on `const a = b, b = a`. */
  readonly #active = new Set<Node>();

  constructor(private readonly project: Project) {}

  evaluate(node: Node): StaticValue {
    if (
      Node.isParenthesizedExpression(node) ||
      Node.isAsExpression(node) ||
      Node.isSatisfiesExpression(node) ||
      Node.isTypeAssertion(node) ||
      Node.isNonNullExpression(node)
    ) {
      return this.evaluate(node.getExpression());
    }
    if (Node.isNumericLiteral(node)) return node.getLiteralValue();
    if (Node.isBigIntLiteral(node)) return BigInt(node.getText().slice(0, -1).replaceAll('_', ''));
    if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node)) return node.getLiteralValue();
    if (Node.isTrueLiteral(node)) return true;
    if (Node.isFalseLiteral(node)) return false;
    if (Node.isTemplateExpression(node)) {
      return node
        .getTemplateSpans()
        .reduce<string>(
          (text, span) => text + String(this.evaluate(span.getExpression())) + span.getLiteral().getLiteralText(),
          node.getHead().getLiteralText(),
        );
    }
    if (Node.isPrefixUnaryExpression(node)) {
      const value = this.evaluate(node.getOperand());
      if (typeof value === 'number' && node.getOperatorToken() === SyntaxKind.MinusToken) return -value;
      if (typeof value === 'number' && node.getOperatorToken() === SyntaxKind.PlusToken) return value;
      throw new NotStatic(node, 'only numbers can be negated statically');
    }
    if (Node.isBinaryExpression(node))
      return this.binary(node.getOperatorToken().getKind(), node.getLeft(), node.getRight(), node);
    if (Node.isArrayLiteralExpression(node)) {
      return node.getElements().map((e) => {
        if (Node.isSpreadElement(e)) throw new NotStatic(e, 'spread elements are not evaluated');
        return this.evaluate(e);
      });
    }
    if (Node.isObjectLiteralExpression(node)) return this.object(node);
    if (Node.isTaggedTemplateExpression(node)) return this.template(node);
    if (Node.isCallExpression(node)) return this.declaration(node);
    if (Node.isIdentifier(node)) return node.getText() === 'undefined' ? undefined : this.identifier(node);
    throw new NotStatic(node, `'${node.getText().slice(0, 40)}' is not a literal, a template or a const`);
  }

  private binary(operator: SyntaxKind, leftNode: Node, rightNode: Node, node: Node): StaticValue {
    const left = this.evaluate(leftNode);
    const right = this.evaluate(rightNode);
    if (operator === SyntaxKind.PlusToken && (typeof left === 'string' || typeof right === 'string'))
      return String(left) + String(right);
    if (typeof left === 'number' && typeof right === 'number') {
      switch (operator) {
        case SyntaxKind.PlusToken:
          return left + right;
        case SyntaxKind.MinusToken:
          return left - right;
        case SyntaxKind.AsteriskToken:
          return left * right;
        case SyntaxKind.SlashToken:
          return left / right;
        default:
          break;
      }
    }
    throw new NotStatic(node, `'${node.getText().slice(0, 40)}' is not evaluated statically`);
  }

  private object(node: Node & { getProperties(): Node[] }): StaticValue {
    const result: Record<string, StaticValue> = {};
    for (const property of node.getProperties()) {
      if (Node.isPropertyAssignment(property)) {
        const name = property.getNameNode();
        const key =
          Node.isIdentifier(name) || Node.isStringLiteral(name) || Node.isNumericLiteral(name)
            ? String(Node.isIdentifier(name) ? name.getText() : name.getLiteralValue())
            : undefined;
        if (key === undefined) throw new NotStatic(property, 'computed property names are not evaluated');
        result[key] = this.evaluate(property.getInitializerOrThrow());
      } else if (Node.isShorthandPropertyAssignment(property)) {
        result[property.getName()] = this.identifier(property.getNameNode());
      } else {
        throw new NotStatic(property, 'only plain properties are evaluated');
      }
    }
    return result;
  }

  /** A `domain`/`insn` template, built by the DSL's tags with its position in the file. */
  private template(node: TaggedTemplateExpression): StaticValue {
    const kind = dslRoleOf(node.getTag());
    if (kind !== 'domain' && kind !== 'insn')
      throw new NotStatic(node, `'${node.getTag().getText()}' is not the DSL's domain or insn tag`);
    const literal = node.getTemplate();
    const raw: string[] = [];
    const values: StaticValue[] = [];
    if (Node.isNoSubstitutionTemplateLiteral(literal)) raw.push(rawText(literal));
    else {
      raw.push(rawText(literal.getHead()));
      for (const span of literal.getTemplateSpans()) {
        values.push(this.evaluate(span.getExpression()));
        raw.push(rawText(span.getLiteral()));
      }
    }
    const file = node.getSourceFile();
    const site = { file: file.getFilePath(), ...file.getLineAndColumnAtPos(node.getTag().getStart()) };
    return fragmentAt(kind, raw, values, site);
  }

  /** An argument declaration, `f32('n')`, `f32.out('n')` or `i32.value()`, made by the DSL itself. */
  private declaration(node: CallExpression): StaticValue {
    const callee = node.getExpression();
    const [type, verb] =
      Node.isPropertyAccessExpression(callee) && ['out', 'inout', 'value'].includes(callee.getName())
        ? [callee.getExpression(), callee.getName()]
        : [callee, undefined];
    const role = dslRoleOf(type);
    if (!role || !ELEMENT_TYPES.includes(role))
      throw new NotStatic(
        node,
        `'${node.getText().slice(0, 40)}' is a call: only the DSL's element types (f32('n'), ...) are evaluated`,
      );
    const elementType = elementTypes[role as keyof typeof elementTypes] as unknown as Record<
      string,
      (...args: unknown[]) => StaticValue
    > &
      ((...args: unknown[]) => StaticValue);
    const args = node.getArguments().map((a) => this.evaluate(a));
    return verb ? elementType[verb](...args) : elementType(...args);
  }

  /** A name bound by `const` in an enclosing scope of this file, or imported from a relative module. */
  private identifier(node: Identifier): StaticValue {
    const name = node.getText();
    const declaration = constDeclarationInScope(node, name);
    if (declaration) return this.guarded(declaration, () => this.evaluate(declaration.getInitializerOrThrow()));
    const imported = this.importedConst(node.getSourceFile(), name);
    if (imported) return this.guarded(imported, () => this.evaluate(imported.getInitializerOrThrow()));
    throw new NotStatic(node, `'${name}' is not a const with a static value`);
  }

  private guarded<T>(node: Node, fn: () => T): T {
    if (this.#active.has(node)) throw new NotStatic(node, 'the value refers to itself');
    this.#active.add(node);
    try {
      return fn();
    } finally {
      this.#active.delete(node);
    }
  }

  /** `import { name } from './fragments.ts'`: the exported const in that file. */
  private importedConst(file: SourceFile, name: string) {
    for (const declaration of file.getImportDeclarations()) {
      const specifier = declaration.getModuleSpecifierValue();
      if (!specifier.startsWith('.')) continue;
      const imported = declaration.getNamedImports().find((n) => (n.getAliasNode()?.getText() ?? n.getName()) === name);
      if (!imported) continue;
      const target = this.resolve(file, specifier);
      const exported = target?.getVariableDeclaration(imported.getName());
      if (exported && exported.getVariableStatement()?.isExported() && isConst(exported)) return exported;
    }
    return undefined;
  }

  private resolve(from: SourceFile, specifier: string): SourceFile | undefined {
    const base = path.resolve(path.dirname(from.getFilePath()), specifier);
    const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')];
    for (const candidate of candidates) {
      const found = this.project.getSourceFile(candidate) ?? this.project.addSourceFileAtPathIfExists(candidate);
      if (found) return found;
    }
    return undefined;
  }
}

function rawText(node: Node): string {
  const raw = (node.compilerNode as { rawText?: string }).rawText;
  return raw ?? node.getText().slice(1, -1);
}

function isConst(declaration: Node): boolean {
  return (
    declaration.getParentIfKind(SyntaxKind.VariableDeclarationList)?.getDeclarationKind() ===
    VariableDeclarationKind.Const
  );
}

/** The innermost `const name = ...` whose scope holds `use`. */
function constDeclarationInScope(use: Node, name: string) {
  for (let scope: Node | undefined = use.getParent(); scope; scope = scope.getParent()) {
    if (!Node.isBlock(scope) && !Node.isSourceFile(scope) && !Node.isModuleBlock(scope) && !Node.isCaseClause(scope))
      continue;
    for (const statement of scope.getChildSyntaxList()?.getChildren() ?? []) {
      if (!Node.isVariableStatement(statement)) continue;
      const declaration = statement.getDeclarations().find((d) => d.getName() === name);
      if (declaration) return isConst(declaration) && declaration.hasInitializer() ? declaration : undefined;
    }
  }
  return undefined;
}
