/**
 * Local temporaries are shared by the work-items of a group, so who writes which
 * element matters. Two ways a local temporary silently gives wrong values:
 *
 *  - the writer is not inside an iname of every local axis of its device kernel
 *    (loopy's check_for_unused_hw_axes_in_insns): all the work-items along the
 *    missing axis write the same elements at once;
 *  - the writers cover fewer elements than are read: written inside an iname that
 *    spans only part of the local axis, or under a condition, and read by all
 *    work-items. The unwritten elements hold whatever local memory held.
 *
 * The second compares, axis by axis, the range of indices written (over the writers'
 * loops and affine conditions) with the range read. Non-affine indices or conditions
 * are not judged: the check only refuses what it can show is wrong.
 */
import { LoomError } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { staticMax, staticMin, type BasicSet } from '../sets/index.ts';
import { ge } from '../sets/constraint.ts';
import { conditionConstraints } from '../kernel/conditions.ts';
import { forEachSubscript, nameWritten, readExpressions, soleAssignee } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { scheduledInstructions } from '../schedule/linearize.ts';
import type { Subkernel } from '../schedule/print-linearization.ts';
import { fail, quoted } from './check-error.ts';

export function checkLocalTemporaryWrites(knl: LoopKernel, subkernels: readonly Subkernel[]): void {
  for (const sub of subkernels) {
    const insns = scheduledInstructions(sub.schedule).map((id) => knl.instruction(id));
    const axes = new Set(insns.flatMap((insn) => localAxesOf(knl, insn)));
    for (const t of knl.temporaries.values()) {
      if (t.addressSpace !== 'local') continue;
      const writers = insns.filter((insn) => nameWritten(insn) === t.name);
      if (writers.length === 0) continue;
      for (const w of writers) checkUsesAllLocalAxes(knl, sub.name, t, w, axes);
      checkReadsAreWritten(knl, sub.name, t, writers, insns);
    }
  }
}

function checkUsesAllLocalAxes(
  knl: LoopKernel,
  kernelName: string,
  t: TemporaryVariable,
  w: Instruction,
  axes: ReadonlySet<number>,
): void {
  const used = new Set(localAxesOf(knl, w));
  const missing = [...axes].filter((a) => !used.has(a)).sort();
  if (missing.length === 0) return;
  const others = [...knl.inameTags]
    .filter(([, tag]) => tag.kind === 'local' && missing.includes(tag.axis))
    .map(([n]) => n);
  fail(knl, w, {
    check: 'unused_hw_axes',
    inames: others,
    problem:
      `writes the local temporary '${t.name}' without using local axis ${missing.map((a) => `l.${a}`).join(', ')} of device kernel '${kernelName}' ` +
      `(inames ${quoted(others)} run on it): every work-item along that axis writes the same elements at once`,
    fix: `Run the write inside an iname of that axis and index '${t.name}' by it, or make '${t.name}' private: setTemporaryAddressSpace(knl, '${t.name}', 'private').`,
  });
}

function checkReadsAreWritten(
  knl: LoopKernel,
  kernelName: string,
  t: TemporaryVariable,
  writers: readonly Instruction[],
  insns: readonly Instruction[],
): void {
  // per axis, the hull of what the writers write; undefined: not known, not judged
  const written: (Range | undefined)[] = t.shape.map(() => undefined);
  for (const w of writers) {
    const a = soleAssignee(w);
    if (a.kind !== 'subscript') return;
    const box = accessRange(knl, w, a.indices);
    for (const [axis, bounded] of box.entries()) {
      if (!bounded) return; // a writer we cannot bound could write anything
      // what it writes at integer points: the rational hull could cover a read no work-item writes
      const r = integerRange(bounded);
      const known = written[axis];
      written[axis] = known ? { lo: Math.min(known.lo, r.lo), hi: Math.max(known.hi, r.hi) } : r;
    }
  }
  for (const r of insns) {
    for (const e of readExpressions(r, knl.substitutions)) {
      forEachSubscript(e, (s, _reduction, guards) => {
        if (s.array !== t.name) return;
        for (const [axis, bounded] of accessRange(knl, r, s.indices, guards).entries()) {
          const wrote = written[axis];
          if (!bounded || !wrote || (bounded.lo >= wrote.lo && bounded.hi <= wrote.hi)) continue;
          // the bounds are the rational hull's: only integer points outside what is written are a fault
          const read = integerRange(bounded);
          if (read.lo >= wrote.lo && read.hi <= wrote.hi) continue;
          const inames = r.withinInames.filter((n) => knl.inameTags.get(n)?.kind === 'local');
          fail(knl, r, {
            check: 'local_read_not_written',
            inames,
            problem:
              `${inames.length ? `(work-items ${quoted(inames)}) ` : ''}reads elements ${read.lo} to ${read.hi} along axis ${axis} of the local temporary '${t.name}', but the instructions ` +
              `${quoted(writers.map((w) => w.id))} of device kernel '${kernelName}' write only ${wrote.lo} to ${wrote.hi} ` +
              `(their inames or conditions cover fewer work-items): the other elements hold whatever local memory held`,
            fix: `Write every element that is read (widen the writer's iname or condition to the whole local axis), or read only what is written.`,
          });
        }
      });
    }
  }
}

interface Range {
  readonly lo: number;
  readonly hi: number;
}

/** A range an index takes, bounded over the rational points of `set`, with what it was bounded from. */
interface BoundedRange extends Range {
  readonly set: BasicSet;
  readonly expr: Linear;
}

/**
 * The range `expr` takes over the integer points of `set`, within the rational bounds found:
 * a tile split off an extent it does not divide leaves integer bounds the projection does not
 * see (a 32-row tile over 24 rows reads rows 0 to 27, not the hull's 35), so each end is searched
 * for with exact emptiness tests.
 */
function integerRange({ set, expr, lo, hi }: BoundedRange): Range {
  const reaches = (at: number, sense: 1 | -1) =>
    !set.addConstraints([ge(expr.sub(Linear.constant(at)).scale(sense))]).isEmpty();
  const last = (from: number, to: number, holds: (v: number) => boolean) => {
    // the largest v in [from, to] with holds(v), holds monotone decreasing; from when none (mostly the hull's end holds)
    if (holds(to)) return to;
    let [a, b] = [from, to - 1];
    while (a < b) {
      const mid = Math.ceil((a + b) / 2);
      if (holds(mid)) a = mid;
      else b = mid - 1;
    }
    return a;
  };
  const top = last(lo, hi, (v) => reaches(v, 1));
  const bottom = -last(-top, -lo, (v) => reaches(-v, -1));
  return { lo: bottom, hi: top };
}

/**
 * Per index, the constant range it takes over the instruction's loops and affine conditions
 * (its predicates, and for a read the `if(c, ...)` branches around it: `guards`).
 */
function accessRange(
  knl: LoopKernel,
  insn: Instruction,
  indices: readonly Expr[],
  guards: readonly Expr[] = [],
): (BoundedRange | undefined)[] {
  let set = domainOf(knl, insn.withinInames);
  for (const p of [...insn.predicates, ...guards]) {
    const { constraints, complete } = conditionConstraints(p);
    if (complete && constraints.every((c) => mentionsOnly(set, c.expr))) set = set.addConstraints(constraints);
  }
  return indices.map((ix) => {
    const expr = toLinear(ix);
    if (!expr || !mentionsOnly(set, expr)) return undefined;
    try {
      const term = [{ set, expr }];
      const lo = staticMin(term, knl.assumptions);
      const hi = staticMax(term, knl.assumptions);
      return lo.isConstant && hi.isConstant ? { lo: lo.constant, hi: hi.constant, set, expr } : undefined;
    } catch (e) {
      if (e instanceof LoomError) return undefined; // no static bound: not judged
      throw e;
    }
  });
}

function mentionsOnly(set: BasicSet, expr: Linear): boolean {
  return expr.variables.every((v) => set.dims.includes(v) || set.params.includes(v));
}

function localAxesOf(knl: LoopKernel, insn: Instruction): number[] {
  return insn.withinInames.flatMap((n) => {
    const tag = knl.inameTags.get(n);
    return tag?.kind === 'local' ? [tag.axis] : [];
  });
}
