/**
 * ILP (loopy's "instruction-level parallelism"): an `ilp` iname is not a loop around a
 * group of instructions but is opened innermost around each instruction on its own,
 * so a work-item interleaves independent copies (register tiles). For that to keep
 * meaning, every temporary written inside an ILP iname gets one copy per value of it:
 * `acc` becomes `acc[i_ilp]`. Local (and global) temporaries too, as loopy's
 * `privatize_temporaries_with_inames` does: `<> a[i] = ...` over `i: l.0, j: ilp` becomes
 * `a[j, i]`, else every lane of a work-item would write the same `a[i]` (issue 24).
 *
 * An `unr` iname is not a lane: it is a sequential loop written out, its iterations in
 * order around the instructions as a `for` loop's, so a temporary needs no copy per value
 * (loopy privatizes over its ILP tags and `vec` only, not over `unr`).
 *
 * A `vec` iname's lanes are the same kind of copies (loopy privatizes over both): there the
 * new axis is tagged `vec`, so that `tmp` becomes a vector (`float4`) where the loop is
 * vector code (codegen/vectorize.ts).
 */
import { LoomError } from '../errors.ts';
import { int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { freeVariables, mapExpr, printExpr } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { staticMax, staticMin } from '../sets/index.ts';
import { nameWritten } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { DimTag, Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { rowMajorDimTags } from '../kernel/strides.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

export function isIlpIname(knl: LoopKernel, iname: string): boolean {
  return knl.inameTags.get(iname)?.kind === 'ilp';
}

/** ILP and `vec` inames: each value is a copy of the work, with its own private temporaries. */
export function isLaneIname(knl: LoopKernel, iname: string): boolean {
  const kind = knl.inameTags.get(iname)?.kind;
  return kind === 'ilp' || kind === 'vec';
}

/** The constant range of an ILP iname. */
export function ilpRange(knl: LoopKernel, iname: string): { lo: number; hi: number } {
  const term = [{ set: domainOf(knl, [iname]), expr: Linear.variable(iname) }];
  const lo = staticMin(term, knl.assumptions);
  const hi = staticMax(term, knl.assumptions);
  if (!lo.isConstant || !hi.isConstant) {
    throw new LoomError(
      `'${iname}' is tagged ${knl.inameTags.get(iname)?.kind ?? 'ilp'}, but its range (${lo.toString()} to ${hi.toString()}) is not constant; split it and tag the inner part`,
    );
  }
  return { lo: lo.constant, hi: hi.constant };
}

/**
 * The layout of a temporary with axes for `inames` put in front: untagged (row-major) as
 * before when no `vec` iname is among them; else the first `vec` iname's axis is a `vec`
 * axis (one vector per temporary element), the others nest outside the old axes.
 */
function laneDimTags(knl: LoopKernel, inames: readonly string[], t: TemporaryVariable): DimTag[] | undefined {
  const vecAxis = inames.findIndex((n) => knl.inameTags.get(n)?.kind === 'vec');
  if (!t.dimTags && vecAxis < 0) return undefined;
  const old = t.dimTags ?? rowMajorDimTags(t.shape.length);
  const hasVec = old.some((tag) => tag.kind === 'vec');
  let level = Math.max(-1, ...old.flatMap((tag) => (tag.kind === 'nested' ? [tag.level] : []))) + 1;
  // the innermost new axis is the next level up, the outermost the highest
  const added: DimTag[] = [];
  for (let k = inames.length - 1; k >= 0; k--)
    added.unshift(k === vecAxis && !hasVec ? { kind: 'vec' } : { kind: 'nested', level: level++ });
  return [...added, ...old];
}

export function privatizeIlpTemporaries(knl: LoopKernel): LoopKernel {
  const ilpOf = (insn: Instruction) => insn.withinInames.filter((n) => isLaneIname(knl, n));
  if (!knl.instructions.some((i) => ilpOf(i).length)) return knl;

  // which ILP inames each temporary must be expanded by
  const expand = new Map<string, string[]>();
  for (const insn of knl.instructions) {
    const target = nameWritten(insn);
    const t = target === undefined ? undefined : knl.temporaries.get(target);
    if (!t) continue;
    // a lane that already indexes what it writes has a place of its own (loopy's rule; issue 644)
    const indexedBy = new Set(
      insn.assignees.flatMap((a) => (a.kind === 'subscript' ? a.indices.flatMap((x) => [...freeVariables(x)]) : [])),
    );
    const inames = ilpOf(insn).filter((n) => !indexedBy.has(n));
    if (!inames.length) continue;
    const known = expand.get(t.name) ?? [];
    expand.set(t.name, [...known, ...inames.filter((n) => !known.includes(n))]);
  }
  if (expand.size === 0) return knl;

  const temporaries = new Map(knl.temporaries);
  for (const [name, inames] of expand) {
    const t = temporaries.get(name)!;
    const extents = inames.map((n) => {
      const { lo, hi } = ilpRange(knl, n);
      if (lo !== 0)
        throw new LoomError(
          `${knl.inameTags.get(n)?.kind === 'vec' ? 'vec' : 'ILP'} iname '${n}' must start at 0 to index the copies of '${name}'`,
        );
      return int(hi + 1);
    });
    temporaries.set(name, {
      ...t,
      shape: [...extents, ...t.shape],
      dimTags: laneDimTags(knl, inames, t),
    } satisfies TemporaryVariable);
  }

  // What is written changes too (`acc = ...` becomes `acc[i_ilp] = ...`). Rules are kept:
  // the rewrite depends on the instruction (its ILP loops), which one rule body shared by
  // several cannot follow, and realizing reductions has already written them out in the values.
  const rewrite = (e: Expr, insn: Instruction): Expr =>
    mapExpr(e, (x) => {
      const name = x.kind === 'var' ? x.name : x.kind === 'subscript' ? x.array : undefined;
      const inames = name === undefined ? undefined : expand.get(name);
      if (!inames || name === undefined) return x;
      const missing = inames.filter((n) => !insn.withinInames.includes(n));
      if (missing.length) {
        throw new LoomError(
          `instruction '${insn.id}' uses '${name}', which has one copy per value of the ILP or vec iname(s) '${missing.join(', ')}', outside of them: ${printExpr(x)}`,
          insn.span,
        );
      }
      const rest = x.kind === 'subscript' ? x.indices : [];
      return subscript(name, [...inames.map((n) => variable(n)), ...rest]);
    });
  return mapKernelExpressions(knl.with({ temporaries }), (e, insn) => rewrite(e, insn!), {
    what: 'ILP',
    assignee: 'whole',
    rules: 'keep',
  });
}
