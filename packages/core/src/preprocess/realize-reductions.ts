/**
 * Reductions become instructions (loopy's `realize_reduction`): each `sum(k, e)` an
 * accumulator and the instructions that fill it, its place in the expression taken by the
 * accumulator. Done before linearization, after types are known (the neutral element depends
 * on the dtype).
 *
 * How depends on the reduction's inames:
 *  - sequential ones (`for`, `unr`, untagged) loop (../reduction/sequential.ts);
 *  - local ones (`l.N`) combine the work-items' values in a tree in local memory
 *    (../reduction/local-tree.ts), after each work-item has reduced the sequential ones, or,
 *    given a `target` with subgroup functions, by them (../reduction/subgroup-tree.ts);
 *  - group ones (`g.N`) are refused: work-groups cannot combine values within a launch.
 * A triangular reduction asked to be a scan (`forceScan`, `automagicScansOk`) carries its
 * result from one value of its sweep iname to the next instead (../reduction/scan.ts).
 *
 * A reduction inside another is realized first, inside the loops of the outer one. A
 * multiple assignment (`v, k = argmax(i, a[i], i)`) becomes one assignment per result.
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { children, mapChildren, printExpr, substitute } from '../expr/index.ts';
import { ifThenElse, not, reduce as reduction, variable, type Expr, type Reduce } from '../expr/nodes.ts';
import { reductionOperation, type ReductionOperation } from '../reduction/registry.ts';
import { realizeLocalTree } from '../reduction/local-tree.ts';
import { Realization, type Realized, type Scope } from '../reduction/realization.ts';
import { realizeSequential } from '../reduction/sequential.ts';
import { scanToRealize, trackingIname, type ScanOptions, type ScanParameters } from '../reduction/scan.ts';
import { realizeLocalScan } from '../reduction/scan-local.ts';
import { assigneeName, expandSubstitutions } from '../kernel/accesses.ts';
import { tagToString, type Instruction, type LoopKernel } from '../kernel/model.ts';
import { exprType } from '../kernel/type-inference.ts';
import type { Target } from '../codegen/target.ts';
import { targetFacts } from '../codegen/target-facts.ts';

export interface RealizeReductionOptions extends ScanOptions {
  /** Realize only the reductions of these instructions (loopy's `insn_id_filter`); default: all. */
  readonly insnIdFilter?: readonly string[];
}

export function realizeReductions(knl: LoopKernel, options: RealizeReductionOptions = {}, target?: Target): LoopKernel {
  const only = options.insnIdFilter && new Set(options.insnIdFilter);
  for (const id of only ?? [])
    if (!knl.instructions.some((i) => i.id === id)) throw new LoomError(`realizeReduction: no instruction '${id}'`);
  if (options.forceOuterInameForScan !== undefined && !options.forceScan && !options.automagicScansOk) {
    throw new LoomError(
      'realizeReduction: forceOuterInameForScan names the sweep iname of scans, but no scan was asked for (forceScan or automagicScansOk)',
    );
  }
  if (options.forceOuterInameForScan !== undefined && !knl.inames.includes(options.forceOuterInameForScan)) {
    throw new LoomError(
      `realizeReduction: forceOuterInameForScan: the kernel has no iname '${options.forceOuterInameForScan}'`,
    );
  }
  // nothing to realize and no rule to expand (most kernels): the kernel as it is
  if (knl.substitutions.size === 0 && !knl.instructions.some(reduces)) return knl;
  // a target's subgroup functions make local reductions cheaper (../reduction/subgroup-tree.ts)
  const r = new Realization(knl, options, target && targetFacts(target).subgroups);
  const out: Instruction[] = [];
  /** A multiple assignment's id → the ids of its parts: who waited for it waits for all. */
  const parts = new Map<string, string[]>();
  for (const insn of knl.instructions) {
    if (!insn.expression || (only && !only.has(insn.id))) {
      out.push(insn);
      continue;
    }
    r.added = [];
    const readers = readersOf(knl, insn);
    // Substitution rules are expanded in the conditions too (`if f(i) > 0`). A reduction in a
    // condition (`if sum(k, b[i, k]) > 0`) is accumulated first and unconditionally: the
    // condition is what it computes. The expression's reductions then accumulate under the
    // realized conditions, as the instruction runs.
    const conditions = insn.predicates.map((p) =>
      realizeExpr(r, expandSubstitutions(p, knl.substitutions), {
        insn,
        within: insn.withinInames,
        guards: [],
        readers,
      }),
    );
    const predicates = conditions.map((c) => single(c, insn));
    const value = realizeExpr(r, expandSubstitutions(insn.expression, knl.substitutions), {
      insn,
      within: insn.withinInames,
      guards: predicates,
      readers,
    });
    if (r.added.length === 0) {
      const unchanged = value.values[0] === insn.expression && predicates.every((p, k) => p === insn.predicates[k]);
      out.push(unchanged ? insn : { ...insn, expression: value.values[0], predicates });
      continue;
    }
    out.push(...r.added);
    const realized = [value, ...conditions];
    const reader: Instruction = {
      ...insn,
      predicates,
      withinInames: [...new Set([...insn.withinInames, ...realized.flatMap((x) => x.lanes)])],
      dependsOn: [...new Set([...insn.dependsOn, ...realized.flatMap((x) => x.dependsOn)])],
      noSyncWith: [...new Set([...insn.noSyncWith, ...realized.flatMap((x) => x.noSync)])],
    };
    if (insn.kind === 'user-call') {
      out.push({ ...reader, expression: single(value, insn) });
      continue;
    }
    if (value.values.length !== insn.assignees.length) {
      throw new LoomError(
        `instruction '${insn.id}' assigns ${insn.assignees.length} target(s) from ${value.values.length} result(s)`,
        insn.span,
      );
    }
    // a multiple assignment: one assignment per result, the first keeping the id
    const ids = insn.assignees.map((a, k) => (k === 0 ? insn.id : r.name(`${insn.id}_${assigneeName(a)}`)));
    if (ids.length > 1) parts.set(insn.id, ids);
    out.push(...insn.assignees.map((a, k) => ({ ...reader, id: ids[k], assignees: [a], expression: value.values[k] })));
  }
  const instructions =
    parts.size === 0
      ? out
      : out.map((i) => ({ ...i, dependsOn: [...new Set(i.dependsOn.flatMap((d) => parts.get(d) ?? [d]))] }));
  return r.kernel(instructions);
}

/** Whether a reduction stands anywhere in the instruction (its value or its conditions). */
function reduces(insn: Instruction): boolean {
  return (insn.expression !== undefined && hasReduction(insn.expression)) || insn.predicates.some(hasReduction);
}

/**
 * Whether every work-item wants the instruction's value: it is a call statement, or writes a private temporary (each
 * work-item its own copy; a multiple assignment that also writes shared memory then writes the
 * same values there from every work-item). Otherwise it writes shared memory, once (see
 * local-tree.ts).
 */
function readersOf(knl: LoopKernel, insn: Instruction): Scope['readers'] {
  // a call statement runs in every work-item that reaches it, each with the value
  if (insn.kind === 'user-call') return 'all';
  const isPrivate = (a: Expr) => {
    const t = knl.temporaries.get(assigneeName(a));
    return t !== undefined && (t.addressSpace === 'private' || (t.addressSpace === 'auto' && a.kind === 'var'));
  };
  return insn.assignees.some(isPrivate) ? 'all' : 'one';
}

function single(x: Realized, insn: Instruction): Expr {
  if (x.values.length !== 1)
    throw new LoomError(
      `instruction '${insn.id}': a reduction with ${x.values.length} results stands where one value is wanted`,
      insn.span,
    );
  return x.values[0];
}

/** `e` with its reductions realized (the outermost first taking its inner ones along). */
function realizeExpr(r: Realization, e: Expr, scope: Scope): Realized {
  if (e.kind === 'reduce') return realizeReduction(r, e, scope);
  if (!children(e).some(hasReduction)) return { values: [e], dependsOn: [], lanes: [], noSync: [] };
  // a reduction in a branch accumulates under the branch's condition (loopy's map_if): `0 if j < 5
  // else sum(i, tmp[i+j-5])` reads tmp at i+j-5 only where j >= 5 (loopy's test_predicated_redn)
  if (e.kind === 'if') {
    const condition = realizeExpr(r, e.condition, scope);
    const holds = single(condition, scope.insn);
    const then = realizeExpr(r, e.then, { ...scope, guards: [...scope.guards, holds] });
    const otherwise = realizeExpr(r, e.otherwise, { ...scope, guards: [...scope.guards, not(holds)] });
    return merge(
      [ifThenElse(holds, single(then, scope.insn), single(otherwise, scope.insn))],
      [condition, then, otherwise],
    );
  }
  const parts: Realized[] = [];
  const value = mapChildren(e, (c) => {
    const x = realizeExpr(r, c, scope);
    parts.push(x);
    return single(x, scope.insn);
  });
  return merge([value], parts);
}

function hasReduction(e: Expr): boolean {
  return e.kind === 'reduce' || children(e).some(hasReduction);
}

function merge(values: readonly Expr[], parts: readonly Realized[]): Realized {
  return {
    values,
    dependsOn: [...new Set(parts.flatMap((p) => p.dependsOn))],
    lanes: [...new Set(parts.flatMap((p) => p.lanes))],
    noSync: [...new Set(parts.flatMap((p) => p.noSync))],
  };
}

function realizeReduction(r: Realization, e: Reduce, scope: Scope): Realized {
  const op = reductionOperation(e.op);
  // no inames: nothing to reduce, the values are the result (loopy's empty reduction)
  if (e.inames.length === 0) {
    const parts = e.operands.map((x) => realizeExpr(r, x, scope));
    return merge(
      parts.map((p) => single(p, scope.insn)),
      parts,
    );
  }
  const scan = scanToRealize(r, e, scope, r.scanOptions);
  if (scan) return realizeScan(r, e, op, scope, scan);
  const groups = e.inames.filter((n) => r.inameTags.get(n)?.kind === 'group');
  if (groups.length) throw groupReductionError(e, groups, scope, r);
  // an operation that is only associative keeps the order of its inames: one loop each, nested
  if (!op.commutative && e.inames.length > 1) {
    const [first, ...rest] = e.inames;
    return realizeReduction(r, reduction(e.op, [first], [reduction(e.op, rest, e.operands)]), scope);
  }
  const locals = e.inames.filter((n) => r.localAxis(n) !== undefined);
  const sequential = e.inames.filter((n) => !locals.includes(n));
  if (locals.length === 0) return overLoops(r, e, op, scope, sequential);

  // across work-items: each reduces its sequential inames first, then the tree combines them
  const perItem: Scope = { ...scope, within: [...scope.within, ...locals] };
  if (sequential.length) {
    const partial = overLoops(r, e, op, perItem, sequential);
    return realizeLocalTree(
      r,
      scope,
      op,
      locals,
      partial,
      partial.values.map((v) => typeOf(r, v)),
    );
  }
  const point = operandsOf(r, e, perItem);
  const operandDtypes = point.values.map((v) => typeOf(r, v));
  const lifted = op.lift ? op.lift(point.values, operandDtypes) : point.values;
  return realizeLocalTree(r, scope, op, locals, { ...point, values: lifted }, op.resultDtypes(operandDtypes));
}

/**
 * A scan (../reduction/scan.ts): at each value of the sweep iname, the operands at the values
 * of the tracking iname fold into the result carried from the previous one.
 */
function realizeScan(r: Realization, e: Reduce, op: ReductionOperation, scope: Scope, scan: ScanParameters): Realized {
  const t = trackingIname(r, scan);
  const step = reduction(
    e.op,
    [t],
    e.operands.map((x) => substitute(x, { [scan.scan]: variable(t) })),
  );
  if (r.localAxis(scan.sweep) === undefined) {
    const point = operandsOf(r, step, { ...scope, within: [...scope.within, t] });
    const outsideSweep = scope.within.filter((n) => n !== scan.sweep);
    return realizeSequential(
      r,
      scope,
      op,
      [t],
      point,
      point.values.map((v) => typeOf(r, v)),
      outsideSweep,
    );
  }
  const part = overLoops(r, step, op, scope, [t]);
  return realizeLocalScan(
    r,
    scope,
    op,
    scan,
    part,
    part.values.map((v) => typeOf(r, v)),
  );
}

/** A reduction over the sequential inames `inames`, its operands realized inside their loops. */
function overLoops(
  r: Realization,
  e: Reduce,
  op: ReductionOperation,
  scope: Scope,
  inames: readonly string[],
): Realized {
  const point = operandsOf(r, e, { ...scope, within: [...scope.within, ...inames] });
  return realizeSequential(
    r,
    scope,
    op,
    inames,
    point,
    point.values.map((v) => typeOf(r, v)),
  );
}

/** One point's values: the operands realized (or the results of the one reduction an order-keeping nest put there). */
function operandsOf(r: Realization, e: Reduce, scope: Scope): Realized {
  const parts = e.operands.map((x) => realizeExpr(r, x, scope));
  if (parts.length === 1 && parts[0].values.length > 1) return parts[0];
  return merge(
    parts.map((p) => single(p, scope.insn)),
    parts,
  );
}

function typeOf(r: Realization, e: Expr): DType {
  return exprType(e, r.typeOf).dtype;
}

function groupReductionError(e: Reduce, groups: readonly string[], scope: Scope, r: Realization): LoomError {
  const tags = groups.map((n) => `'${n}' (${tagToString(r.inameTags.get(n))})`).join(', ');
  const [g] = groups;
  return new LoomError(
    `instruction '${scope.insn.id}' reduces over ${tags}, which runs across work-groups, and work-groups cannot combine their values within one launch: ${printExpr(e)}. ` +
      `Split it and reduce across the work-items of one group (splitIname(knl, '${g}', 256, { innerTag: 'l.0' }) and leave the outer part sequential), ` +
      `or reduce per group into a global temporary and combine those after a global barrier ('... gbarrier'), or accumulate into the result with an atomic update ({atomic})`,
    scope.insn.span,
  );
}
