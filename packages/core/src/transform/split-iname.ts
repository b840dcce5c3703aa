/**
 * `splitIname(knl, 'i', 16)`: `i` becomes `i_outer` and `i_inner` with
 * `i = 16*i_outer + i_inner` and `0 <= i_inner < 16`. Both can be tagged at once
 * (`outerTag: 'g.0', innerTag: 'l.0'`); `slabs: [0, 1]` generates the last
 * iteration of the outer loop separately so the bulk needs no guard.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { LruCache } from '../lru.ts';
import { perObject } from '../memo.ts';
import { checkName } from '../names.ts';
import { add, int, mul, variable, type Expr } from '../expr/nodes.ts';
import { mapExpr } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { homeDomainIndex } from '../kernel/domains.ts';
import { describeWithin, instructionsWithin, type Within } from './match.ts';
import { tagToString, type LoopKernel } from '../kernel/model.ts';
import { instructionsUsing, isolateInames } from './within-inames.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { tagInames, type TagSpec } from './tag-inames.ts';

/** The options splitIname reads; any other key is an error. */
const SPLIT_INAME_OPTIONS = optionKeys<SplitInameOptions>()([
  'innerIname',
  'innerTag',
  'outerIname',
  'outerTag',
  'slabs',
  'within',
]);

/** Options of `splitIname`: the new inames' names and tags, slabs, `within`. */
export interface SplitInameOptions {
  /** The outer iname's name (default `i_outer` for `i`). */
  readonly outerIname?: string;
  /** The inner iname's name (default `i_inner` for `i`). */
  readonly innerIname?: string;
  /** Tag of the outer iname (`'g.0'`, `'unr'`...); default: none. */
  readonly outerTag?: TagSpec;
  /** Tag of the inner iname (`'l.0'`, `'unr'`...); default: none. */
  readonly innerTag?: TagSpec;
  /** Iterations of the outer loop to generate separately at its start and end. */
  readonly slabs?: readonly [number, number];
  /**
   * Only the instructions this match expression picks (see match.ts) use the split; the
   * others keep the iname (loopy's `within`). Default: all.
   */
  readonly within?: Within;
}

/**
 * Splits a loop into an outer and an inner loop of length `factor` (loopy's `split_iname`).
 * ```ts
 * knl = splitIname(knl, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
 * ```
 */
export function splitIname(
  knl: LoopKernel,
  iname: string,
  factor: number,
  options: SplitInameOptions = {},
): LoopKernel {
  checkOptionKeys('splitIname', options, SPLIT_INAME_OPTIONS);
  if (!Number.isInteger(factor) || factor < 1)
    throw new LoomError(`splitIname: the split factor must be a positive integer, got ${factor}`);
  return splitBackend(knl, iname, options, 'splitIname', () => ({
    outerCoefficient: factor,
    innerCoefficient: 1,
    innerExtent: factor,
    value: (outer, inner) => add(mul(int(factor), variable(outer)), variable(inner)),
  }));
}

/**
 * How a split relates the old iname to the two new ones: in the domain,
 * `iname = outerCoefficient*outer + innerCoefficient*inner` with one of them of fixed
 * extent; in the code, `value(outer, inner)` (chunkIname numbers the points differently
 * from the domain's equation, see chunk-iname.ts).
 */
export interface SplitShape {
  readonly outerCoefficient: number;
  readonly innerCoefficient: number;
  /** `0 <= inner < innerExtent` (splitIname) or `0 <= outer < outerExtent` (chunkIname). */
  readonly innerExtent?: number;
  readonly outerExtent?: number;
  readonly value: (outer: string, inner: string) => Expr;
}

/**
 * What splitIname and chunkIname share: names, tags, `within`, the domains, the code, the
 * loop priorities and slabs. `shape` is asked once the iname is known to exist.
 */
export function splitBackend(
  knl: LoopKernel,
  iname: string,
  options: SplitInameOptions,
  what: string,
  shape: () => SplitShape,
): LoopKernel {
  if (!knl.inames.includes(iname))
    throw new LoomError(`${what}: unknown iname '${iname}' (inames: ${knl.inames.join(', ')})`);
  const tag = knl.inameTags.get(iname);
  if (tag && tag.kind !== 'for') {
    throw new LoomError(
      `${what}: '${iname}' is tagged '${tagToString(tag)}'; split it before tagging (the halves can be tagged with outerTag/innerTag)`,
    );
  }
  const outer =
    options.outerIname === undefined ? `${iname}_outer` : checkName(options.outerIname, `${what}: option outerIname`);
  const inner =
    options.innerIname === undefined ? `${iname}_inner` : checkName(options.innerIname, `${what}: option innerIname`);
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  for (const name of [outer, inner])
    if (taken.has(name)) throw new LoomError(`${what}: the name '${name}' is already used`);
  if (options.within !== undefined) {
    // the instructions within get a copy of the iname, which the split then consumes
    const chosen = instructionsWithin(knl, options.within, `${what}: option within`, true);
    const users = instructionsUsing(knl, iname);
    if (![...users].some((id) => chosen.has(id))) {
      throw new LoomError(
        `${what}: no instruction within '${describeWithin(options.within)}' uses '${iname}' (users: ${[...users].join(', ') || 'none'})`,
      );
    }
    const { kernel, names } = isolateInames(knl, [iname], chosen);
    return splitBackend(
      kernel,
      names.get(iname)!,
      { ...options, within: undefined, outerIname: outer, innerIname: inner },
      what,
      shape,
    );
  }
  const { outerCoefficient, innerCoefficient, innerExtent, outerExtent, value } = shape();

  const domains = [...knl.domains];
  const index = homeDomainIndex(knl, iname);
  const split = (set: BasicSet) =>
    splitDomain(set, iname, outer, inner, { outerCoefficient, innerCoefficient, innerExtent, outerExtent });
  domains[index] = split(domains[index]);
  // later domains that use the iname as a parameter now see the two new ones
  for (let k = 0; k < domains.length; k++) {
    if (k !== index && domains[k].params.includes(iname))
      domains[k] = split(domains[k].moveParamsToDims([iname])).moveDimsToParams([outer, inner]);
  }

  const replacement = value(outer, inner);
  const rewritten = mapKernelExpressions(knl, (e) => replaceIname(e, iname, [outer, inner], replacement), { what });
  const instructions = rewritten.instructions.map((insn) => ({
    ...insn,
    withinInames: insn.withinInames.flatMap((n) => (n === iname ? [outer, inner] : [n])),
  }));
  const loopPriorities = knl.loopPriorities.map((p) => p.flatMap((n) => (n === iname ? [outer, inner] : [n])));
  const loopSlabs = new Map(knl.loopSlabs);
  if (options.slabs && (options.slabs[0] || options.slabs[1])) {
    const [head, tail] = options.slabs;
    if (![head, tail].every((s) => Number.isInteger(s) && s >= 0))
      throw new LoomError(`${what}: slabs must be non-negative integers, got [${head}, ${tail}]`);
    loopSlabs.set(outer, [head, tail]);
  }
  // remembered, so that a footprint written in the old name still reads (addPrefetch 'x[j,k]')
  const appliedInameRewrites = [...knl.appliedInameRewrites, new Map([[iname, replacement]])];
  let result = rewritten.with({ domains, instructions, loopPriorities, loopSlabs, appliedInameRewrites });
  const tags: [string, TagSpec][] = [];
  if (options.outerTag !== undefined) tags.push([outer, options.outerTag]);
  if (options.innerTag !== undefined) tags.push([inner, options.innerTag]);
  if (tags.length) result = tagInames(result, tags);
  return result;
}

function splitDomain(
  set: BasicSet,
  iname: string,
  outer: string,
  inner: string,
  shape: Omit<SplitShape, 'value'>,
): BasicSet {
  // the same split of the same set (a kernel built again: BasicSet.parse shares its sets) is the
  // same set, kept so that what was asked of it (domainOf, per set) is answered from memory; one
  // with existentials is made afresh, as their names must not be shared
  const key = `${iname}|${outer}|${inner}|${shape.outerCoefficient}|${shape.innerCoefficient}|${shape.innerExtent}|${shape.outerExtent}`;
  const splits = splitsOf(set);
  const known = splits.get(key);
  if (known) return known;
  const made = computeSplitDomain(set, iname, outer, inner, shape);
  if (made.existentials.length === 0) splits.set(key, made);
  return made;
}

/** Per set (weakly), its splits by iname, new names and shape. */
const splitsOf = perObject((_: BasicSet) => new LruCache<string, BasicSet>(16));

function computeSplitDomain(
  set: BasicSet,
  iname: string,
  outer: string,
  inner: string,
  shape: Omit<SplitShape, 'value'>,
): BasicSet {
  const value = Linear.of({ [outer]: shape.outerCoefficient, [inner]: shape.innerCoefficient });
  const constraints: Constraint[] = set.constraints.map((c) => ({
    kind: c.kind,
    expr: c.expr.substitute(iname, value),
  }));
  const fixed =
    shape.innerExtent !== undefined
      ? { name: inner, extent: shape.innerExtent }
      : { name: outer, extent: shape.outerExtent! };
  constraints.push({ kind: 'ge', expr: Linear.variable(fixed.name) });
  constraints.push({ kind: 'ge', expr: Linear.constant(fixed.extent - 1).sub(Linear.variable(fixed.name)) });
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
    if (x.kind === 'reduce' && x.inames.includes(iname))
      return { ...x, inames: x.inames.flatMap((n) => (n === iname ? [...halves] : [n])) };
    return x;
  });
}
