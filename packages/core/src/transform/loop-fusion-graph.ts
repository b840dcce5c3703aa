/**
 * The loop dependence graph that Kennedy's fusion (loop-fusion.ts) walks: for candidate loops
 * that are siblings in the loop nest tree, which must run before which, and which pairs must
 * never share one loop.
 *
 * Two candidates may not be fused when
 *  - something that is not a candidate loop (another loop nest, or a statement of the
 *    enclosing loops) must run after one and before the other: a fused loop could not be
 *    both before and after it;
 *  - the later one reads a reduction's result that the earlier computes over its loop: the
 *    value exists only once that loop has ended;
 *  - they touch one element of a variable (one of them writing it) in iterations that fusion
 *    would reorder: iteration p of the earlier loop and iteration s < p of the later one
 *    (`x[i0 - 1] = ...` then `x[i1] = ...`), or where an index is not affine (indirection)
 *    or C code touches the variable, since then nothing proves they do not.
 */
import { LoomError } from '../errors.ts';
import { toLinear } from '../expr/affine.ts';
import { assigneeName, reductionInames, touchesByVariable, type Touch } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { Linear } from '../linear.ts';
import { eq, ge } from '../sets/index.ts';

/** The graph over the candidates: `successors` must run after; an edge in `infusible` forbids fusing its ends. */
export interface LoopDependenceGraph {
  readonly candidates: readonly string[];
  readonly successors: ReadonlyMap<string, ReadonlySet<string>>;
  /** `from\0to` for each edge whose ends must stay apart. */
  readonly infusible: ReadonlySet<string>;
}

export const edgeKey = (from: string, to: string): string => `${from}\0${to}`;

/** What an instruction is, seen from the loops enclosing the candidates. */
type Node = { kind: 'candidate'; iname: string } | { kind: 'other'; key: string };

/**
 * The graph for `candidates`, siblings inside the loops `outer` (every iname of the nests
 * around them; none at the root); `otherNests` are the sibling nests holding no candidate.
 */
export function loopDependenceGraph(
  knl: LoopKernel,
  candidates: readonly string[],
  outer: readonly string[],
  otherNests: readonly (readonly string[])[],
): LoopDependenceGraph {
  const loopsOf = new Map(
    knl.instructions.map((i) => [i.id, new Set([...i.withinInames, ...reductionInames(i, knl.substitutions)])]),
  );
  const inScope = (insn: Instruction) => outer.every((n) => loopsOf.get(insn.id)!.has(n));
  const nodesOf = (insn: Instruction): Node[] => {
    const loops = loopsOf.get(insn.id)!;
    const mine = candidates.filter((c) => loops.has(c));
    if (mine.length) return mine.map((iname) => ({ kind: 'candidate', iname }));
    // every instruction's loops lie on one path of the tree, so at most one sibling nest holds it
    const nest = otherNests.find((n) => n.some((i) => loops.has(i)));
    return [{ kind: 'other', key: nest ? `nest ${nest.join(',')}` : `insn ${insn.id}` }];
  };
  const keyOf = (n: Node) => (n.kind === 'candidate' ? `loop ${n.iname}` : n.key);

  // the graph over instructions (merged into their loops), before the others are taken out
  const succ = new Map<string, Map<string, Node>>();
  const early = new Set<string>(); // edges leaving a reduction before it has its result
  const scope = knl.instructions.filter(inScope);
  const byId = new Map(scope.map((i) => [i.id, i]));
  for (const insn of scope) {
    for (const to of nodesOf(insn)) {
      if (!succ.has(keyOf(to))) succ.set(keyOf(to), new Map());
      for (const depId of insn.dependsOn) {
        const dep = byId.get(depId);
        if (!dep) continue; // outside the enclosing loops: ordered with them as a whole
        const reduced = reductionInames(dep, knl.substitutions);
        for (const from of nodesOf(dep)) {
          if (keyOf(from) === keyOf(to)) continue;
          if (!succ.has(keyOf(from))) succ.set(keyOf(from), new Map());
          succ.get(keyOf(from))!.set(keyOf(to), to);
          if (from.kind === 'candidate' && to.kind === 'candidate' && reduced.has(from.iname))
            early.add(edgeKey(from.iname, to.iname));
        }
      }
    }
  }

  // candidate edges: direct ones, and infusible ones through something that is no candidate
  const successors = new Map(candidates.map((c) => [c, new Set<string>()]));
  const infusible = new Set(early);
  for (const c of candidates) {
    const direct = succ.get(`loop ${c}`) ?? new Map<string, Node>();
    const queue = [...direct.values()];
    const visited = new Set<string>();
    for (const to of direct.values()) if (to.kind === 'candidate') successors.get(c)!.add(to.iname);
    while (queue.length) {
      const n = queue.shift()!;
      if (n.kind === 'candidate' || visited.has(n.key)) continue;
      visited.add(n.key);
      for (const next of succ.get(n.key)?.values() ?? []) {
        if (next.kind === 'candidate') {
          successors.get(c)!.add(next.iname);
          infusible.add(edgeKey(c, next.iname));
        } else queue.push(next);
      }
    }
  }

  addMemoryEdges(knl, candidates, outer, successors, infusible);
  return { candidates, successors, infusible };
}

/** Orders every pair of candidates that touch one variable (one writing it), and marks those fusion would reorder. */
function addMemoryEdges(
  knl: LoopKernel,
  candidates: readonly string[],
  outer: readonly string[],
  successors: Map<string, Set<string>>,
  infusible: Set<string>,
): void {
  const rank = new Map(topologicalOrder(candidates, successors).map((c, k) => [c, k]));
  const candidateOf = (insn: Instruction) => insn.withinInames.find((n) => rank.has(n));
  for (const touches of touchesWithCCode(knl).values()) {
    for (const a of touches) {
      for (const b of touches) {
        if (!a.isWrite && !b.isWrite) continue;
        const [ca, cb] = [candidateOf(a.insn), candidateOf(b.insn)];
        if (ca === undefined || cb === undefined || ca === cb) continue;
        const [pred, succ] = rank.get(ca)! < rank.get(cb)! ? [a, b] : [b, a];
        const [from, to] = rank.get(ca)! < rank.get(cb)! ? [ca, cb] : [cb, ca];
        successors.get(from)!.add(to);
        if (!infusible.has(edgeKey(from, to)) && mayBeReordered(knl, pred, from, succ, to, outer))
          infusible.add(edgeKey(from, to));
      }
    }
  }
}

/**
 * Every touch of each variable; C code (`cInstruction`) touches the whole of what it reads and
 * writes, since nothing says which elements its text reaches.
 */
function touchesWithCCode(knl: LoopKernel): Map<string, Touch[]> {
  const out = touchesByVariable(knl);
  for (const insn of knl.instructions) {
    if (!insn.cCode) continue;
    const add = (name: string, isWrite: boolean) =>
      out.set(name, [...(out.get(name) ?? []), { insn, indices: undefined, isWrite }]);
    for (const name of insn.cCode.readVariables) add(name, false);
    for (const a of insn.assignees) add(assigneeName(a), true);
  }
  return out;
}

/**
 * Whether, in one iteration of the enclosing loops `outer`, iteration p of loop `from` (where
 * `pred` is) and iteration s < p of loop `to` (where `succ` is) can touch the same element:
 * fusing the loops would run the second before the first.
 */
function mayBeReordered(
  knl: LoopKernel,
  pred: Touch,
  from: string,
  succ: Touch,
  to: string,
  outer: readonly string[],
): boolean {
  const [first, second] = [pred.indices ?? [], succ.indices ?? []].map((ix) => ix.map(toLinear));
  // the whole variable on one side: any two iterations meet
  const whole = pred.indices === undefined || succ.indices === undefined;
  if (!whole && (first.length !== second.length || [...first, ...second].some((f) => f === undefined))) return true;
  const loops = (insn: Instruction) => [...insn.withinInames, ...reductionInames(insn, knl.substitutions)];
  const [dp, ds] = [pred.insn, succ.insn].map((i) => domainOf(knl, loops(i)));
  const mentioned = (f: Linear | undefined, dims: readonly string[], params: readonly string[]) =>
    [...f!.coeffs.keys()].every((n) => dims.includes(n) || params.includes(n));
  if (!first.every((f) => mentioned(f, dp.dims, dp.params)) || !second.every((f) => mentioned(f, ds.dims, ds.params)))
    return true;
  // the second touch's own loops are primed; the enclosing ones are the same iteration
  const primed = new Map(ds.dims.filter((d) => !outer.includes(d)).map((d) => [d, `${d}'`] as const));
  const renamed = [...primed].reduce((set, [a, b]) => set.renameVariable(a, b), ds);
  const prime = (f: Linear) =>
    Linear.of(
      [...f.coeffs].map(([n, c]) => [primed.get(n) ?? n, c] as const),
      f.constant,
    );
  const sameElement = whole ? [] : first.map((f, k) => eq(f!.sub(prime(second[k]!))));
  const later = ge(
    Linear.of(
      [
        [from, 1],
        [primed.get(to) ?? to, -1],
      ],
      -1,
    ),
  );
  return !dp
    .intersect(renamed)
    .addConstraints([...sameElement, later])
    .isEmpty();
}

/** The candidates in an order every edge goes forward in; ties broken by name, so the result is stable. */
function topologicalOrder(
  candidates: readonly string[],
  successors: ReadonlyMap<string, ReadonlySet<string>>,
): string[] {
  const indegree = new Map(candidates.map((c) => [c, 0]));
  for (const s of successors.values()) for (const t of s) indegree.set(t, indegree.get(t)! + 1);
  const ready = candidates.filter((c) => indegree.get(c) === 0).sort();
  const out: string[] = [];
  while (ready.length) {
    const c = ready.shift()!;
    out.push(c);
    for (const t of successors.get(c)!) {
      indegree.set(t, indegree.get(t)! - 1);
      if (indegree.get(t) === 0) {
        ready.push(t);
        ready.sort();
      }
    }
  }
  if (out.length < candidates.length) {
    const stuck = candidates.filter((c) => !out.includes(c));
    throw new LoomError(
      `the loops '${stuck.join("', '")}' must each run both before and after another: their instructions depend on each other across the loops, so no order enters each loop once`,
    );
  }
  return out;
}
