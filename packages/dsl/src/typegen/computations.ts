/**
 * The computations of a source file that `loom typegen` types: `computation({ name, params,
 * ... })` and `pureParallel({ ... })` calls of @loom/computation whose parameter list is not
 * written in place (a const declared as `ComputationParam[]`, shared by several computations,
 * imported from another file), so that the compiler sees only `ComputationParam[]` and the
 * compiled function would take anything. Typegen evaluates the list statically, checks it as
 * the computation will (by making one with it), and registers it under the computation's name.
 * (A list written in place is typed by the compiler itself.)
 *
 * @loom/computation is an optional peer of @loom/dsl: it is loaded here only when a file makes
 * a computation that needs checking, and its absence then is an error saying what to install.
 */
import { Node, SyntaxKind, type ObjectLiteralExpression, type SourceFile } from 'ts-morph';
import { isPackageNotFound, type DType } from '@loom/core';
import { computationMakerOf } from './dsl-imports.ts';
import { NotStatic, type Evaluator } from './evaluate.ts';

/**
 * A computation's parameter as typegen registers it: @loom/computation's `ComputationParam`,
 * written out so that @loom/dsl's declarations name no type of that optional peer.
 */
export interface ComputationParam {
  readonly name: string;
  readonly role: 'i' | 'o' | 'io' | 's';
  readonly dtype: DType;
  /** Arrays only. */
  readonly shape?: readonly number[];
}

export interface FoundComputation {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly params: readonly ComputationParam[];
}

export interface ComputationScan {
  readonly computations: FoundComputation[];
  readonly notes: string[];
  readonly errors: string[];
}

/** @loom/computation's `computation`, loaded once, when first needed; undefined where it is not installed. */
let loaded: Promise<typeof import('@loom/computation') | undefined> | undefined;
function loadComputation(): Promise<typeof import('@loom/computation') | undefined> {
  loaded ??= import('@loom/computation').catch((e: unknown) => {
    if (isPackageNotFound(e, '@loom/computation')) return undefined;
    throw e;
  });
  return loaded;
}

export async function findComputations(
  file: SourceFile,
  evaluator: Evaluator,
  relative: (file: string) => string,
): Promise<ComputationScan> {
  const scan: ComputationScan = { computations: [], notes: [], errors: [] };
  for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const maker = computationMakerOf(call.getExpression());
    if (!maker) continue;
    const line = file.getLineAndColumnAtPos(call.getStart()).line;
    const where = `${relative(file.getFilePath())}:${line}`;
    const loose = (why: string) => scan.notes.push(`${where}: computation left loosely typed: ${why}`);
    const spec = call.getArguments()[0];
    if (!spec || !Node.isObjectLiteralExpression(spec)) continue; // a spec made elsewhere: nothing to read here
    const params = property(spec, 'params');
    // written in place, the list is the compiler's to type
    if (!params || Node.isArrayLiteralExpression(unwrapped(params))) continue;
    let values: unknown;
    let name: unknown;
    try {
      values = evaluator.evaluate(params);
      const nameNode = property(spec, 'name');
      name = nameNode ? evaluator.evaluate(nameNode) : undefined;
    } catch (error) {
      if (!(error instanceof NotStatic)) throw error;
      loose(notStaticReason(error, relative));
      continue;
    }
    if (typeof name !== 'string') {
      loose(`give it a name (${maker}({ name: '...', params, ... })) to have its parameters typed`);
      continue;
    }
    const library = await loadComputation();
    if (!library) {
      scan.errors.push(
        `${where}: computation '${name}' is made with @loom/computation, which is not installed: npm install @loom/computation`,
      );
      continue;
    }
    try {
      // the checks the program will make: names, roles, dtypes, shapes
      library.computation({ name, params: values as readonly ComputationParam[], buildPlan() {} });
      scan.computations.push({ name, file: file.getFilePath(), line, params: values as readonly ComputationParam[] });
    } catch (error) {
      scan.errors.push(`${where}: computation '${name}': ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return scan;
}

/** The value node of `key: value` or of a shorthand `key` in an object literal. */
function property(spec: ObjectLiteralExpression, key: string): Node | undefined {
  const found = spec.getProperty(key);
  if (found && Node.isPropertyAssignment(found)) return found.getInitializerOrThrow();
  if (found && Node.isShorthandPropertyAssignment(found)) return found.getNameNode();
  return undefined;
}

function unwrapped(node: Node): Node {
  return Node.isParenthesizedExpression(node) || Node.isAsExpression(node) || Node.isSatisfiesExpression(node)
    ? unwrapped(node.getExpression())
    : node;
}

function notStaticReason(error: NotStatic, relative: (file: string) => string): string {
  const file = error.node.getSourceFile();
  const at = file.getLineAndColumnAtPos(error.node.getStart());
  return `${error.message} (${relative(file.getFilePath())}:${at.line}:${at.column})`;
}
