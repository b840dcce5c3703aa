/**
 * `getKennedyUnweightedFusionCandidates(knl, ['j0', 'j1'])`: which of the candidate loops can
 * become one loop, found as Kennedy and McKinley's unweighted loop fusion does (loopy's
 * get_kennedy_unweighted_fusion_candidates; Kennedy & McKinley, LCPC 1993, "Maximizing loop
 * parallelism and improving data locality via loop fusion and distribution"). The answer maps
 * a fresh iname to the loops that become it, as `renameInamesInBatch` takes it.
 *
 * Only sibling loops can fuse: candidates inside the same enclosing loops (in the partial loop
 * nest tree, schedule/loop-nest-tree.ts), each group on its own. In a group, fusion proceeds
 * in rounds: a round takes the loops whose predecessors are all done, and keeps adding the
 * successors of what it took, unless an edge between them forbids it (loop-fusion-graph.ts
 * says which), or some predecessor of theirs is not in the round yet. Each round becomes one
 * loop. Candidates on one parallel hardware axis (or all ILP, or all vec) run together
 * anyway: each such set is one batch.
 */
import { LoomError } from '../errors.ts';
import { takenNames } from '../kernel/arg-layouts.ts';
import { reductionInames } from '../kernel/accesses.ts';
import { tagToString, type LoopKernel } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { nameList } from '../names.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { partialLoopNestTree, type LoopNest } from '../schedule/loop-nest-tree.ts';
import { edgeKey, loopDependenceGraph, type LoopDependenceGraph } from './loop-fusion-graph.ts';

/** The options getKennedyUnweightedFusionCandidates reads; any other key is an error. */
const KENNEDY_OPTIONS = optionKeys<KennedyFusionOptions>()(['prefix']);

/** Options of `getKennedyUnweightedFusionCandidates`. */
export interface KennedyFusionOptions {
  /** The start of the fused inames' names (made unique in the kernel): default `ifused`. */
  readonly prefix?: string;
}

/**
 * The loops among `candidates` that can be fused, as a map from a new iname to the inames
 * that become it (loopy's `get_kennedy_unweighted_fusion_candidates`); every candidate is in
 * one entry, alone where it fuses with nothing. No entry changes what the kernel computes.
 * ```ts
 * const knl = makeKernel('{ [j0, j1]: 0 <= j0, j1 < 10 }', 'a[j0] = 1\nb[j1] = 2 * a[j1]', { seqDependencies: true });
 * const batches = getKennedyUnweightedFusionCandidates(knl, ['j0', 'j1']); // Map { 'ifused' => ['j0', 'j1'] }
 * const fused = renameInamesInBatch(knl, batches); // one loop, ifused
 * ```
 * Candidates that one instruction runs inside of both (`a[i, j]`), or one nested in another,
 * are refused, as is a mix of reduction inames and loops instructions run in.
 */
export function getKennedyUnweightedFusionCandidates(
  knl: LoopKernel,
  candidates: string | readonly string[],
  options: KennedyFusionOptions = {},
): Map<string, string[]> {
  checkOptionKeys('getKennedyUnweightedFusionCandidates', options, KENNEDY_OPTIONS);
  const what = 'getKennedyUnweightedFusionCandidates';
  let rest = [...new Set(nameList(candidates))].sort();
  const unknown = rest.filter((c) => !knl.inames.includes(c));
  if (unknown.length)
    throw new LoomError(
      `${what}: '${unknown.join("', '")}' are no inames of the kernel (inames: ${knl.inames.join(', ')})`,
    );
  checkNotMixed(knl, rest, what);

  const taken = takenNames(knl);
  const fresh = () => {
    const name = uniqueName(options.prefix ?? 'ifused', taken);
    taken.add(name);
    return name;
  };
  const out = new Map<string, string[]>();

  // loops on one hardware axis (or all ILP, all vec) are no loops to order: they run together
  const byTag = new Map<string, string[]>();
  for (const c of rest) {
    const tag = knl.inameTags.get(c);
    if (tag && (tag.kind === 'local' || tag.kind === 'group' || tag.kind === 'ilp' || tag.kind === 'vec'))
      byTag.set(tagToString(tag), [...(byTag.get(tagToString(tag)) ?? []), c]);
  }
  for (const lump of byTag.values()) out.set(fresh(), lump);
  const lumped = new Set([...byTag.values()].flat());
  rest = rest.filter((c) => !lumped.has(c));

  const tree = partialLoopNestTree(knl, { withReductions: true });
  const nestOf = (c: string) => {
    const nest = tree.nestOf(c);
    if (!nest) throw new LoomError(`${what}: no instruction runs in loop '${c}', so it has no place to fuse`);
    return nest;
  };
  const seenNests = new Map<LoopNest, string>();
  for (const c of rest) {
    const other = seenNests.get(nestOf(c));
    if (other !== undefined)
      throw new LoomError(
        `${what}: '${other}' and '${c}' cannot be fused: they can be nested within one another (an instruction runs in both)`,
      );
    seenNests.set(nestOf(c), c);
    const around = tree.ancestors(nestOf(c)).flatMap((n) => n.inames);
    const outerCandidate = rest.find((o) => around.includes(o));
    if (outerCandidate !== undefined)
      throw new LoomError(
        `${what}: cannot fuse '${c}' with '${outerCandidate}': '${c}' is nested within '${outerCandidate}'`,
      );
  }

  // siblings in the tree are fused among themselves
  const groups = new Map<LoopNest, string[]>();
  for (const c of rest) {
    const parent = tree.parent(nestOf(c))!;
    groups.set(parent, [...(groups.get(parent) ?? []), c]);
  }
  for (const [parent, members] of groups) {
    const outer = [parent, ...tree.ancestors(parent)].flatMap((n) => n.inames);
    const others = tree
      .children(parent)
      .filter((n) => !n.inames.some((i) => members.includes(i)))
      .map((n) => subtreeInames(tree, n));
    for (const batch of kennedyRounds(loopDependenceGraph(knl, members, outer, others))) out.set(fresh(), batch);
  }
  return out;
}

/** A reduction loop and a loop instructions run in differ in what their iterations mean: refused together. */
function checkNotMixed(knl: LoopKernel, candidates: readonly string[], what: string): void {
  const within = candidates.filter((c) => knl.instructions.some((i) => i.withinInames.includes(c)));
  const reduced = candidates.filter((c) => knl.instructions.some((i) => reductionInames(i, knl.substitutions).has(c)));
  if (within.length && reduced.length) {
    const loop = within.find((c) => c !== reduced[0]) ?? within[0];
    throw new LoomError(
      `${what}: '${reduced[0]}' is a reduction iname and '${loop}' a loop instructions run in; Loom fuses loops of one kind at a time`,
    );
  }
}

/** Every iname of `nest` and the nests inside it: the whole of a sibling loop nest. */
function subtreeInames(tree: ReturnType<typeof partialLoopNestTree>, nest: LoopNest): string[] {
  return [...nest.inames, ...tree.children(nest).flatMap((c) => subtreeInames(tree, c))];
}

/** Kennedy's rounds over the graph: each round a set of loops to fuse, every candidate in one. */
function kennedyRounds(graph: LoopDependenceGraph): string[][] {
  const remaining = new Set(graph.candidates);
  const rounds: string[][] = [];
  const predecessorsLeft = (c: string) =>
    graph.candidates.filter((p) => remaining.has(p) && graph.successors.get(p)!.has(c));
  while (remaining.size) {
    const ready = [...remaining].filter((c) => predecessorsLeft(c).length === 0).sort();
    if (!ready.length)
      throw new LoomError(`the loops '${[...remaining].join("', '")}' depend on each other in a cycle`);
    const taken = new Set<string>();
    const barred = new Set<string>();
    const queue = [...ready];
    while (queue.length) {
      const c = queue.shift()!;
      if (taken.has(c) || barred.has(c)) continue;
      if (!predecessorsLeft(c).every((p) => taken.has(p))) continue;
      taken.add(c);
      for (const s of [...graph.successors.get(c)!].sort()) {
        if (graph.infusible.has(edgeKey(c, s))) barred.add(s);
        else queue.push(s);
      }
    }
    rounds.push([...taken].sort());
    for (const c of taken) remaining.delete(c);
  }
  return rounds;
}
