/**
 * Private temporaries belong to one work-item: each holds its own copy, and sees only
 * what it wrote itself. A private temporary written inside a parallel iname (a local or
 * group axis) is therefore only correct where each work-item reads back its own writes:
 *
 *  - a reader that does not run on the writer's hardware axes reads, in every work-item,
 *    that work-item's copy alone, not the value the loop would have left;
 *  - a writer whose indices follow the axis (`t[a_dim_0] = …` with a_dim_0 on l.0) fills
 *    one element per work-item, so a reader must read exactly the element its own
 *    work-item wrote: any other element was written by another work-item, into its copy.
 *
 * That is what a prefetch tile does when it is set to 'private' after its fetch was spread
 * over the work-items (`defaultTag: 'l.auto'`): every work-item but one reads its tile
 * uninitialized. Loop inames on the same hardware axis stand for the same work-item, so
 * indices are compared with each parallel iname replaced by its axis.
 */
import { exprEquals, mapExpr } from '../expr/index.ts';
import { variable, type Expr } from '../expr/nodes.ts';
import { forEachSubscript, nameWritten, readExpressions, soleAssignee } from '../kernel/accesses.ts';
import { tagToString, type Instruction, type LoopKernel } from '../kernel/model.ts';
import { fail, quoted } from './check-error.ts';

export function checkPrivateTemporaryReads(knl: LoopKernel): void {
  // only a write inside a parallel iname can be read in another work-item: the readers of the
  // other temporaries are never looked for (a kernel of thousands of private temporaries, as
  // complex arithmetic lowers to, would otherwise cost temporaries × instructions)
  const parallelWriters = new Map<string, { w: Instruction; parallel: string[] }[]>();
  for (const w of knl.instructions) {
    const name = nameWritten(w);
    if (name === undefined || knl.temporaries.get(name)?.addressSpace !== 'private') continue;
    const parallel = w.withinInames.filter((n) => axisOf(knl, n) !== undefined);
    if (parallel.length === 0) continue;
    parallelWriters.set(name, [...(parallelWriters.get(name) ?? []), { w, parallel }]);
  }
  for (const t of knl.temporaries.values()) {
    const writers = parallelWriters.get(t.name);
    if (writers === undefined) continue;
    const readers = knl.instructions.filter((insn) => reads(knl, insn, t.name));
    for (const { w, parallel } of writers)
      for (const r of readers) if (r.id !== w.id) checkReader(knl, t.name, w, r, parallel);
  }
}

function checkReader(knl: LoopKernel, name: string, w: Instruction, r: Instruction, parallel: readonly string[]): void {
  const readerAxes = new Set(r.withinInames.map((n) => axisOf(knl, n)).filter((a) => a !== undefined));
  const elsewhere = parallel.filter((n) => !readerAxes.has(axisOf(knl, n)!));
  const where = (names: readonly string[]) => names.map((n) => `${n}: ${tagToString(knl.inameTags.get(n))}`).join(', ');
  const fix = `Leave '${name}' to Loom ('auto') or make it local, or run '${r.id}' on the same axes.`;
  if (elsewhere.length) {
    fail(knl, r, {
      check: 'private_read_across_work_items',
      inames: elsewhere,
      problem:
        `reads the private temporary '${name}', which '${w.id}' writes inside the parallel iname(s) ${quoted(elsewhere)} (${where(elsewhere)}) that '${r.id}' does not run in: ` +
        `each work-item would read only its own copy, not the value the loop leaves`,
      fix,
    });
  }
  const target = soleAssignee(w);
  const indices = target.kind === 'subscript' ? target.indices : [];
  const written = indices.map((ix) => onAxes(knl, ix));
  const followsAxis = written.some((ix, k) => !exprEquals(ix, indices[k]));
  if (!followsAxis) return;
  const foreign = readIndices(knl, r, name).find(
    (ix) => ix.length !== written.length || ix.some((x, k) => !exprEquals(onAxes(knl, x), written[k])),
  );
  if (foreign === undefined) return;
  fail(knl, r, {
    check: 'private_read_across_work_items',
    inames: parallel,
    problem:
      `reads the private temporary '${name}' at elements that '${w.id}' writes in other work-items (its indices follow the parallel iname(s) ${quoted(parallel)}, ${where(parallel)}): ` +
      `they are never written in this work-item's copy`,
    fix,
  });
}

/** The hardware axis an iname runs on ('l.0', 'g.1'), or undefined for a loop. */
function axisOf(knl: LoopKernel, iname: string): string | undefined {
  const tag = knl.inameTags.get(iname);
  return tag?.kind === 'local' || tag?.kind === 'group' ? tagToString(tag) : undefined;
}

/** `e` with every parallel iname replaced by a name for its axis: the same work-item reads the same. */
function onAxes(knl: LoopKernel, e: Expr): Expr {
  return mapExpr(e, (x) => {
    const axis = x.kind === 'var' ? axisOf(knl, x.name) : undefined;
    return axis === undefined ? x : variable(`axis ${axis}`);
  });
}

function reads(knl: LoopKernel, insn: Instruction, name: string): boolean {
  return readIndices(knl, insn, name).length > 0;
}

/** The index lists `insn` reads `name` with (a scalar read is an empty list). */
function readIndices(knl: LoopKernel, insn: Instruction, name: string): Expr[][] {
  const out: Expr[][] = [];
  for (const e of readExpressions(insn, knl.substitutions)) {
    forEachSubscript(e, (s) => {
      if (s.array === name) out.push([...s.indices]);
    });
    mapExpr(e, (x) => {
      if (x.kind === 'var' && x.name === name) out.push([]);
      return x;
    });
  }
  return out;
}
