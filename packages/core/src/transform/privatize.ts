/**
 * `privatizeTemporariesWithInames(knl, 'imatrix')`: each iteration of the inames gets its
 * own entry of the temporaries written inside them (`acc` becomes `acc[imatrix]`), so that
 * the loops can be reordered (loopy's privatize_temporaries_with_inames; ILP does this
 * implicitly). `unprivatizeTemporariesWithInames` takes such entries away again.
 */
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import { int, sub, subscript, variable, type Expr } from '../expr/nodes.ts';
import { mapExpr, simplify } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { staticMax, staticMin } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import { namesWritten, namesRead } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** Gives each iteration of some inames its own copy of the temporaries written in them (loopy's `privatize_temporaries_with_inames`). */
export function privatizeTemporariesWithInames(
  knl: LoopKernel,
  inames: string | readonly string[],
  onlyVarNames?: string | readonly string[],
): LoopKernel {
  const privatizing = nameList(inames);
  for (const n of privatizing)
    if (!knl.inames.includes(n)) throw new LoomError(`privatizeTemporariesWithInames: unknown iname '${n}'`);
  const only = onlyVarNames === undefined ? undefined : nameList(onlyVarNames);
  for (const n of only ?? [])
    if (!knl.temporaries.has(n)) throw new LoomError(`privatizeTemporariesWithInames: '${n}' is not a temporary`);
  // the inames each temporary gains an axis for: those its writers run in but do not index it by
  const axes = new Map<string, string[]>();
  for (const t of knl.temporaries.values()) {
    if (only && !only.includes(t.name)) continue;
    for (const writer of knl.instructions.filter((i) => namesWritten(i).includes(t.name))) {
      const indexed = new Set(
        writer.assignees.flatMap((a) =>
          a.kind === 'subscript' ? a.indices.flatMap((ix) => (ix.kind === 'var' ? [ix.name] : [])) : [],
        ),
      );
      const fresh = writer.withinInames.filter((n) => privatizing.includes(n) && !indexed.has(n));
      if (fresh.length === 0) continue;
      const known = axes.get(t.name);
      if (known && (known.length !== fresh.length || known.some((n) => !fresh.includes(n)))) {
        throw new LoomError(
          `privatizeTemporariesWithInames: instruction '${writer.id}' would privatize '${t.name}' over ${fresh.join(', ')}, another writer over ${known.join(', ')}`,
          writer.span,
        );
      }
      axes.set(t.name, fresh);
    }
  }
  if (axes.size === 0) return knl;
  const ranges = new Map(privatizing.map((n) => [n, rangeOf(knl, n)] as const));
  const temporaries = new Map(knl.temporaries);
  for (const [name, inames] of axes) {
    const t = temporaries.get(name)!;
    if (t.dimTags)
      throw new LoomError(
        `privatizeTemporariesWithInames: '${name}' has a layout of its own (tagArrayAxes); privatize before laying it out`,
      );
    temporaries.set(name, {
      ...t,
      shape: [...inames.map((n) => int(ranges.get(n)!.hi - ranges.get(n)!.lo + 1)), ...t.shape],
      dimNames: t.dimNames && [...inames, ...t.dimNames],
    });
  }
  const rewrite = (e: Expr, insn: Instruction) =>
    mapExpr(e, (x) => {
      const name = x.kind === 'var' ? x.name : x.kind === 'subscript' ? x.array : undefined;
      const inames = name === undefined ? undefined : axes.get(name);
      if (!inames) return x;
      const missing = inames.filter((n) => !insn.withinInames.includes(n));
      if (missing.length)
        throw new LoomError(
          `privatizeTemporariesWithInames: instruction '${insn.id}' uses '${name}' outside the loop(s) '${missing.join("', '")}' it is privatized over`,
          insn.span,
        );
      const index = inames.map((n) =>
        ranges.get(n)!.lo === 0 ? variable(n) : simplify(sub(variable(n), int(ranges.get(n)!.lo)), { integer: true }),
      );
      return subscript(name!, [...index, ...(x.kind === 'subscript' ? x.indices : [])]);
    });
  return mapKernelExpressions(knl.with({ temporaries }), (e, insn) => rewrite(e, insn!), {
    what: 'privatizeTemporariesWithInames',
    assignee: 'whole',
    rules: 'keep',
  });
}

/**
 * The inverse: an axis of a temporary indexed, in every access, by one of the inames
 * goes. An axis indexed by such an iname in some accesses and otherwise in others cannot.
 */
export function unprivatizeTemporariesWithInames(
  knl: LoopKernel,
  inames: string | readonly string[],
  onlyVarNames?: string | readonly string[],
): LoopKernel {
  const privatizing = nameList(inames);
  for (const n of privatizing)
    if (!knl.inames.includes(n)) throw new LoomError(`unprivatizeTemporariesWithInames: unknown iname '${n}'`);
  const only = onlyVarNames === undefined ? undefined : nameList(onlyVarNames);
  for (const n of only ?? [])
    if (!knl.temporaries.has(n)) throw new LoomError(`unprivatizeTemporariesWithInames: '${n}' is not a temporary`);
  const removed = new Map<string, number[]>();
  for (const t of knl.temporaries.values()) {
    if ((only && !only.includes(t.name)) || t.shape.length === 0) continue;
    const accesses = knl.instructions.flatMap((i) => accessesOf(i, t.name, knl));
    const drop: number[] = [];
    for (let axis = 0; axis < t.shape.length; axis++) {
      const named = accesses.map((a) =>
        a[axis]?.kind === 'var' && privatizing.includes((a[axis] as { name: string }).name)
          ? (a[axis] as { name: string }).name
          : undefined,
      );
      if (named.every((n) => n !== undefined && n === named[0]) && accesses.length) drop.push(axis);
      else if (named.some((n) => n !== undefined)) {
        throw new LoomError(
          `unprivatizeTemporariesWithInames: axis ${axis} of '${t.name}' is indexed by '${privatizing.join("', '")}' in some accesses and otherwise in others (each access must use the same iname there)`,
        );
      }
    }
    if (drop.length) removed.set(t.name, drop);
  }
  if (only && only.some((n) => !removed.has(n)))
    throw new LoomError(
      `unprivatizeTemporariesWithInames: '${only.filter((n) => !removed.has(n)).join("', '")}' has no axis indexed only by '${privatizing.join("', '")}'`,
    );
  const temporaries = new Map(knl.temporaries);
  for (const [name, drop] of removed) {
    const t = temporaries.get(name)!;
    temporaries.set(name, {
      ...t,
      shape: t.shape.filter((_, k) => !drop.includes(k)),
      dimTags: t.dimTags?.filter((_, k) => !drop.includes(k)),
      dimNames: t.dimNames?.filter((_, k) => !drop.includes(k)),
    });
  }
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind !== 'subscript' || !removed.has(x.array)) return x;
      const kept = x.indices.filter((_, k) => !removed.get(x.array)!.includes(k));
      return kept.length ? subscript(x.array, kept) : variable(x.array);
    });
  return mapKernelExpressions(knl.with({ temporaries }), rewrite, {
    what: 'unprivatizeTemporariesWithInames',
    assignee: 'whole',
  });
}

function accessesOf(insn: Instruction, name: string, knl: LoopKernel): (readonly Expr[])[] {
  const out: (readonly Expr[])[] = [];
  const visit = (e: Expr | undefined) =>
    e && mapExpr(e, (x) => (x.kind === 'subscript' && x.array === name && out.push(x.indices), x));
  if (namesWritten(insn).includes(name) || namesRead(insn, knl.substitutions).has(name))
    [...insn.assignees, insn.expression, ...insn.predicates].forEach(visit);
  return out;
}

function rangeOf(knl: LoopKernel, iname: string): { lo: number; hi: number } {
  const term = [{ set: domainOf(knl, [iname]), expr: Linear.variable(iname) }];
  const lo = staticMin(term, knl.assumptions);
  const hi = staticMax(term, knl.assumptions);
  if (!lo.isConstant || !hi.isConstant)
    throw new LoomError(
      `privatizeTemporariesWithInames: '${iname}' does not run over a constant range (${lo.toString()} to ${hi.toString()}); split it first`,
    );
  return { lo: lo.constant, hi: hi.constant };
}
