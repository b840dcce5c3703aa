/**
 * When a kernel cannot be linearized because its instructions' loops cannot all be
 * nested (`a` in `i, j`, `b` in `j` alone, `c` in `i` alone: which of `i` and `j` is
 * outside?), some instructions need their own copy of an iname. These list the ways
 * (loopy's get_iname_duplication_options and has_schedulable_iname_nesting).
 */
import { isParallelTag, type LoopKernel } from '../kernel/model.ts';

/** A way `getInameDuplicationOptions` suggests to duplicate inames. */
export interface InameDuplicationOption {
  /** The iname to duplicate. */
  readonly iname: string;
  /** The instructions that would get the copy, as a match expression for `duplicateInames`. */
  readonly within: string;
}

/**
 * Each option: duplicating `iname` within those instructions removes one conflict (more
 * than one may be needed). Parallel inames are left out: they nest with anything.
 */
export function getInameDuplicationOptions(knl: LoopKernel): InameDuplicationOption[] {
  const parallel = new Set(knl.inames.filter((n) => isParallelTag(knl.inameTags.get(n))));
  const sets = distinct(
    knl.instructions.map((i) => i.withinInames.filter((n) => !parallel.has(n))).filter((s) => s.length > 0),
  );
  const out: InameDuplicationOption[] = [];
  for (const { iname, sets: chosen } of options(sets, [])) {
    if (parallel.has(iname)) continue;
    const ids = knl.instructions
      .filter((insn) =>
        chosen.some((s) =>
          sameSet(
            s,
            insn.withinInames.filter((n) => !parallel.has(n)),
          ),
        ),
      )
      .map((insn) => `id:${insn.id}`);
    if (ids.length) out.push({ iname, within: ids.join(' or ') });
  }
  return out;
}

/** Whether the instructions' loops can be nested as they are (no duplication needed). */
export function hasSchedulableInameNesting(knl: LoopKernel): boolean {
  return getInameDuplicationOptions(knl).length === 0;
}

type Names = readonly string[];

/**
 * loopy's recursion: inames every set shares are set aside (they nest outside everything);
 * sets that share nothing are independent problems; a group that cannot be split that way
 * needs a duplication, of any of its inames, for any proper subset of the sets using it.
 */
function* options(sets: readonly Names[], common: Names): Generator<{ iname: string; sets: Names[] }> {
  const shared = sets.length ? sets[0].filter((n) => sets.every((s) => s.includes(n))) : [];
  if (shared.length) {
    const rest = distinct(sets.map((s) => s.filter((n) => !shared.includes(n))).filter((s) => s.length > 0));
    yield* options(rest, [...common, ...shared]);
    return;
  }
  const parts = partition(sets);
  if (parts.length > 1) {
    for (const part of parts)
      yield* options(
        sets.filter((s) => s.every((n) => part.includes(n))),
        common,
      );
    return;
  }
  if (parts.length === 0) return;
  for (const iname of parts[0]) {
    const using = sets.filter((s) => s.includes(iname));
    for (const subset of properSubsets(using)) yield { iname, sets: subset.map((s) => [...s, ...common]) };
  }
}

/** The connected groups of inames: two sets sharing an iname are in one group. */
function partition(sets: readonly Names[]): Names[] {
  let groups = sets.map((s) => [...s]);
  for (let merged = true; merged; ) {
    merged = false;
    outer: for (let a = 0; a < groups.length; a++) {
      for (let b = a + 1; b < groups.length; b++) {
        if (groups[a].some((n) => groups[b].includes(n))) {
          groups = [...groups.filter((_, k) => k !== a && k !== b), [...new Set([...groups[a], ...groups[b]])]];
          merged = true;
          break outer;
        }
      }
    }
  }
  return groups;
}

/** Every non-empty proper subset, smallest first (loopy's order: by size, then combinations in order). */
function properSubsets<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  const choose = (start: number, size: number, acc: T[]) => {
    if (acc.length === size) return void out.push([...acc]);
    for (let k = start; k < items.length; k++) choose(k + 1, size, [...acc, items[k]]);
  };
  for (let size = 1; size < items.length; size++) choose(0, size, []);
  return out;
}

function sameSet(a: Names, b: Names): boolean {
  return a.length === b.length && a.every((n) => b.includes(n));
}

function distinct(sets: readonly Names[]): Names[] {
  const out: Names[] = [];
  for (const s of sets) if (!out.some((o) => sameSet(o, s))) out.push(s);
  return out;
}
