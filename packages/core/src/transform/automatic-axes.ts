/**
 * `l.auto` resolved as loopy resolves it (`assign_automatic_axes`, which its precompute and
 * add_prefetch call before they return): the inames tagged `l.auto` get the local axes the
 * work-group already has, fitted to its size.
 *
 * The work-group's size per local axis is what the kernel's other local inames make it
 * (fixed before any `l.auto` iname is placed). Then, one axis after another, each
 * instruction that runs in `l.auto` inames and not yet on that axis puts there the one whose
 * global accesses move in the smallest stride (`a[i, j]` puts `j` on `l.0`). An iname
 * longer than the axis is split, with loopy's names: `a_dim_1` of 18 values on a 16-wide
 * axis becomes `a_dim_1_outer` (a loop) and `a_dim_1_inner` (the axis), so
 * `prioritizeLoops(knl, 'a_dim_0_outer, a_dim_1_outer')` and the like name them. What is
 * left once every axis has been tried goes to a free axis with room, the shortest first;
 * an iname no axis takes (no work-group, or all its axes busy) stays a loop, and so does
 * one whose length is not a constant.
 */
import { LoomError } from '../errors.ts';
import { int, type Expr } from '../expr/nodes.ts';
import { freeVariables, simplify, substitute, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { staticMax, staticMin } from '../sets/index.ts';
import { allAccesses } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import { stridesOf } from '../kernel/strides.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { splitIname } from './split-iname.ts';
import { tagInames } from './tag-inames.ts';

/**
 * loopy's `ValueArg.approximately`: the value a parameter is taken to have when strides that
 * depend on it are compared (`n + 2` against 1).
 */
const APPROXIMATE_PARAMETER = 1000;

/** The kernel with the inames of `auto` (untagged so far) placed on local axes, split where too long (see above). */
export function assignAutomaticAxes(knl: LoopKernel, auto: readonly string[]): LoopKernel {
  const pending = new Set(auto);
  for (const n of pending) {
    if (!knl.inames.includes(n)) throw new LoomError(`l.auto: unknown iname '${n}'`);
    if ((knl.inameTags.get(n)?.kind ?? 'for') !== 'for')
      throw new LoomError(`l.auto: '${n}' is tagged already (${knl.inameTags.get(n)!.kind})`);
  }
  const size = localSizes(knl, pending);

  // one step: the next iname placed (or left a loop), or undefined when this axis is done
  const step = (axis: number): LoopKernel | undefined => {
    for (const insn of knl.instructions) {
      if (insn.kind !== 'assign') continue;
      const here = insn.withinInames.filter((n) => pending.has(n));
      if (here.length === 0) continue;
      const busy = axesOf(knl, insn);
      if (axis < size.length) {
        if (busy.has(axis) || size[axis] === undefined) continue;
        const ranking = rankingByStride(knl, insn, here);
        const first = ranking?.find((n) => pending.has(n));
        if (first !== undefined) return place(first, axis, busy);
      } else {
        // the last of the longest first: the shortest one
        const byLength = [...here].sort((x, y) => (lengthOf(knl, y) ?? -1) - (lengthOf(knl, x) ?? -1));
        return place(byLength[byLength.length - 1], undefined, busy);
      }
    }
    return undefined;
  };

  const place = (iname: string, axis: number | undefined, busy: ReadonlySet<number>): LoopKernel => {
    pending.delete(iname);
    const length = lengthOf(knl, iname);
    if (length === undefined) return knl;
    const chosen = axis ?? roomiest(size, busy, length);
    if (chosen === undefined) return knl;
    const room = size[chosen]!;
    if (length <= room) return tagInames(knl, { [iname]: `l.${chosen}` });
    return splitIname(knl, iname, room, { innerTag: `l.${chosen}` });
  };

  for (let axis = 0; axis <= size.length; ) {
    const next = step(axis);
    if (next === undefined) axis++;
    else knl = next;
  }
  return knl;
}

/** A free axis with room for `length` values; failing that, the smallest free one (loopy's choice). */
function roomiest(
  size: readonly (number | undefined)[],
  busy: ReadonlySet<number>,
  length: number,
): number | undefined {
  const shorter: number[] = [];
  for (let axis = 0; axis < size.length; axis++) {
    const room = size[axis];
    if (busy.has(axis) || room === undefined) continue;
    if (room >= length) return axis;
    shorter.push(axis);
  }
  return shorter.sort((x, y) => size[x]! - size[y]!)[0];
}

/**
 * The work-group's size along each local axis that the kernel's inames tagged `l.N` make it
 * (the largest of their lengths); undefined for an axis of a length known only at run
 * time, which no `l.auto` iname joins.
 */
function localSizes(knl: LoopKernel, pending: ReadonlySet<string>): (number | undefined)[] {
  const size: (number | undefined)[] = [];
  const parametric = new Set<number>();
  for (const [iname, tag] of knl.inameTags) {
    if (tag.kind !== 'local' || pending.has(iname) || !knl.inames.includes(iname)) continue;
    const length = lengthOf(knl, iname);
    if (length === undefined) parametric.add(tag.axis);
    else size[tag.axis] = Math.max(size[tag.axis] ?? 0, length);
  }
  for (const axis of parametric) size[axis] = undefined;
  return Array.from({ length: size.length }, (_, k) => size[k]);
}

/** The local axes the instruction already runs on. */
function axesOf(knl: LoopKernel, insn: Instruction): Set<number> {
  const out = new Set<number>();
  for (const n of insn.withinInames) {
    const tag = knl.inameTags.get(n);
    if (tag?.kind === 'local') out.add(tag.axis);
  }
  return out;
}

/** The number of values an iname takes at most, when it is a constant (loopy's get_constant_iname_length). */
function lengthOf(knl: LoopKernel, iname: string): number | undefined {
  const term = [{ set: domainOf(knl, [iname]), expr: Linear.variable(iname) }];
  try {
    const lo = staticMin(term, knl.assumptions);
    const hi = staticMax(term, knl.assumptions);
    return lo.isConstant && hi.isConstant ? hi.constant - lo.constant + 1 : undefined;
  } catch {
    return undefined; // unbounded: loopy leaves such an iname unassigned too
  }
}

/**
 * The instruction's inames, the one whose global accesses move in the smallest stride
 * first (loopy's get_auto_axis_iname_ranking_by_stride); undefined when it makes no
 * global access through an `auto` iname.
 */
function rankingByStride(knl: LoopKernel, insn: Instruction, auto: readonly string[]): string[] | undefined {
  const aggregate = new Map<string, number>();
  for (const access of allAccesses(knl)) {
    if (access.instruction.id !== insn.id) continue;
    const arg = knl.arg(access.array);
    if (!arg || arg.kind === 'value' || !arg.shape) continue;
    const strides = stridesOf(arg.shape, arg.dimTags).map(approximately);
    const least = new Map<string, number>();
    access.indices.forEach((index, axis) => {
      const lin = toLinear(index);
      const stride = strides[axis];
      if (!lin || stride === undefined) return;
      for (const n of auto) {
        const c = lin.coeff(n);
        if (c === 0) continue;
        const s = c * stride;
        if (!least.has(n) || s < least.get(n)!) least.set(n, s);
      }
    });
    for (const [n, s] of least) aggregate.set(n, (aggregate.get(n) ?? 0) + s);
  }
  if (aggregate.size === 0) return undefined;
  const key = (n: string) => aggregate.get(n) ?? 2 ** 31 - 1;
  return [...insn.withinInames].sort((x, y) => key(x) - key(y) || (x < y ? -1 : x > y ? 1 : 0));
}

/** A stride's value with every parameter at its approximate value; undefined when not an integer then. */
function approximately(stride: Expr): number | undefined {
  const values = new Map([...freeVariables(stride)].map((n) => [n, int(APPROXIMATE_PARAMETER)] as const));
  const folded = simplify(substitute(stride, values), { integer: true });
  return folded.kind === 'int' ? folded.value : undefined;
}
