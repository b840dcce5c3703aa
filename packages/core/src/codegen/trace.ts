/**
 * loopy's `trace_assignments` and `trace_assignment_values` (kernel options `traceAssignments`,
 * `traceAssignmentValues`): every assignment prints a line naming itself as it runs, in loopy's
 * format, `kernel.insn[gid0=1, gid1=0][lid0=3]: foo[1,3]`, followed by ` = value` when values are
 * traced. The line is a `trace` statement of the program AST; each target that `prints` spells it
 * with its own printing (printf, console.log), and a target that cannot is refused up front.
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { call, int, type Expr } from '../expr/nodes.ts';
import { assigneeName, soleAssignee } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { INDEX_DTYPE } from '../kernel/type-inference.ts';
import type { Stmt } from './ast.ts';
import type { Grid } from './hardware.ts';
import type { Target } from './target.ts';
import type { TargetFacts } from './target-facts.ts';

/** Whether the kernel's assignments are traced, and how: `'before'` each one runs, or `'after'` it, with its value. */
export function tracing(knl: LoopKernel): 'before' | 'after' | undefined {
  if (knl.options.traceAssignmentValues) return 'after';
  return knl.options.traceAssignments ? 'before' : undefined;
}

/** A LoomError, before any code is built, when the kernel traces its assignments and the target cannot print. */
export function checkTracing(knl: LoopKernel, target: Target | undefined, facts: TargetFacts | undefined): void {
  if (!tracing(knl) || !target || facts?.prints) return;
  const option = knl.options.traceAssignmentValues ? 'traceAssignmentValues' : 'traceAssignments';
  throw new LoomError(
    `kernel '${knl.name}' has the option ${option}, but the ${target.name} target's code cannot print; the targets whose code prints (OpenCL, CUDA, C and the CPU device's JavaScript) can trace`,
  );
}

/**
 * The assignment `assign` of `insn` with its trace line: before it (print first, as loopy does,
 * so that the last line names an assignment that crashed), or after it with the value written.
 * `indices`: the assignee's indices as the code reads them; `written`: the element written, as
 * the code reads it, and its dtype.
 */
export function traced(
  knl: LoopKernel,
  insn: Instruction,
  grid: Grid,
  assign: Stmt,
  indices: readonly Expr[],
  written: { readonly value: Expr; readonly dtype: DType },
): Stmt[] {
  const when = tracing(knl);
  if (!when) return [assign];
  const ids = (fn: 'gid' | 'lid', axes: number) =>
    Array.from({ length: axes }, (_, k) => ({ text: `${fn}${k}=`, value: call(fn, [int(k)]) }));
  const parts: { text: string; value?: Expr; dtype?: DType }[] = [
    { text: `${knl.name}.${insn.id}[` },
    ...joined(ids('gid', grid.groupCount.length), ', '),
    { text: '][' },
    ...joined(ids('lid', grid.localSize.length), ', '),
    { text: `]: ${assigneeName(soleAssignee(insn))}` },
    ...(indices.length ? [{ text: '[' }, ...joined(indices.map((value) => ({ text: '', value }))), { text: ']' }] : []),
    ...(when === 'after' ? [{ text: ' = ', ...written }] : []),
  ];
  const pieces = [''];
  const values: { value: Expr; dtype: DType }[] = [];
  for (const p of parts) {
    pieces[pieces.length - 1] += p.text;
    if (p.value === undefined) continue;
    values.push({ value: p.value, dtype: p.dtype ?? INDEX_DTYPE });
    pieces.push('');
  }
  const trace: Stmt = { kind: 'trace', pieces, values, insnId: insn.id };
  return when === 'after' ? [assign, trace] : [trace, assign];
}

/** The parts separated by `separator` (loopy's `gid0=%d, gid1=%d` and `[%d,%d]`). */
function joined(parts: readonly { text: string; value: Expr }[], separator = ','): { text: string; value?: Expr }[] {
  return parts.flatMap((p, k) => (k === 0 ? [p] : [{ text: separator }, p]));
}
