/**
 * `addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto' })`: read the part of
 * `a` that the swept inames touch into a temporary first (`a_fetch`), then compute
 * from the temporary. The footprint along each axis is `[base, base + extent)`
 * with `base` an affine function of the inames that are not swept and a constant
 * `extent`; axes the swept inames do not move are indexed directly.
 */
import { LoomError } from '../errors.ts';
import { add, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { fromLinear, mapExpr, printExpr, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, staticMax, staticMin, type Constraint } from '../sets/index.ts';
import { allAccesses, type Access } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { AddressSpace, Instruction, LoopKernel } from '../kernel/model.ts';
import { tagInames, type TagSpec } from './tag-inames.ts';
import { uniqueName } from './rename.ts';

export interface PrefetchOptions {
  /** Tag of the fetch inames: `'l.auto'` spreads them over local axes (last array axis on l.0); default: loops. */
  readonly defaultTag?: TagSpec;
  /** Extra inames the fetch runs inside (loopy's fetch_outer_inames). */
  readonly fetchOuterInames?: readonly string[];
  readonly temporaryName?: string;
  readonly temporaryAddressSpace?: AddressSpace;
  /** Names of the fetch inames, one per fetched axis. */
  readonly dimNames?: readonly string[];
}

export function addPrefetch(knl: LoopKernel, name: string, sweep: string | readonly string[] = [], options: PrefetchOptions = {}): LoopKernel {
  const swept = typeof sweep === 'string' ? sweep.split(',').map((s) => s.trim()).filter(Boolean) : [...sweep];
  for (const n of swept) if (!knl.inames.includes(n)) throw new LoomError(`addPrefetch: unknown iname '${n}' to sweep (inames: ${knl.inames.join(', ')})`);
  const arg = knl.arg(name);
  if (!arg && !knl.temporaries.has(name)) throw new LoomError(`addPrefetch: the kernel has no array '${name}'`);
  if (arg?.kind === 'value') throw new LoomError(`addPrefetch: '${name}' is a value argument, not an array`);
  const accesses = allAccesses(knl).filter((a) => a.array === name);
  if (accesses.some((a) => a.isWrite)) throw new LoomError(`addPrefetch: '${name}' is written by the kernel; only data that is only read can be prefetched`);
  if (accesses.length === 0) throw new LoomError(`addPrefetch: the kernel never reads '${name}'`);

  const linear = accesses.map((a) => a.indices.map((ix, axis) => {
    const lin = toLinear(ix);
    if (!lin) throw new LoomError(`addPrefetch: index '${printExpr(ix)}' of '${name}' (axis ${axis}) is not affine; it cannot be prefetched`, a.instruction.span);
    return lin;
  }));
  const rank = linear[0].length;
  const inames = new Set(knl.inames);
  const outer = [...new Set([
    ...linear.flatMap((idx) => idx.flatMap((l) => l.variables.filter((v) => inames.has(v) && !swept.includes(v)))),
    ...(options.fetchOuterInames ?? []),
  ])];

  // the footprint along each axis, as a function of the outer inames
  const axes = Array.from({ length: rank }, (_, d) => footprint(knl, accesses, linear, d, swept, outer, name));
  const fetched = axes.map((a, d) => ({ ...a, axis: d })).filter((a) => a.extent !== undefined);

  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys(), ...knl.instructions.map((i) => i.id)]);
  const tempName = options.temporaryName ?? uniqueName(`${name}_fetch`, taken);
  taken.add(tempName);
  const dimNames = fetched.map((f, k) => {
    const wanted = options.dimNames?.[k] ?? uniqueName(`${name}_dim_${f.axis}`, taken);
    if (knl.inames.includes(wanted)) throw new LoomError(`addPrefetch: the iname name '${wanted}' is already used`);
    taken.add(wanted);
    return wanted;
  });
  const fetchId = uniqueName(`${tempName}_rule`, taken);

  // the fetch inames' domain: the footprint box, clipped to the array
  const shape = arg?.shape ?? knl.temporaries.get(name)!.shape;
  const constraints: Constraint[] = [];
  fetched.forEach((f, k) => {
    const v = Linear.variable(dimNames[k]);
    constraints.push({ kind: 'ge', expr: v }, { kind: 'ge', expr: Linear.constant(f.extent! - 1).sub(v) });
    const at = f.base.add(v);
    constraints.push({ kind: 'ge', expr: at });
    const size = shape[f.axis] && toLinear(shape[f.axis]);
    if (size) constraints.push({ kind: 'ge', expr: size.sub(1).sub(at) });
  });
  const domain = BasicSet.fromConstraints([], dimNames, constraints);

  const source = subscript(name, axes.map((a, d) => {
    const k = fetched.findIndex((f) => f.axis === d);
    return k < 0 ? fromLinear(a.base) : add(fromLinear(a.base), variable(dimNames[k]));
  }).map(tidy));
  const fetch: Instruction = {
    kind: 'assign',
    id: fetchId,
    assignee: fetched.length ? subscript(tempName, dimNames.map((n) => variable(n))) : variable(tempName),
    expression: source,
    withinInames: [...knl.inames.filter((n) => outer.includes(n)), ...dimNames],
    dependsOn: [],
    noSyncWith: [],
    priority: 0,
    predicates: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };

  const rewrite = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      if (x.kind !== 'subscript' || x.array !== name) return x;
      const lins = x.indices.map((ix) => toLinear(ix)!);
      if (!fetched.length) return variable(tempName);
      return subscript(tempName, fetched.map((f) => tidy(fromLinear(lins[f.axis].sub(f.base)))));
    });
  const readers = new Set(accesses.map((a) => a.instruction.id));
  const instructions = knl.instructions.map((insn) =>
    readers.has(insn.id)
      ? { ...insn, expression: insn.expression && rewrite(insn.expression), predicates: insn.predicates.map(rewrite), dependsOn: [...insn.dependsOn, fetchId] }
      : insn,
  );
  const temporaries = new Map(knl.temporaries);
  temporaries.set(tempName, {
    name: tempName,
    dtype: arg?.dtype ?? knl.temporaries.get(name)?.dtype,
    shape: fetched.map((f) => int(f.extent!)),
    addressSpace: options.temporaryAddressSpace ?? 'auto',
  });
  let result = knl.with({
    domains: [...knl.domains, domain],
    instructions: [fetch, ...instructions],
    temporaries,
  });
  if (options.defaultTag !== undefined && options.defaultTag !== null && dimNames.length) {
    const auto = options.defaultTag === 'l.auto' || options.defaultTag === 'unused.l';
    // the last array axis moves fastest in memory: give it local axis 0 so neighbouring work-items read neighbouring words
    const order = auto ? [...dimNames].reverse() : dimNames;
    result = tagInames(result, order.map((dim) => [dim, options.defaultTag] as const));
  }
  return result;
}

interface AxisFootprint {
  /** Smallest index along the axis, in the outer inames and parameters. */
  readonly base: Linear;
  /** Number of indices fetched along the axis; undefined when the swept inames do not move it. */
  readonly extent?: number;
}

function footprint(
  knl: LoopKernel,
  accesses: readonly Access[],
  linear: readonly (readonly Linear[])[],
  axis: number,
  swept: readonly string[],
  outer: readonly string[],
  name: string,
): AxisFootprint {
  const indices = linear.map((idx) => idx[axis]);
  const moves = indices.some((l) => swept.some((s) => l.dependsOn(s)));
  if (!moves && indices.every((l) => l.equals(indices[0]))) return { base: indices[0] };
  const terms = accesses.map((a, k) => ({
    set: domainOf(knl, [...new Set([...a.instruction.withinInames, ...a.reductionInames, ...outer])]),
    expr: indices[k],
  }));
  const base = staticMin(terms, knl.assumptions, outer);
  const spread = staticMax(terms.map((t) => ({ set: t.set, expr: t.expr.sub(base) })), knl.assumptions);
  if (!spread.isConstant) {
    throw new LoomError(`addPrefetch: the footprint of '${name}' along axis ${axis} does not have a constant size (${spread.add(1).toString()}); sweep fewer inames or split them`);
  }
  return { base, extent: spread.constant + 1 };
}

/** `x + 0` and friends, from adding a zero base. */
function tidy(e: Expr): Expr {
  const lin = toLinear(e);
  return lin ? fromLinear(lin) : e;
}
