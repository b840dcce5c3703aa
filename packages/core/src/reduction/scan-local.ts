/**
 * A scan whose sweep iname is tagged `l.N` (loopy's `map_scan_local`): each work-item has
 * folded the values its `i` adds (its partial result, `part`), and a Hillis–Steele scan in
 * local memory turns the partial results into running ones:
 *
 *   acc[b] = neutral                           {id=..._init}     where the sweep's start varies
 *   acc[i - lo] = part                         {id=..._transfer}
 *   before = acc[s - 1]; mine = acc[s]         {id=..._read_0}   1 <= s < N
 *   acc[s] = before ⊕ mine                     {id=..._stage_0}
 *   before = acc[s - 2]; mine = acc[s]         {id=..._read_1}   2 <= s < N
 *   acc[s] = before ⊕ mine                     {id=..._stage_1}  ... while the distance < N
 *   out[i] = acc[i - lo]                       (the reader)
 *
 * After stage k each position holds the combination of the 2^(k+1) positions up to it, in
 * their order (`before` is what came first: segmented scans, which are only associative, stay
 * right). The barrier pass puts a local barrier between reading and writing (a work-item
 * writes what another reads) and between the stages. Each work-item reads both operands into
 * private temporaries before writing, so results that read each other (argmax's value and
 * index) are computed from the old pair.
 *
 * As in local-tree.ts, each surrounding local iname has its own scan (an axis of the
 * accumulator), and the steps run on work-item 0 of the local axes the scan does not use.
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { add, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import type { ReductionOperation } from './operations.ts';
import type { Realization, Realized, Scope } from './realization.ts';
import type { ScanParameters } from './scan-candidate.ts';

export function realizeLocalScan(
  r: Realization,
  scope: Scope,
  op: ReductionOperation,
  scan: ScanParameters,
  part: Realized,
  dtypes: readonly DType[],
): Realized {
  const sweep = scan.sweep;
  const axis = r.localAxis(sweep)!;
  const tag = r.inameTags.get(sweep)!;
  const { lo, size } = r.range(sweep, 'a scan across work-items');
  if (size < 1)
    throw new LoomError(
      `instruction '${scope.insn.id}' scans across work-items over '${sweep}', which has no values`,
      scope.insn.span,
    );
  const surrounding = scope.within
    .filter((n) => n !== sweep && r.localAxis(n) !== undefined)
    .map((iname) => ({ iname, ...r.range(iname, 'a scan across work-items around it') }));
  for (const s of surrounding) {
    if (r.localAxis(s.iname) === axis) {
      throw new LoomError(
        `instruction '${scope.insn.id}' scans over '${sweep}' inside '${s.iname}', both tagged l.${axis}: the hardware has one index per axis. Tag them with different axes, or make one sequential`,
        scope.insn.span,
      );
    }
  }
  const used = new Set([axis, ...surrounding.map((s) => r.localAxis(s.iname)!)]);
  const idle = [
    ...new Set([...r.inameTags.values()].flatMap((t) => (t.kind === 'local' && !used.has(t.axis) ? [t.axis] : []))),
  ].sort();
  const idleLanes = idle.map((a) => r.laneZeroOf(a));
  const outer = surrounding.map((s) => (s.lo === 0 ? variable(s.iname) : add(variable(s.iname), int(-s.lo))));
  /** Every instruction of the scan but the transfer runs in these, beside its own iname. */
  const around = [...scope.within.filter((n) => n !== sweep), ...idleLanes];

  const accs = dtypes.map((t, k) =>
    r.temporary(
      dtypes.length === 1 ? `acc_${sweep}` : `acc_${sweep}_${k}`,
      t,
      [...surrounding.map((s) => s.size), size],
      'local',
    ),
  );
  const at = (acc: string, pos: Expr) => subscript(acc, [...outer, pos]);
  const id = (what: string) => r.name(`${scope.insn.id}_${sweep}_${what}`);
  const mine = lo === 0 ? variable(sweep) : add(variable(sweep), int(-lo));

  // 1. where the first value of the sweep depends on the inames around it, the positions
  // below it start neutral: the stages read every position up to each work-item's own
  let inits: string[] = [];
  if (!scan.sweepLower.isConstant || scan.sweepLower.constant !== lo) {
    const [b] = r.newInames([`${sweep}_base`], ([b]) => `0 <= ${b} < ${size}`, [tag]);
    const neutral = op.neutral(dtypes);
    inits = accs.map((acc, k) =>
      r.add(scope, {
        id: id(`init_${k}`),
        assignees: [at(acc, variable(b))],
        expression: neutral[k],
        withinInames: [...around, b],
        dependsOn: r.globalBarriersBefore(scope.insn),
      }),
    );
  }

  // 2. each work-item's partial result at its position
  const transfers = accs.map((acc, k) =>
    r.add(scope, {
      id: id(accs.length === 1 ? 'transfer' : `transfer_${k}`),
      assignees: [at(acc, mine)],
      expression: part.values[k],
      withinInames: [...new Set([...scope.within, ...idleLanes, ...part.lanes])],
      dependsOn: [...scope.insn.dependsOn, ...part.dependsOn, ...inits],
      predicates: scope.guards,
      noSyncWith: [...part.noSync, ...inits.map((i) => `${i}@local`)],
    }),
  );

  // 3. the stages: position s takes in the one `distance` before it
  let previous = transfers;
  const before = dtypes.map((t) => r.temporary(`before_${sweep}`, t, [], 'private'));
  const own = dtypes.map((t) => r.temporary(`own_${sweep}`, t, [], 'private'));
  for (let distance = 1, stage = 0; distance < size; distance *= 2, stage++) {
    const [s] = r.newInames([`${sweep}_s${stage}`], ([s]) => `${distance} <= ${s} < ${size}`, [tag]);
    const place = { withinInames: [...around, s], predicates: scope.guards };
    const reads = accs.flatMap((acc, k) => [
      r.add(scope, {
        ...place,
        id: id(`read_${stage}_${k}`),
        assignees: [variable(before[k])],
        expression: at(acc, add(variable(s), int(-distance))),
        dependsOn: previous,
      }),
      r.add(scope, {
        ...place,
        id: id(`own_${stage}_${k}`),
        assignees: [variable(own[k])],
        expression: at(acc, variable(s)),
        dependsOn: previous,
      }),
    ]);
    const combined = op.combine(
      before.map((b) => variable(b)),
      own.map((o) => variable(o)),
      dtypes,
    );
    previous = accs.map((acc, k) =>
      r.add(scope, {
        ...place,
        id: id(`stage_${stage}_${k}`),
        assignees: [at(acc, variable(s))],
        expression: combined[k],
        dependsOn: reads,
      }),
    );
  }

  // 4. each work-item reads its own running result, after a barrier
  return { values: accs.map((acc) => at(acc, mine)), dependsOn: previous, lanes: [], noSync: [] };
}
