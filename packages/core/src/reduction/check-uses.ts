/**
 * Reductions as an instruction uses them, checked when the kernel is made: each names a
 * known operation with as many values as it takes, and a reduction with several results
 * (`argmax`: value and index) stands alone on the right of a multiple assignment with one
 * target per result, `v, k = argmax(i, a[i], i)`; every other instruction has one target.
 */
import { LoomError, type SourceSpan } from '../errors.ts';
import { printExpr, walk } from '../expr/index.ts';
import type { Expr, Reduce } from '../expr/nodes.ts';
import type { Instruction } from '../kernel/model.ts';
import { findReductionOperation, reductionNames, reductionOperation, type ReductionOperation } from './index.ts';

/** `expressions`: what the instruction evaluates, its value first (as `readExpressions` lists them). */
export function checkReductionUses(
  insn: Instruction,
  expressions: readonly Expr[],
  spanOf: (word: string) => SourceSpan | undefined,
): void {
  const top = insn.expression && expressions[0]?.kind === 'reduce' ? expressions[0] : undefined;
  // a nest of one operation of several values (`argmax(i, argmax(j, a[i, j], j))`): the inner
  // reduction's results are the outer one's values, so each stands where a tuple may
  const nest = new Set<Expr>();
  for (let x: Reduce | undefined = top; x; ) {
    nest.add(x);
    const only: Expr = x.operands[0];
    x =
      x.operands.length === 1 && only.kind === 'reduce' && only.op === x.op && known(x, spanOf).arity > 1
        ? only
        : undefined;
  }
  for (const e of expressions) {
    walk(e, (x) => {
      if (x.kind !== 'reduce') return;
      const op = known(x, spanOf);
      const inner = x.operands[0];
      const nested = x.operands.length === 1 && inner.kind === 'reduce' && nest.has(inner) && inner.op === x.op;
      if (x.operands.length !== op.arity && !nested) {
        throw new LoomError(
          `${op.name}() reduces ${op.arity} value${op.arity === 1 ? '' : 's'} per point (after its inames), got ${x.operands.length}: ${printExpr(x)}`,
          spanOf(op.name),
        );
      }
      if (op.arity > 1 && !nest.has(x)) {
        throw new LoomError(
          `${op.name}() yields ${op.arity} results, so it must be the whole right-hand side of a multiple assignment with one target per result ('v, k = ${op.name}(...)'): ${printExpr(x)}`,
          spanOf(op.name),
        );
      }
    });
  }
  if (insn.kind !== 'assign') return;
  const results = top ? reductionOperation(top.op).arity : 1;
  if (insn.assignees.length !== results) {
    throw new LoomError(
      insn.assignees.length > 1
        ? `instruction '${insn.id}' assigns ${insn.assignees.length} targets, but ${top ? `${top.op}() yields ${results}` : 'its right-hand side is one value (only a reduction with several results, like argmax, fills several)'}`
        : `instruction '${insn.id}' assigns one target, but ${top!.op}() yields ${results} results: write one target per result ('v, k = ${top!.op}(...)')`,
      insn.span,
    );
  }
}

function known(x: Reduce, spanOf: (word: string) => SourceSpan | undefined): ReductionOperation {
  const op = findReductionOperation(x.op);
  if (op) return op;
  throw new LoomError(
    `unknown reduction '${x.op}' (known: ${reductionNames().join(', ')}; add one with registerReduction)`,
    spanOf(x.op.replace(/\(.*$/, '')),
  );
}
