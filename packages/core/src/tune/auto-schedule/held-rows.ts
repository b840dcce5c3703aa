/**
 * Rows held in registers: where several passes over a row read the same array alike (softmax's
 * maximum over k, its sum over l and its quotients over j each read `x[i, ·]`), a work-group takes
 * the row, its work-items one lane of every pass (the passes' work-items made one iname), and each
 * work-item reads its share of the row from global memory once, into registers, where every pass
 * finds it: one read of the row instead of one a pass, PyTorch's softmax. Each candidate is the
 * tree candidates' split plus three public transformations:
 *
 *     .split('k', 128, { inner: 'l.0', outer: 'unr' })   // likewise l and j
 *     .renameInames(['k_inner', 'l_inner', 'j_inner'], 'k_lane')
 *     .extractSubst('x_row', 'x[i, 128*x_step + k_lane]', ['x_step'])
 *     .precompute('x_row', ['k_outer', 'l_outer', 'j_outer'],
 *                 { storageAxes: ['x_step'], fetchOuterInames: ['i', 'k_lane'], space: 'private', defaultTag: 'unr' })
 *     .bufferArray('mx', { temporaryAddressSpace: 'private', initExpression: '0' })   // and s: the results in registers
 *
 * A work-item's elements of the row are a group's width apart, so a warp reads each step's
 * elements side by side (coalesced), and the rule's storage axis is the step, not the row's
 * index (whose box would span the whole row).
 */
import { printExpr } from '../../expr/print.ts';
import { freeVariables } from '../../expr/analysis.ts';
import { allAccesses } from '../../kernel/accesses.ts';
import type { LoopKernel } from '../../kernel/model.ts';
import { kernelNamer } from '../../kernel/rename.ts';
import type { Candidate, GroupRestrictions, KernelAnalysis } from './space.ts';
import type { ScheduleStep } from './steps.ts';

/** The most elements of one array a work-item holds for a row (registers, not local memory). */
const HELD_ELEMENTS = 16;

/** What `analyzeKernel` finds for holding rows: fresh names, and the arrays read alike by several rows. */
export interface HeldRows {
  /** The name of the one iname the rows' work-items become. */
  readonly lane: string;
  readonly reads: readonly {
    readonly array: string;
    /** The read's indices, printed; the row's own index at `rowAxis`. */
    readonly indices: readonly string[];
    readonly rowAxis: number;
    /** The rows (inames of `KernelAnalysis.rows`) that read the array so. */
    readonly rows: readonly string[];
    /** Fresh names for the rule and its parameter (the step along the row). */
    readonly rule: string;
    readonly step: string;
  }[];
  /**
   * The row's results a later pass reads (softmax's maximum `mx[i]` and sum `s[i]`): global arrays
   * indexed by parallel inames alone, written once a row (outside the rows' loops, unconditionally)
   * by an instruction that does not read them. They are
   * buffered in registers (`bufferArray` into private memory), read there by the later passes and
   * stored once at the end, instead of a round trip through global memory behind a barrier.
   */
  readonly results: readonly string[];
}

/**
 * The arrays that two or more of `rows` read with the same indices but for the row's own, which
 * is the row iname itself; every other index uses only `parallel` inames and parameters. Arrays
 * the kernel writes too are left where they are.
 */
export function heldRowsOf(
  knl: LoopKernel,
  rows: readonly string[],
  parallel: readonly string[],
): HeldRows | undefined {
  const groups = new Map<string, { array: string; indices: string[]; rowAxis: number; rows: Set<string> }>();
  const accesses = allAccesses(knl);
  // an array the kernel also writes (in place) may change between the passes: read where it is
  const written = new Set(accesses.filter((a) => a.isWrite).map((a) => a.array));
  for (const access of accesses) {
    if (access.isWrite || written.has(access.array) || !knl.arg(access.array)) continue;
    const used = access.indices.map((index) => [...freeVariables(index)].filter((v) => knl.inames.includes(v)));
    const rowAxes = access.indices.flatMap((index, axis) =>
      index.kind === 'var' && rows.includes(index.name) ? [axis] : [],
    );
    if (rowAxes.length !== 1) continue;
    const rowAxis = rowAxes[0]!;
    const others = used.filter((_, axis) => axis !== rowAxis).flat();
    if (!others.every((v) => parallel.includes(v))) continue;
    const indices = access.indices.map((index, axis) => (axis === rowAxis ? '' : printExpr(index)));
    const key = `${access.array}[${indices.join(', ')}]@${rowAxis}`;
    const group = groups.get(key) ?? { array: access.array, indices, rowAxis, rows: new Set<string>() };
    group.rows.add(used[rowAxis]![0]!);
    groups.set(key, group);
  }
  const { fresh } = kernelNamer(knl);
  const shared = [...groups.values()].filter((g) => g.rows.size >= 2);
  if (shared.length === 0) return undefined;
  const results = [...written].filter((array) => {
    if (!knl.arg(array)) return false;
    const writes = accesses.filter((a) => a.array === array && a.isWrite);
    const reads = accesses.filter((a) => a.array === array && !a.isWrite);
    const perRow = (a: (typeof accesses)[number]) =>
      a.indices.every((index) =>
        [...freeVariables(index)].every((v) => !knl.inames.includes(v) || parallel.includes(v)),
      );
    const writers = new Set(writes.map((w) => w.instruction.id));
    // written once a row, whole: outside the rows' loops (a reduction over them), unconditionally
    const once = (w: (typeof accesses)[number]) =>
      w.guards.length === 0 && w.instruction.withinInames.every((i) => parallel.includes(i));
    return (
      writes.every((w) => perRow(w) && once(w)) &&
      reads.length > 0 &&
      reads.every((r) => !writers.has(r.instruction.id))
    );
  });
  const lane = fresh(`${rows[0]}_lane`);
  return {
    lane,
    reads: shared.map((g) => ({
      array: g.array,
      indices: g.indices,
      rowAxis: g.rowAxis,
      rows: rows.filter((r) => g.rows.has(r)),
      rule: fresh(`${g.array}_row`),
      step: fresh(`${g.array}_step`),
    })),
    results,
  };
}

/**
 * A row a work-group of 32 (one warp: its reductions stay in registers), 64, 128 or 256 work-items
 * (each holding at most HELD_ELEMENTS of every array read alike), the parallel inames whole on group
 * axes, the arrays in `analysis.heldRows` read once into registers, the row's results kept there.
 */
export function heldRowCandidates(analysis: KernelAnalysis, restrictions: GroupRestrictions): Candidate[] {
  const held = analysis.heldRows;
  const rows = analysis.rows ?? [];
  if (!held || rows.length < 2 || analysis.parallel.length > 3 || restrictions.localMemory === false) return [];
  const extent = rows[0]!.extent;
  if (!rows.every((r) => r.extent === extent)) return [];
  const parallel = analysis.parallel.map((p) => p.iname);
  return [32, 64, 128, 256]
    .filter((size) => size <= restrictions.maxGroup && extent % size === 0 && extent / size <= HELD_ELEMENTS)
    .map((size): Candidate => {
      const steps: ScheduleStep[] = [];
      if (parallel.length > 0)
        steps.push({ kind: 'tag', tags: Object.fromEntries(parallel.map((p, axis) => [p, `g.${axis}`])) });
      for (const r of rows) steps.push({ kind: 'split', iname: r.iname, factor: size, outer: 'unr', inner: 'l.0' });
      steps.push({ kind: 'rename', inames: rows.map((r) => `${r.iname}_inner`), to: held.lane });
      for (const read of held.reads) {
        const indices = read.indices.map((index, axis) =>
          axis === read.rowAxis ? `${size}*${read.step} + ${held.lane}` : index,
        );
        steps.push({
          kind: 'extractSubst',
          name: read.rule,
          template: `${read.array}[${indices.join(', ')}]`,
          parameters: [read.step],
        });
        steps.push({
          kind: 'precompute',
          rule: read.rule,
          sweep: read.rows.map((r) => `${r}_outer`),
          storageAxes: [read.step],
          fetchOuterInames: [...parallel, held.lane],
        });
      }
      for (const array of held.results) steps.push({ kind: 'bufferArray', array });
      const arrays = held.reads.map((r) => r.array).join(', ');
      return {
        steps,
        label: `${rows.map((r) => r.iname).join(', ')}: rows over ${size} work-items, ${arrays} held in registers`,
      };
    });
}
