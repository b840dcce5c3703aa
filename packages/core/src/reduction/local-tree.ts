/**
 * A reduction over inames tagged `l.N`: the work-items of a group each hold one partial
 * result, which a tree in local memory combines (loopy's `map_reduction_local`):
 *
 *   acc[b] = neutral                           {id=..._init}      b: 0..N-1 across the work-items
 *   acc[i - lo] = e                            {id=..._transfer}  i: the reduction's iname
 *   acc[s] = acc[s] ⊕ acc[s + 4]  s < N - 4    {id=..._stage_0}   for N = 5: 8 → 4 → 2 → 1
 *   acc[s] = acc[s] ⊕ acc[s + 2]  s < 2        {id=..._stage_1}
 *   acc[0] = acc[0] ⊕ acc[1]                   {id=..._stage_2}   on work-item 0
 *   out = acc[0]                               (the reader)
 *
 * The barrier pass puts a local barrier between the steps (each reads what other work-items
 * wrote). Each stage halves the power of two at or above what is left and combines only the
 * pairs that exist, so any number of work-items is right. The initialization covers the whole
 * axis, so work-items that the reduction's domain leaves out (a triangle, a guard) add the
 * neutral element.
 *
 * Several local inames reduce in one tree over their flattened index (the stage inames, one
 * per axis, enumerate the positions that combine). The sequential inames of the same reduction
 * are reduced first, by each work-item into a private partial result (`sequential.ts`), which
 * is what it puts into the tree: a split iname with a local inner and a sequential outer part
 * sums its stride per work-item, then across them.
 *
 * Surrounding local inames (`out[j] = sum(i, ...)` with `j` on another axis) each get their
 * own tree: the accumulator has an axis per surrounding local iname. The steps run on
 * work-item 0 of the local axes the reduction does not use (`Realization.laneZeroOf`), and so
 * does the reader when it writes shared memory (`Scope.readers`); a reader writing a private
 * temporary runs on every work-item, each reading the result after the last barrier.
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { add, int, mul, subscript, variable, type Expr } from '../expr/nodes.ts';
import type { InameTag } from '../kernel/model.ts';
import type { ReductionOperation } from './operations.ts';
import type { Realization, Realized, Scope } from './realization.ts';
import { fold } from './fold.ts';
import { realizeSubgroupReduction } from './subgroup-tree.ts';

interface Axis {
  readonly iname: string;
  readonly tag: InameTag;
  readonly axis: number;
  readonly lo: number;
  readonly size: number;
}

/**
 * Combines, over the local inames `locals`, the work-items' values `point` (their partial
 * results, typed `dtypes`), and returns the result.
 */
export function realizeLocalTree(
  r: Realization,
  scope: Scope,
  op: ReductionOperation,
  locals: readonly string[],
  point: Realized,
  dtypes: readonly DType[],
): Realized {
  if (!op.commutative) {
    throw new LoomError(
      `instruction '${scope.insn.id}': ${op.name}() depends on the order of its values, which a reduction across work-items (over ${locals.map((n) => `'${n}'`).join(', ')}) does not keep: reduce over sequential inames`,
      scope.insn.span,
    );
  }
  const axes = locals.map((iname): Axis => {
    const tag = r.inameTags.get(iname)!;
    const { lo, size } = r.range(iname, 'a reduction across work-items');
    if (size < 1)
      throw new LoomError(
        `instruction '${scope.insn.id}' reduces across work-items over '${iname}', which has no values`,
        scope.insn.span,
      );
    return { iname, tag, axis: r.localAxis(iname)!, lo, size };
  });
  for (const [k, a] of axes.entries()) {
    const other = axes.slice(0, k).find((b) => b.axis === a.axis);
    if (other) {
      throw new LoomError(
        `instruction '${scope.insn.id}' reduces over '${other.iname}' and '${a.iname}', both tagged l.${a.axis}: the hardware has one index per axis, so they would take the same values. Tag them with different axes, or make one sequential`,
        scope.insn.span,
      );
    }
  }
  // each surrounding local iname has its own tree: an axis of the accumulator
  const surrounding = scope.within
    .filter((n) => r.localAxis(n) !== undefined)
    .map((iname) => {
      const { lo, size } = r.range(iname, 'a reduction across work-items around it');
      return { iname, lo, size };
    });
  for (const s of surrounding) {
    const same = axes.find((a) => a.axis === r.localAxis(s.iname));
    if (same) {
      throw new LoomError(
        `instruction '${scope.insn.id}' reduces over '${same.iname}' inside '${s.iname}', both tagged l.${same.axis}: the hardware has one index per axis, so they would take the same values. Tag them with different axes, or make one sequential`,
        scope.insn.span,
      );
    }
  }
  const outer = surrounding.map((s) => (s.lo === 0 ? variable(s.iname) : add(variable(s.iname), int(-s.lo))));
  const used = new Set([...axes.map((a) => a.axis), ...surrounding.map((s) => r.localAxis(s.iname)!)]);
  const idle = [
    ...new Set([...r.inameTags.values()].flatMap((t) => (t.kind === 'local' && !used.has(t.axis) ? [t.axis] : []))),
  ].sort();
  if (axes.length === 1 && axes[0].axis === 0 && idle.length === 0) {
    const viaSubgroups = realizeSubgroupReduction(r, scope, op, axes[0].iname, axes[0], point, dtypes, surrounding);
    if (viaSubgroups) return viaSubgroups;
  }
  const idleLanes = idle.map((a) => r.laneZeroOf(a));

  const count = axes.reduce((n, a) => n * a.size, 1);
  const strides = axes.map((_, k) => axes.slice(k + 1).reduce((n, a) => n * a.size, 1));
  /** The position in the tree of the work-item at these values of the axes' inames (minus their first values). */
  const position = (names: readonly string[], los: readonly number[] = axes.map(() => 0)): Expr =>
    names.reduce<Expr | undefined>((sum, n, k) => {
      const shifted = los[k] === 0 ? variable(n) : add(variable(n), int(-los[k]));
      const term = strides[k] === 1 ? shifted : mul(int(strides[k]), shifted);
      return sum === undefined ? term : add(sum, term);
    }, undefined) ?? int(0);
  /** The same, spelled for a domain. */
  const flat = (names: readonly string[]) =>
    names.map((n, k) => (strides[k] === 1 ? n : `${strides[k]}*${n}`)).join(' + ');

  const label = locals.join('_');
  const accs = dtypes.map((t, k) =>
    r.temporary(
      dtypes.length === 1 ? `acc_${label}` : `acc_${label}_${k}`,
      t,
      [...surrounding.map((s) => s.size), count],
      'local',
    ),
  );
  const at = (acc: string, pos: Expr) => subscript(acc, [...outer, pos]);
  const id = (what: string) => r.name(`${scope.insn.id}_${label}_${what}`);
  const sameTags = axes.map((a) => a.tag);
  const bounds = (names: readonly string[]) => names.map((n, k) => `0 <= ${n} < ${axes[k].size}`).join(' and ');

  // 1. every position starts neutral, where the reduction's domain or its conditions may
  // leave work-items out (which then add nothing)
  let inits: string[] = [];
  if (scope.guards.length > 0 || !r.coversAxes(scope.within, axes)) {
    const base = r.newInames(
      axes.map((a) => `red_${a.iname}`),
      bounds,
      sameTags,
    );
    const neutral = op.neutral(dtypes);
    inits = accs.map((acc, k) =>
      r.add(scope, {
        id: id(accs.length === 1 ? 'init' : `init_${k}`),
        assignees: [at(acc, position(base))],
        expression: neutral[k],
        withinInames: [...scope.within, ...base, ...idleLanes],
        dependsOn: r.globalBarriersBefore(scope.insn),
      }),
    );
  }

  // 2. each work-item puts its value at its position (where it wrote the neutral element: no barrier)
  const transfers = accs.map((acc, k) =>
    r.add(scope, {
      id: id(accs.length === 1 ? 'transfer' : `transfer_${k}`),
      assignees: [
        at(
          acc,
          position(
            locals,
            axes.map((a) => a.lo),
          ),
        ),
      ],
      expression: point.values[k],
      withinInames: [...new Set([...scope.within, ...locals, ...idleLanes, ...point.lanes])],
      dependsOn: [...scope.insn.dependsOn, ...point.dependsOn, ...inits],
      predicates: scope.guards,
      noSyncWith: [...point.noSync, ...inits.map((i) => `${i}@local`)],
    }),
  );

  // 3. the stages: positions below `span` take in those `half` above them
  let previous = transfers;
  let power = 1;
  while (power < count) power *= 2;
  for (let span = count, half = power / 2, stage = 0; half >= 1; span = half, half /= 2, stage++) {
    const combining = span - half;
    const names =
      combining === 1
        ? axes.map((a) => r.laneZeroOf(a.axis))
        : r.newInames(
            axes.map((a) => `red_${a.iname}_s${stage}`),
            (ns) => `${bounds(ns)} and ${flat(ns)} < ${combining}`,
            sameTags,
          );
    const pos = position(names);
    const mine = accs.map((acc) => at(acc, pos));
    const theirs = accs.map((acc) => at(acc, add(pos, int(half))));
    previous = fold(
      r,
      scope,
      op,
      mine,
      theirs,
      dtypes,
      {
        withinInames: [...scope.within, ...names, ...idleLanes],
        predicates: scope.guards,
        dependsOn: previous,
        noSyncWith: [],
      },
      (what) => id(`stage_${stage}${what}`),
    );
  }

  // 4. the result, at position 0: read on work-item 0 (after the last stage, on the same
  // work-item: no barrier), or by every work-item (after a barrier)
  const values = accs.map((acc) => at(acc, int(0)));
  if (scope.readers === 'all') return { values, dependsOn: previous, lanes: [], noSync: [] };
  const lanes = [...axes.map((a) => r.laneZeroOf(a.axis)), ...idleLanes];
  return { values, dependsOn: previous, lanes, noSync: previous.map((p) => `${p}@local`) };
}
