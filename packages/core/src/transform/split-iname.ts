/**
 * `splitIname(knl, 'i', 16)`: `i` becomes `i_outer` and `i_inner` with
 * `i = 16*i_outer + i_inner` and `0 <= i_inner < 16`. Both can be tagged at once
 * (`outerTag: 'g.0', innerTag: 'l.0'`); `slabs: [0, 1]` generates the last
 * iteration of the outer loop separately so the bulk needs no guard.
 */
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { add, int, mul, variable, type Expr } from '../expr/nodes.ts';
import { mapExpr } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { homeDomainIndex } from '../kernel/domains.ts';
import { instructionsWithin } from '../kernel/dependencies.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { mapKernelExpressions } from './rewrite-expressions.ts';
import { tagInames, type TagSpec } from './tag-inames.ts';

export interface SplitInameOptions {
  readonly outerIname?: string;
  readonly innerIname?: string;
  readonly outerTag?: TagSpec;
  readonly innerTag?: TagSpec;
  /** Iterations of the outer loop to generate separately at its start and end. */
  readonly slabs?: readonly [number, number];
  /** Only these instructions use the split (ids, wildcards allowed); default: all. */
  readonly within?: string | readonly string[];
}

export function splitIname(knl: LoopKernel, iname: string, factor: number, options: SplitInameOptions = {}): LoopKernel {
  if (!knl.inames.includes(iname)) throw new LoomError(`splitIname: unknown iname '${iname}' (inames: ${knl.inames.join(', ')})`);
  if (!Number.isInteger(factor) || factor < 1) throw new LoomError(`splitIname: the split factor must be a positive integer, got ${factor}`);
  const tag = knl.inameTags.get(iname);
  if (tag && tag.kind !== 'for') {
    throw new LoomError(`splitIname: '${iname}' is tagged '${tag.kind}'; split it before tagging (the halves can be tagged with outerTag/innerTag)`);
  }
  const outer = options.outerIname === undefined ? `${iname}_outer` : checkName(options.outerIname, 'splitIname: option outerIname');
  const inner = options.innerIname === undefined ? `${iname}_inner` : checkName(options.innerIname, 'splitIname: option innerIname');
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  for (const name of [outer, inner]) if (taken.has(name)) throw new LoomError(`splitIname: the name '${name}' is already used`);
  const within = instructionsWithin(knl.instructions, options.within);
  if (knl.instructions.some((i) => !within.has(i.id) && i.withinInames.includes(iname))) {
    throw new LoomError('splitIname: splitting for only some instructions is not supported yet; duplicate the iname first (duplicateInames) and split the copy');
  }

  const domains = [...knl.domains];
  const index = homeDomainIndex(knl, iname);
  domains[index] = splitDomain(domains[index], iname, outer, inner, factor);
  // later domains that use the iname as a parameter now see the two new ones
  for (let k = 0; k < domains.length; k++) {
    if (k !== index && domains[k].params.includes(iname)) domains[k] = splitDomain(domains[k].moveParamsToDims([iname]), iname, outer, inner, factor).moveDimsToParams([outer, inner]);
  }

  const replacement: Expr = add(mul(int(factor), variable(outer)), variable(inner));
  const rewritten = mapKernelExpressions(knl, (e) => replaceIname(e, iname, [outer, inner], replacement), { what: 'splitIname' });
  const instructions = rewritten.instructions.map((insn) => ({ ...insn, withinInames: insn.withinInames.flatMap((n) => (n === iname ? [outer, inner] : [n])) }));
  const loopPriorities = knl.loopPriorities.map((p) => p.flatMap((n) => (n === iname ? [outer, inner] : [n])));
  const loopSlabs = new Map(knl.loopSlabs);
  if (options.slabs && (options.slabs[0] || options.slabs[1])) {
    const [head, tail] = options.slabs;
    if (![head, tail].every((s) => Number.isInteger(s) && s >= 0)) throw new LoomError(`splitIname: slabs must be non-negative integers, got [${head}, ${tail}]`);
    loopSlabs.set(outer, [head, tail]);
  }
  let result = rewritten.with({ domains, instructions, loopPriorities, loopSlabs });
  const tags: [string, TagSpec][] = [];
  if (options.outerTag !== undefined) tags.push([outer, options.outerTag]);
  if (options.innerTag !== undefined) tags.push([inner, options.innerTag]);
  if (tags.length) result = tagInames(result, tags);
  return result;
}

function splitDomain(set: BasicSet, iname: string, outer: string, inner: string, factor: number): BasicSet {
  const value = Linear.of({ [outer]: factor, [inner]: 1 });
  const constraints: Constraint[] = set.constraints.map((c) => ({ kind: c.kind, expr: c.expr.substitute(iname, value) }));
  constraints.push({ kind: 'ge', expr: Linear.variable(inner) });
  constraints.push({ kind: 'ge', expr: Linear.constant(factor - 1).sub(Linear.variable(inner)) });
  const dims = set.dims.flatMap((d) => (d === iname ? [outer, inner] : [d]));
  return BasicSet.fromConstraints(set.params, dims, constraints, set.existentials);
}

/**
 * Every use of the old iname becomes `factor*outer + inner`, and a reduction over
 * it runs over both halves: after the split the old name exists nowhere, so free
 * and reduction-bound uses are replaced alike.
 */
export function replaceIname(e: Expr, iname: string, halves: readonly string[], replacement: Expr): Expr {
  return mapExpr(e, (x) => {
    if (x.kind === 'var' && x.name === iname) return replacement;
    if (x.kind === 'reduce' && x.inames.includes(iname)) return { ...x, inames: x.inames.flatMap((n) => (n === iname ? [...halves] : [n])) };
    return x;
  });
}
