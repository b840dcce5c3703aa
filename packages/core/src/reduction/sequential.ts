/**
 * A reduction over sequential inames becomes a loop: `out[i] = sum(k, e)` turns into
 *
 *   acc = 0                  {id=out_init}      within i
 *   acc = acc + e            {id=out_update}    within i, k
 *   out[i] = acc             (the reader)       within i
 *
 * with a private accumulator per result (`argmax` has two: the value and the index, each
 * updated from the old pair: fold.ts).
 */
import type { DType } from '../dtypes.ts';
import { variable } from '../expr/nodes.ts';
import type { ReductionOperation } from './operations.ts';
import type { Realization, Realized, Scope } from './realization.ts';
import { fold } from './fold.ts';

/**
 * Accumulates `values` (one point's, already realized, typed `dtypes`) over the loops
 * `inames` around `scope` into private accumulators, and returns them.
 */
export function realizeSequential(
  r: Realization,
  scope: Scope,
  op: ReductionOperation,
  inames: readonly string[],
  point: Realized,
  operandDtypes: readonly DType[],
  /** Where the accumulators start (a scan starts them outside its sweep); default: `scope.within`. */
  initWithin: readonly string[] = scope.within,
): Realized {
  const dtypes = op.resultDtypes(operandDtypes);
  const suffix = inames.join('_');
  const accs = dtypes.map((t, k) =>
    r.temporary(dtypes.length === 1 ? `acc_${suffix}` : `acc_${suffix}_${k}`, t, [], 'private'),
  );
  const id = (what: string) => r.name(`${scope.insn.id}_${accs[0]}_${what}`);
  const within = [...scope.within, ...inames];

  // The initialization only writes the accumulator: it waits for nothing (the instruction's
  // own dependencies are for the reads, in the update), but the global barriers the
  // instruction waits for: the accumulator lives in one device kernel, the one after them.
  // It takes no predicate either: a condition reads (`if c_fetch[i] > 0`), and evaluated
  // before its data was written it left the accumulator uninitialized. An accumulator set
  // where the instruction is skipped is never read.
  const neutral = op.neutral(dtypes);
  const initIds = accs.map((acc, k) =>
    r.add(scope, {
      id: id(accs.length === 1 ? 'init' : `init_${k}`),
      assignees: [variable(acc)],
      expression: neutral[k],
      withinInames: initWithin,
      dependsOn: r.globalBarriersBefore(scope.insn),
    }),
  );

  const values = op.lift ? op.lift(point.values, operandDtypes) : point.values;
  const targets = accs.map((a) => variable(a));
  const updates = fold(
    r,
    scope,
    op,
    targets,
    values,
    dtypes,
    {
      withinInames: [...new Set([...within, ...point.lanes])],
      predicates: scope.guards,
      dependsOn: [...scope.insn.dependsOn, ...initIds, ...point.dependsOn],
      noSyncWith: point.noSync,
    },
    (what) => id(`update${what}`),
  );
  return { values: targets, dependsOn: updates, lanes: point.lanes, noSync: [] };
}
