/**
 * A reduction over one `l.0` iname by subgroup functions, where the target has them: each
 * subgroup combines its work-items' values by shuffles, its first lane puts the subgroup's
 * result into local memory, and after one barrier every subgroup combines those partials
 * (one per lane) by shuffles again:
 *
 *   s = subgroupAdd(e)                                        {id=..._subgroup}
 *   part[subgroupId()] = s          if subgroupLocalId() == 0 {id=..._partial}
 *   t = subgroupAdd(subgroupLocalId()*subgroupSize() < N ? part[subgroupLocalId()] : 0)
 *   total[0] = t                    if l == lo                {id=..._total}
 *   out = total[0]                                            (the reader)
 *
 * Two barriers where the tree in local memory (local-tree.ts) has one per halving. It is taken
 * only where it computes what the tree does for every subgroup size the device may pick: the
 * work-group is the reduction's iname alone (every local iname of the kernel spans the same
 * values, on axis 0: the linear local id is the iname's, and no guard leaves a work-item out),
 * a whole number of the largest subgroups, and few enough that the partials fit in the lanes of
 * the smallest; a sum of 32- or 64-bit values, or a max or min of integers, by the target's
 * subgroup reductions.
 *
 * Any other commutative operation of one value (a float `max`, which must propagate NaN as Loom's
 * `max` does and the targets' subgroup max does not promise; a user's registered reduction) is
 * combined by the operation itself across lanes, in a butterfly of `subgroupShuffleXor`s with the
 * offsets below the smallest subgroup size the device may pick (each aligned run of that many
 * work-items lies inside one subgroup, whatever the size picked), a run's total kept in local
 * memory by its first work-item, and the runs' totals combined by a second butterfly:
 *
 *   b1 = e ⊕ subgroupShuffleXor(e, 1);  b2 = b1 ⊕ subgroupShuffleXor(b1, 2);  ...  (to min/2)
 *   part[(l - lo) / min] = b16                      if (l - lo) % min == 0
 *   c = (l - lo) % min < N/min ? part[(l - lo) % min] : neutral;  c ⊕ shuffles as above
 *
 * Where the work-group's `l.0` is exactly one subgroup, every lane holds the total after the first
 * combination: it is read from lane zero's register (a reader that stores it once) or stored once
 * in local memory (one every work-item reads), and so for rows side by side on `l.1`, `l.2`, each
 * row a subgroup (`surrounding`: a total each).
 *
 * Either way a float sum or a combination is made in another order than the tree's: equal within
 * rounding, and exactly equal for max and min.
 */
import type { DType } from '../dtypes.ts';
import { isInteger } from '../dtypes.ts';
import type { SubgroupSupport } from '../codegen/target.ts';
import { binary, call, compare, ifThenElse, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import type { ReductionOperation } from './operations.ts';
import type { Realization, Realized, Scope } from './realization.ts';

/** The subgroup function of each operation it takes. */
const SUBGROUP_OPS: Readonly<Record<string, string>> = { sum: 'subgroupAdd', max: 'subgroupMax', min: 'subgroupMin' };

/** The reduction by subgroups of the values `point` over the `l.0` iname `iname` (of `lo..lo+size-1`), or undefined where it does not apply. */
export function realizeSubgroupReduction(
  r: Realization,
  scope: Scope,
  op: ReductionOperation,
  iname: string,
  range: { readonly lo: number; readonly size: number },
  point: Realized,
  dtypes: readonly DType[],
  surrounding: readonly Row[] = [],
): Realized | undefined {
  const support: SubgroupSupport | undefined = r.subgroups;
  if (!support || 'refused' in support || dtypes.length !== 1 || !op.commutative) return undefined;
  const [dtype] = dtypes;
  if (!support.dtypes.includes(dtype)) return undefined;
  const { min, max } = typeof support.size === 'number' ? { min: support.size, max: support.size } : support.size;
  const n = range.size;
  if (n % max !== 0 || n > min * min) return undefined;
  if (scope.guards.length > 0 || !r.coversAxes(scope.within, [{ iname, ...range }])) return undefined;
  // rows side by side on other axes: each one subgroup, its l.0 run of consecutive local ids (a
  // row absent from a last group is skipped by its whole subgroup: subgroup-uses.ts)
  const rows = surrounding.length > 0;
  if (rows ? n !== min || n !== max || !r.workGroupRowsAre(iname, n) : !r.workGroupIsOnly(iname, n)) return undefined;
  const fn = SUBGROUP_OPS[op.name];
  if (fn === undefined || (op.name !== 'sum' && !isInteger(dtype)))
    return realizeByShuffles(r, scope, op, iname, range, point, dtype, min, surrounding);

  const label = r.name(`${scope.insn.id}_${iname}`);
  const id = (what: string) => r.name(`${label}_${what}`);
  const lane = call('subgroupLocalId', []);
  const local = r.temporary(`sg_${iname}`, dtype, [], 'private');
  const within = [...new Set([...scope.within, iname, ...point.lanes])];
  const site = (rows: readonly Row[]): TotalSite => ({ iname, lo: range.lo, dtype, id: id('total'), within, rows });

  const own = r.add(scope, {
    id: id('subgroup'),
    assignees: [variable(local)],
    expression: call(fn, [point.values[0]]),
    withinInames: within,
    dependsOn: [...scope.insn.dependsOn, ...point.dependsOn],
    noSyncWith: point.noSync,
  });
  if (n === min && n === max) return wholeInEveryLane(r, scope, variable(local), [own], site(surrounding));
  const partials = r.temporary(`part_${iname}`, dtype, [n / min], 'local');
  const combined = r.temporary(`sg_total_${iname}`, dtype, [], 'private');
  const partial = r.add(scope, {
    id: id('partial'),
    assignees: [subscript(partials, [call('subgroupId', [])])],
    expression: variable(local),
    withinInames: within,
    dependsOn: [own],
    predicates: [compare('==', lane, int(0))],
  });
  const present = compare('<', binary('*', lane, call('subgroupSize', [])), int(n));
  const across = r.add(scope, {
    id: id('across'),
    assignees: [variable(combined)],
    expression: call(fn, [ifThenElse(present, subscript(partials, [lane]), op.neutral(dtypes)[0])]),
    withinInames: within,
    dependsOn: [partial],
  });
  return storedTotal(r, scope, variable(combined), [across], site([]));
}

/**
 * The butterfly of the file's comment: the operation's own `combine` across lanes by
 * `subgroupShuffleXor`, in runs of `run` work-items (the smallest subgroup), then across the runs.
 */
function realizeByShuffles(
  r: Realization,
  scope: Scope,
  op: ReductionOperation,
  iname: string,
  range: { readonly lo: number; readonly size: number },
  point: Realized,
  dtype: DType,
  run: number,
  surrounding: readonly Row[],
): Realized {
  const label = r.name(`${scope.insn.id}_${iname}`);
  const id = (what: string) => r.name(`${label}_${what}`);
  const within = [...new Set([...scope.within, iname, ...point.lanes])];
  const site = (rows: readonly Row[]): TotalSite => ({ iname, lo: range.lo, dtype, id: id('total'), within, rows });
  const offset = range.lo === 0 ? variable(iname) : binary('-', variable(iname), int(range.lo));
  const runs = range.size / run;

  /** Each work-item's `value` combined with its run's others, one instruction an offset; the last one's temporary. */
  const butterfly = (value: Expr, what: string, dependsOn: readonly string[], noSyncWith?: readonly string[]) => {
    let current = value;
    let after = dependsOn;
    for (let k = 1; k < run; k *= 2) {
      const t = r.temporary(`${what}_${iname}`, dtype, [], 'private');
      const partner = call('subgroupShuffleXor', [current, int(k)]);
      const step = r.add(scope, {
        id: id(`${what}_xor${k}`),
        assignees: [variable(t)],
        expression: op.combine([current], [partner], [dtype])[0]!,
        withinInames: within,
        dependsOn: after,
        ...(noSyncWith && k === 1 ? { noSyncWith } : {}),
      });
      current = variable(t);
      after = [step];
    }
    return { value: current, dependsOn: after };
  };

  // a point's value that is more than a variable is computed once, into a register: the first step names it twice
  const before = [...scope.insn.dependsOn, ...point.dependsOn];
  const value = point.values[0]!;
  const own =
    value.kind === 'var'
      ? butterfly(value, 'sg', before, point.noSync)
      : (() => {
          const t = r.temporary(`sg_value_${iname}`, dtype, [], 'private');
          const computed = r.add(scope, {
            id: id('value'),
            assignees: [variable(t)],
            expression: value,
            withinInames: within,
            dependsOn: before,
            noSyncWith: point.noSync,
          });
          return butterfly(variable(t), 'sg', [computed]);
        })();
  if (runs === 1) return wholeInEveryLane(r, scope, own.value, own.dependsOn, site(surrounding));
  const partials = r.temporary(`part_${iname}`, dtype, [runs], 'local');
  const partial = r.add(scope, {
    id: id('partial'),
    assignees: [subscript(partials, [binary('//', offset, int(run))])],
    expression: own.value,
    withinInames: within,
    dependsOn: own.dependsOn,
    predicates: [compare('==', binary('%', offset, int(run)), int(0))],
  });
  const inRun = binary('%', offset, int(run));
  const gathered = ifThenElse(compare('<', inRun, int(runs)), subscript(partials, [inRun]), op.neutral([dtype])[0]!);
  // read once into a register: the butterfly's first step names its value twice
  const runTotal = r.temporary(`sg_run_${iname}`, dtype, [], 'private');
  const read = r.add(scope, {
    id: id('run_total'),
    assignees: [variable(runTotal)],
    expression: gathered,
    withinInames: within,
    dependsOn: [partial],
  });
  const across = butterfly(variable(runTotal), 'sg_total', [read]);
  return storedTotal(r, scope, across.value, across.dependsOn, site([]));
}

/** A local iname on another axis around the reduction: a row of the work-group reducing on its own. */
export interface Row {
  readonly iname: string;
  readonly lo: number;
  readonly size: number;
}

/**
 * Where a reduction's total is stored: its iname, the work-item that stores it (`lo`), names, and
 * the rows side by side (a total each).
 */
interface TotalSite {
  readonly iname: string;
  readonly lo: number;
  readonly dtype: DType;
  readonly id: string;
  readonly within: readonly string[];
  readonly rows: readonly Row[];
}

/**
 * A work-group of one subgroup: after its combination every lane holds the whole result in a
 * register (a butterfly's lanes combine the same values in the same shape, commuted). A reader that
 * writes shared memory reads it there, from lane zero: no local memory, no barrier. A reader on
 * every work-item outside the reduction's iname cannot name another lane's register (Loom's
 * private temporaries are per work-item of the inames they are written in), so it gets the total
 * from local memory, after one barrier: one where the partials took two.
 */
function wholeInEveryLane(
  r: Realization,
  scope: Scope,
  value: Expr,
  dependsOn: readonly string[],
  site: TotalSite,
): Realized {
  if (scope.readers === 'one') return { values: [value], dependsOn, lanes: [r.laneZeroOf(0)], noSync: [] };
  return storedTotal(r, scope, value, dependsOn, site);
}

/**
 * The total, which the work-item at the iname's first value holds, stored in local memory for its
 * readers: every work-item (a private result), or lane zero of the group (a store to shared memory,
 * which may skip the barrier behind its own store).
 */
function storedTotal(
  r: Realization,
  scope: Scope,
  value: Expr,
  dependsOn: readonly string[],
  site: TotalSite,
): Realized {
  const total = r.temporary(`acc_${site.iname}`, site.dtype, [...site.rows.map((row) => row.size), 1], 'local');
  const at = subscript(total, [
    ...site.rows.map((row) => (row.lo === 0 ? variable(row.iname) : binary('-', variable(row.iname), int(row.lo)))),
    int(0),
  ]);
  const stored = r.add(scope, {
    id: site.id,
    assignees: [at],
    expression: value,
    withinInames: site.within,
    dependsOn,
    predicates: [compare('==', variable(site.iname), int(site.lo))],
  });
  const values: Expr[] = [at];
  if (scope.readers === 'all') return { values, dependsOn: [stored], lanes: [], noSync: [] };
  return { values, dependsOn: [stored], lanes: [r.laneZeroOf(0)], noSync: [`${stored}@local`] };
}
