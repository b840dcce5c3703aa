/**
 * Write races across parallel inames (loopy's check_for_write_races). An instruction
 * inside a parallel iname runs once per value of it, all at once; if the place it
 * writes does not depend on that iname, every copy writes the same place and which
 * value lands is up to the hardware. Which inames count depends on where the
 * variable lives: private memory is per work-item (only ILP and vector lanes share
 * it), local memory is per work-group (work-items and lanes share it), global memory
 * is shared by everything.
 *
 * A subscript may reach the iname through private temporaries (`<int32> i1 = t % m`
 * then `out[i1] = ...`, as the elementwise kernels compute multi-indices): the
 * temporary's value differs per value of `t`, so it counts as indexing by `t`. Loopy
 * looks at the subscript's own names only and would warn there.
 *
 * Like loopy this is a warning (`WriteRaceConditionWarning`, silenced by
 * `write_race(insn)`): writing one value from every work-item is sometimes meant.
 */
import { LoomError } from '../errors.ts';
import { Linear } from '../linear.ts';
import { staticMax, staticMin } from '../sets/index.ts';
import type { Expr } from '../expr/nodes.ts';
import { freeVariables, walk } from '../expr/index.ts';
import { expandSubstitutions, forEachSubscript, nameWritten, soleAssignee } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import { tagToString, type AddressSpace, type InameTag, type LoopKernel } from '../kernel/model.ts';
import { quoted, warn } from './check-error.ts';

export function checkWriteRaces(knl: LoopKernel): void {
  const carried = inamesCarriedByPrivateTemporaries(knl);
  for (const insn of knl.instructions) {
    if (insn.kind !== 'assign') continue;
    const a = soleAssignee(insn);
    if (a.kind !== 'var' && a.kind !== 'subscript') continue;
    const name = a.kind === 'var' ? a.name : a.array;
    const space = addressSpaceOf(knl, name);
    const names = a.kind === 'subscript' ? a.indices.flatMap(namesIn) : [];
    const indexedBy = new Set(names.flatMap((n) => [n, ...(carried.get(n) ?? [])]));
    // a tensor tile's lanes (local axis 0) each hold a part of the tile they write together
    const tile = insn.withinInames.some((n) => knl.inameTags.get(n)?.kind === 'tensor');
    const isLane = (n: string) => {
      const tag = knl.inameTags.get(n);
      return tile && tag?.kind === 'local' && tag.axis === 0;
    };
    const pinned = pinnedByPredicates(insn.predicates, new Set(knl.inames));
    // a place indexed by the subgroup's id, written by one lane alone (the first, the last): one
    // writer a subgroup, and the subgroups partition the work-group (reductions and scans by
    // subgroups store their partials so)
    const perSubgroup = names.includes(SUBGROUP_ID) && insn.predicates.some(pinsSubgroupLane);
    const races = insn.withinInames.filter(
      (n) =>
        racesIn(space, knl.inameTags.get(n)) &&
        !indexedBy.has(n) &&
        !isLane(n) &&
        !pinned.has(n) &&
        !(perSubgroup && knl.inameTags.get(n)?.kind === 'local') &&
        !hasSingleIteration(knl, n),
    );
    if (races.length === 0) continue;
    const tags = races.map((n) => `${n}: ${tagToString(knl.inameTags.get(n))}`).join(', ');
    warn(
      knl,
      insn,
      {
        check: 'write_race',
        inames: races,
        problem: `contains a write race: it runs across the parallel iname(s) ${quoted(races)} (${tags}), which the ${space} '${name}' it writes is not indexed by, so every copy writes the same place`,
        fix: `Index '${name}' by ${quoted(races)}, or make ${quoted(races)} sequential ('for').`,
      },
      'WriteRaceConditionWarning',
      `write_race(${insn.id})`,
    );
  }
}

/**
 * For each private temporary, the inames its value depends on: those its writers'
 * expressions read, directly or through other private temporaries (to a fixed point).
 */
function inamesCarriedByPrivateTemporaries(knl: LoopKernel): Map<string, Set<string>> {
  const inames = new Set(knl.inames);
  const carried = new Map<string, Set<string>>();
  const isPrivate = (name: string) => knl.temporaries.get(name)?.addressSpace === 'private';
  for (let changed = true; changed; ) {
    changed = false;
    for (const insn of knl.instructions) {
      const target = nameWritten(insn);
      if (target === undefined || !isPrivate(target) || !insn.expression) continue;
      const known = carried.get(target) ?? new Set<string>();
      const before = known.size;
      for (const n of namesIn(expandSubstitutions(insn.expression, knl.substitutions))) {
        if (inames.has(n)) known.add(n);
        for (const m of carried.get(n) ?? []) known.add(m);
      }
      carried.set(target, known);
      if (known.size !== before) changed = true;
    }
  }
  return carried;
}

/** Scalars and arrays an expression reads (ILP privatizes `q` into `q[lane]`: still `q`), and the subgroup functions it calls. */
function namesIn(e: Expr): string[] {
  const names = [...freeVariables(e)];
  forEachSubscript(e, (sub) => names.push(sub.array));
  walk(e, (x) => {
    if (x.kind === 'call' && x.args.length === 0 && (x.fn === SUBGROUP_ID || x.fn === SUBGROUP_LANE)) names.push(x.fn);
  });
  return names;
}

const SUBGROUP_ID = 'subgroupId';
const SUBGROUP_LANE = 'subgroupLocalId';

/**
 * The inames a predicate fixes to one value (`i == 3`, `i_inner == n - 1`): one copy along each
 * runs. Not `i == j`: for each j one i writes, and the copies along j still race.
 */
function pinnedByPredicates(predicates: readonly Expr[], inames: ReadonlySet<string>): Set<string> {
  const pinned = new Set<string>();
  for (const p of predicates) {
    if (p.kind !== 'compare' || p.op !== '==') continue;
    for (const [side, other] of [
      [p.left, p.right],
      [p.right, p.left],
    ] as const)
      if (side.kind === 'var' && inames.has(side.name) && ![...freeVariables(other)].some((n) => inames.has(n)))
        pinned.add(side.name);
  }
  return pinned;
}

/**
 * Whether `p` lets one lane of each subgroup through: `subgroupLocalId() == v` with v the same
 * for every lane (`0`, `subgroupSize() - 1`: literals and the subgroup's size, nothing else).
 */
function pinsSubgroupLane(p: Expr): boolean {
  if (p.kind !== 'compare' || p.op !== '==') return false;
  const isLane = (e: Expr) => e.kind === 'call' && e.fn === SUBGROUP_LANE && e.args.length === 0;
  const sameForAll = (e: Expr) => {
    let same = freeVariables(e).size === 0;
    walk(e, (x) => {
      if (x.kind === 'call' && !(x.fn === 'subgroupSize' && x.args.length === 0)) same = false;
      if (x.kind === 'subscript') same = false;
    });
    return same;
  };
  return (isLane(p.left) && sameForAll(p.right)) || (sameForAll(p.left) && isLane(p.right));
}

/** Arguments live in global memory; temporaries where placement put them. */
function addressSpaceOf(knl: LoopKernel, name: string): AddressSpace {
  const space = knl.temporaries.get(name)?.addressSpace;
  return space === undefined || space === 'auto' ? 'global' : space;
}

/** loopy's _is_racing_iname_tag: whether copies along an iname share memory of this kind. */
function racesIn(space: AddressSpace, tag: InameTag | undefined): boolean {
  const kind = tag?.kind;
  const lanes = kind === 'ilp' || kind === 'vec';
  if (space === 'private') return lanes;
  if (space === 'local') return lanes || kind === 'local';
  return lanes || kind === 'local' || kind === 'group';
}

/** An iname with one value runs once: nothing to race with. */
function hasSingleIteration(knl: LoopKernel, iname: string): boolean {
  const term = [{ set: domainOf(knl, [iname]), expr: Linear.variable(iname) }];
  try {
    const lo = staticMin(term, knl.assumptions);
    const hi = staticMax(term, knl.assumptions);
    return lo.isConstant && hi.isConstant && lo.constant === hi.constant;
  } catch (e) {
    if (e instanceof LoomError) return false; // no constant bounds: more than one value as far as we know
    throw e;
  }
}
