/**
 * `cInstruction(inameExprs, code, options)`: C code run as given inside the loops (loopy's
 * `CInstruction`), where the target compiles C (OpenCL, CUDA, C: `TargetFacts.cInstructions`);
 * elsewhere (WGSL, the CPU device's JavaScript) the kernel is refused before it runs. Loom
 * reads nothing of the code: what it writes (`assignees`) and reads (`readVariables`, and the
 * names in `inameExprs`) order it among the other instructions, as in loopy.
 *
 *   makeKernel('{ [i,j]: 0<=i,j<n }', [
 *     cInstruction('i,j', 'x = sin((float) i*j);', { assignees: 'x' }),
 *     'a[i,j] = x',
 *   ], [globalArg('a', { shape: 'auto', dtype: 'float32' }), temporaryVariable('x', { dtype: 'float32' }), '...'])
 */
import { LoomError } from '../errors.ts';
import { parseExpression } from '../expr/index.ts';
import { variable, type Expr } from '../expr/nodes.ts';
import type { CCode } from '../kernel/model.ts';
import { checkName } from '../names.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import type { ParsedInstruction } from './parse-instructions.ts';

/** Options of `cInstruction`: loopy's `CInstruction` keywords. */
export interface CInstructionOptions {
  /** What the code writes: expressions (`'x'`, `'out[i]'`), or one string of them separated by `;` (loopy's spelling). */
  readonly assignees?: string | readonly (string | Expr)[];
  /** The variables the code reads, or one comma-separated string of them. */
  readonly readVariables?: string | readonly string[];
  /** The instruction's id (default: chosen by makeKernel). */
  readonly id?: string;
  /** The instructions it depends on, all of them (the text's `dep=*a:b`). Absent: from what it reads and writes. */
  readonly dependsOn?: readonly string[];
  /** Conditions it runs under: expressions, or text parsed as one (`'i >= n'`). */
  readonly predicates?: readonly (Expr | string)[];
  /** The loops it runs in (loopy's `within_inames`), all of them. Absent: inferred. */
  readonly withinInames?: readonly string[];
}

const OPTIONS = optionKeys<CInstructionOptions>()([
  'assignees',
  'readVariables',
  'id',
  'dependsOn',
  'predicates',
  'withinInames',
]);

/**
 * C code as an instruction (loopy's `CInstruction`). `inameExprs` names what the code uses:
 * `'i,j'` (the inames themselves), or pairs `[name, expression]` that declare
 * `int const name = expression;` before the code.
 */
export function cInstruction(
  inameExprs: string | readonly (string | readonly [string, Expr | string])[],
  code: string,
  options: CInstructionOptions = {},
): ParsedInstruction {
  checkOptionKeys('cInstruction', options, OPTIONS);
  if (typeof code !== 'string') throw new LoomError('cInstruction: the code must be a string of C statements');
  const entries = typeof inameExprs === 'string' ? splitList(inameExprs, ',') : inameExprs;
  const bindings = entries.map((entry) => {
    const [name, value] = typeof entry === 'string' ? [entry, variable(entry)] : entry;
    checkName(name, 'cInstruction: a name of its inameExprs');
    return { name, value: typeof value === 'string' ? parseExpression(value) : value };
  });
  const assignees = (
    typeof options.assignees === 'string' ? splitList(options.assignees, ';') : (options.assignees ?? [])
  ).map((a) => (typeof a === 'string' ? parseExpression(a) : a));
  for (const a of assignees)
    if (a.kind !== 'var' && a.kind !== 'subscript')
      throw new LoomError('cInstruction: each assignee must be a variable or an array element');
  const readVariables =
    typeof options.readVariables === 'string' ? splitList(options.readVariables, ',') : (options.readVariables ?? []);
  for (const name of readVariables) checkName(name, 'cInstruction: a name of its readVariables');
  const cCode: CCode = { code: removeCommonIndentation(code), inameExprs: bindings, readVariables };
  return {
    kind: 'c',
    cCode,
    id: options.id,
    assignees,
    ...(options.withinInames ? { inames: { names: options.withinInames, additive: false } } : {}),
    dup: [],
    deps: options.dependsOn ?? [],
    depsExhaustive: options.dependsOn !== undefined,
    nosync: [],
    priority: 0,
    predicates: (options.predicates ?? []).map((p) => (typeof p === 'string' ? parseExpression(p) : p)),
    forInames: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };
}

function splitList(text: string, separator: string): string[] {
  return text
    .split(separator)
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** The code without its leading and trailing blank lines and the indentation all its lines share (loopy's). */
function removeCommonIndentation(code: string): string {
  const lines = code.replace(/\s+$/, '').split('\n');
  while (lines.length && lines[0].trim() === '') lines.shift();
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(common)).join('\n');
}
