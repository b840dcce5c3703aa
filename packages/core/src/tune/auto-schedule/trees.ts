/**
 * The candidates of `autoSchedule`'s space that reduce across a work-group, always ranked (no
 * sample may miss them): a tree in local memory over l.0 a row a group, or several rows side by
 * side along l.1, and the tree over l.1 beneath 32 columns of l.0. realizeReductions builds the
 * trees; these only place the inames.
 */
import type { Candidate, GroupRestrictions, KernelAnalysis } from './space.ts';
import type { ScheduleStep } from './steps.ts';

/**
 * Reductions across the work-group: each parallel iname whole on a group axis, the reduction
 * iname split with its inner part on l.0 (a tree in local memory, which realizeReductions
 * builds), as a row sum reads a long row with neighbouring work-items on neighbouring elements.
 * Where the kernel has several rows (`KernelAnalysis.rows`: softmax's maximum, sum and quotients),
 * each is split so, over the same work-items: a work-group takes a row, one pass after another.
 * Each also with several rows side by side in one work-group, along l.1 (batched matrix-vector
 * products as a GPU programmer writes them: 8 rows of 32 work-items a group).
 */
export function treeCandidates(analysis: KernelAnalysis, restrictions: GroupRestrictions) {
  const rows = analysis.reduction ? [analysis.reduction] : (analysis.rows ?? []);
  if (rows.length === 0 || analysis.parallel.length > 3 || restrictions.localMemory === false) return [];
  const longest = Math.max(...rows.map((r) => r.extent));
  const what = rows.map((r) => r.iname).join(', ');
  const candidates: Candidate[] = [];
  // a row a work-group, or several side by side along l.1 (one of the parallel inames split there)
  for (const size of [32, 64, 128, 256].filter((n) => n <= restrictions.maxGroup && n < 2 * longest))
    for (const [stacked, count] of [[undefined, 1] as const, ...stackings(analysis, size, restrictions)]) {
      const steps: ScheduleStep[] = [];
      const tags = Object.fromEntries(
        analysis.parallel.flatMap((p, axis) => (p === stacked ? [] : [[p.iname, `g.${axis}`] as const])),
      );
      if (Object.keys(tags).length > 0) steps.push({ kind: 'tag', tags });
      if (stacked) {
        const axis = analysis.parallel.indexOf(stacked);
        steps.push({ kind: 'split', iname: stacked.iname, factor: count, outer: `g.${axis}`, inner: 'l.1' });
      }
      for (const r of rows) steps.push({ kind: 'split', iname: r.iname, factor: size, inner: 'l.0' });
      const rowsWord = rows.length > 1 ? 'rows' : 'a tree';
      const label = `${what}: ${rowsWord} over ${size} work-items${stacked ? `, ${count} ${stacked.iname} a group on l.1` : ''}`;
      candidates.push({ steps, label });
    }
  return candidates;
}

/**
 * The ways to stack rows in one work-group of trees `size` wide: each parallel iname split by 2,
 * 4 or 8 onto l.1, where the group stays within the device's and the iname has that many values
 * (a work-group of 32 a row is one warp, launched and scheduled alone; 8 rows of 32 share one).
 */
function stackings(analysis: KernelAnalysis, size: number, restrictions: GroupRestrictions) {
  return analysis.parallel.flatMap((p) =>
    [2, 4, 8].filter((n) => n * size <= restrictions.maxGroup && n <= p.extent).map((n) => [p, n] as const),
  );
}

/**
 * Reductions across a second local axis: the first parallel iname split onto l.0 by a warp's 32
 * (neighbouring work-items on neighbouring elements of a row), the reduction iname split with its
 * inner part on l.1 (each work-item sums every S-th element, then a tree in local memory across
 * l.1), the other parallel inames whole on group axes: column sums read 32 columns a row at a time.
 */
export function crossTreeCandidates(analysis: KernelAnalysis, restrictions: GroupRestrictions) {
  const r = analysis.reduction;
  const [first, ...others] = analysis.parallel;
  if (!r || !first || others.length > 2 || restrictions.localMemory === false || first.extent < 32) return [];
  const tags = Object.fromEntries(others.map((p, k) => [p.iname, `g.${k + 1}`]));
  return [4, 8, 16, 32]
    .filter((size) => 32 * size <= restrictions.maxGroup && size < 2 * r.extent)
    .map((size): Candidate => {
      const steps: ScheduleStep[] = others.length ? [{ kind: 'tag', tags }] : [];
      steps.push({ kind: 'split', iname: first.iname, factor: 32, outer: 'g.0', inner: 'l.0' });
      steps.push({ kind: 'split', iname: r.iname, factor: size, inner: 'l.1' });
      return { steps, label: `${r.iname}: a tree over ${size} work-items of l.1, ${first.iname} over 32 of l.0` };
    });
}
