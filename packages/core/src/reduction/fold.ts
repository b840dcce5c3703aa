/**
 * The instructions that fold values into accumulators, `a := a ⊕ b`, for one or several
 * results. Each result is computed from the old accumulators, so where one result reads
 * another's accumulator the new values wait in private temporaries first; an operation that
 * keeps one of its two tuples whole (`select`: argmax) decides once, into a truth value, and
 * each accumulator then takes its side.
 */
import type { DType } from '../dtypes.ts';
import { exprEquals, someExpr } from '../expr/index.ts';
import { ifThenElse, variable, type Expr } from '../expr/nodes.ts';
import type { Instruction } from '../kernel/model.ts';
import type { ReductionOperation } from './operations.ts';
import type { Realization, Scope } from './realization.ts';

/** Where the instructions run, what they wait for: shared by all of them. */
export type FoldPlacement = Pick<Instruction, 'withinInames' | 'predicates' | 'dependsOn' | 'noSyncWith'>;

/**
 * Adds the instructions that set each accumulator `targets[k]` (a variable or an array
 * element, read as `a`) to `a ⊕ b`; returns the ids of the last writes. `id` names them.
 */
export function fold(
  r: Realization,
  scope: Scope,
  op: ReductionOperation,
  targets: readonly Expr[],
  b: readonly Expr[],
  dtypes: readonly DType[],
  placement: FoldPlacement,
  id: (what: string) => string,
): string[] {
  const write = (k: number, value: Expr, extra: Partial<FoldPlacement> = {}) =>
    r.add(scope, {
      ...placement,
      ...extra,
      id: id(targets.length === 1 ? '' : `_${k}`),
      assignees: [targets[k]],
      expression: value,
    });
  if (op.select) {
    const take = r.temporary('take', 'bool', [], 'private');
    const decided = r.add(scope, {
      ...placement,
      id: id('_take'),
      assignees: [variable(take)],
      expression: op.select(targets, b, dtypes),
    });
    // each work-item reads its own accumulators here and writes them next: no barrier between
    const after = { dependsOn: [decided], noSyncWith: [...placement.noSyncWith, `${decided}@local`] };
    return targets.map((t, k) => write(k, ifThenElse(variable(take), b[k], t), after));
  }
  const combined = op.combine(targets, b, dtypes);
  const readsOther = combined.some((c, k) => targets.some((t, j) => j !== k && someExpr(c, (x) => exprEquals(x, t))));
  if (!readsOther) return targets.map((_, k) => write(k, combined[k]));
  const next = targets.map((_, k) => r.temporary(`new_${scope.insn.id}`, dtypes[k], [], 'private'));
  const computed = next.map((n, k) =>
    r.add(scope, { ...placement, id: id(`_next_${k}`), assignees: [variable(n)], expression: combined[k] }),
  );
  return targets.map((_, k) =>
    write(k, variable(next[k]), {
      dependsOn: computed,
      noSyncWith: [...placement.noSyncWith, ...computed.map((c) => `${c}@local`)],
    }),
  );
}
