/**
 * The kernels of a source file that `loom typegen` types: `kernel(...)` calls whose
 * domains or instructions are `domain`/`insn` templates. (Kernels written as literal
 * strings are typed by the compiler itself.) Each is evaluated statically and built with
 * the DSL, exactly as the program will build it.
 */
import { Node, SyntaxKind, type CallExpression, type SourceFile } from 'ts-morph';
import type { LoopKernel } from '@loom/core';
import { kernel, type Domains, type Instructions } from '../builder/kernel.ts';
import type { KernelBuilderOptions } from '../builder/options.ts';
import { Fragment } from '../template/fragments.ts';
import { dslRoleOf } from './dsl-imports.ts';
import { NotStatic, type Evaluator, type StaticValue } from './evaluate.ts';

export interface FoundKernel {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly kernel: LoopKernel;
}

/** What typegen says about a file: kernels found, and notes about those it had to leave loose. */
export interface FileScan {
  readonly kernels: FoundKernel[];
  readonly notes: string[];
  readonly errors: string[];
}

export function findKernels(file: SourceFile, evaluator: Evaluator, relative: (file: string) => string): FileScan {
  const scan: FileScan = { kernels: [], notes: [], errors: [] };
  for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    if (dslRoleOf(call.getExpression()) !== 'kernel') continue;
    const line = file.getLineAndColumnAtPos(call.getStart()).line;
    const where = `${relative(file.getFilePath())}:${line}`;
    const loose = (why: string) => scan.notes.push(`${where}: kernel left loosely typed: ${why}`);
    const [domains, instructions, options] = call.getArguments();
    let texts: StaticValue[];
    try {
      texts = [domains, instructions].map((n) => (n ? evaluator.evaluate(n) : undefined));
    } catch (error) {
      if (!(error instanceof NotStatic)) throw error;
      // a kernel of computed strings is no template kernel: only say something about templates
      if (writesTemplates(call)) loose(notStaticReason(error, relative));
      continue;
    }
    if (!texts.some(containsFragment)) continue;
    let name: unknown;
    try {
      name = options ? (evaluator.evaluate(options) as { name?: unknown } | undefined)?.name : undefined;
    } catch (error) {
      if (!(error instanceof NotStatic)) throw error;
      loose(notStaticReason(error, relative));
      continue;
    }
    if (typeof name !== 'string') {
      loose("give it a name (kernel(..., ..., { name: '...' })) to have it typed");
      continue;
    }
    try {
      const built = kernel(
        texts[0] as Domains,
        texts[1] as Instructions,
        evaluator.evaluate(options!) as KernelBuilderOptions,
      ).kernel;
      scan.kernels.push({ name, file: file.getFilePath(), line, kernel: built });
    } catch (error) {
      scan.errors.push(
        `${where}: kernel '${name}' does not build: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return scan;
}

function notStaticReason(error: NotStatic, relative: (file: string) => string): string {
  const file = error.node.getSourceFile();
  const at = file.getLineAndColumnAtPos(error.node.getStart());
  return `${error.message} (${relative(file.getFilePath())}:${at.line}:${at.column})`;
}

/** Whether the call's domains or instructions are written with DSL templates. */
function writesTemplates(call: CallExpression): boolean {
  return call
    .getArguments()
    .slice(0, 2)
    .some((argument) =>
      [argument, ...argument.getDescendants()].some(
        (n) => Node.isTaggedTemplateExpression(n) && dslRoleOf(n.getTag()) !== undefined,
      ),
    );
}

function containsFragment(value: StaticValue): boolean {
  if (value instanceof Fragment) return true;
  return Array.isArray(value) && value.some(containsFragment);
}
