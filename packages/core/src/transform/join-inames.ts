/**
 * `joinInames(knl, ['i', 'j'], 'ij')`: the two loops become one. With `j` running over
 * `len_j` values, `ij` runs over `len_i * len_j` values and
 *
 *     i = lo_i + ij // len_j,    j = lo_j + ij % len_j
 *
 * The last iname moves fastest (as in loopy). More than two inames join the same way,
 * each one's stride the product of the lengths after it. Typical use: one long
 * parallel axis out of a small 2-D loop nest (`tag: 'l.0'`).
 *
 * That arithmetic only enumerates the old points when the old domain is a box: each
 * iname between two constants, independent of the others and of the parameters.
 * Anything else (`j <= i`, `i < n`, `i mod 2 = 0`) is refused with the reason.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName, nameList } from '../names.ts';
import { mapExpr, walk } from '../expr/index.ts';
import { add, binary, int, reduce, variable, type Expr } from '../expr/nodes.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { allInames, domainOf, homeDomainIndex } from '../kernel/domains.ts';
import { isParallelTag, tagToString, type LoopKernel } from '../kernel/model.ts';
import { instructionsWithin, type Within } from './match.ts';
import { isolateInames } from './within-inames.ts';
import { uniqueName } from '../kernel/rename.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { tagInames, type TagSpec } from './tag-inames.ts';

/** The options joinInames reads; any other key is an error. */
const JOIN_INAMES_OPTIONS = optionKeys<JoinInamesOptions>()(['tag', 'within']);

/** Options of `joinInames`. */
export interface JoinInamesOptions {
  /** An implementation tag for the joined iname (`'l.0'`, `'g.0'`, `'unr'`, ...). */
  readonly tag?: TagSpec;
  /**
   * Only the instructions this match expression picks run in the joined loop; the others
   * keep the old ones (they get copies first, see within-inames.ts).
   */
  readonly within?: Within;
}

/** One joined iname's box: `lower <= iname < lower + length`. */
interface Extent {
  readonly iname: string;
  readonly lower: number;
  readonly length: number;
}

/** Joins several inames into one that runs over their product (loopy's `join_inames`). */
export function joinInames(
  knl: LoopKernel,
  inames: string | readonly string[],
  newIname?: string,
  options: JoinInamesOptions = {},
): LoopKernel {
  checkOptionKeys('joinInames', options, JOIN_INAMES_OPTIONS);
  const list = nameList(inames);
  if (options.within !== undefined) {
    for (const n of list)
      if (!knl.inames.includes(n))
        throw new LoomError(`joinInames: unknown iname '${n}' (inames: ${knl.inames.join(', ')})`);
    const chosen = instructionsWithin(knl, options.within, 'joinInames: option within', true);
    const { kernel, names } = isolateInames(knl, list, chosen);
    const joined = newIname ?? list.join('_and_');
    return joinInames(
      kernel,
      list.map((n) => names.get(n)!),
      joined,
      { tag: options.tag },
    );
  }
  const inherited = inheritedTag(knl, list, options.tag !== undefined);
  checkJoinable(knl, list);
  knl = withoutBoundsImpliedByParents(knl, list);
  knl = withBoxesMadeExplicit(knl, list);
  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
    ...knl.domains.flatMap((d) => d.params),
  ]);
  // a name of our choosing steps aside; a name the caller chose must be free
  const joined = newIname ?? uniqueName(list.join('_and_'), taken);
  checkName(joined, 'joinInames: the new iname');
  if (taken.has(joined)) throw new LoomError(`joinInames: the name '${joined}' is already used`);

  const { extents, coupled } = boxOf(knl, list);
  const total = extents.reduce((acc, e) => acc * e.length, 1);
  const domains = joinDomains(knl, list, joined, total, coupled);

  // i_m = lo_m + (ij // stride_m) % len_m, stride_m = product of the lengths after m
  const values = new Map<string, Expr>();
  let stride = 1;
  for (let m = extents.length - 1; m >= 0; m--) {
    const { iname, lower, length } = extents[m];
    let value: Expr = variable(joined);
    if (stride !== 1) value = binary('//', value, int(stride));
    if (m > 0) value = binary('%', value, int(length)); // the first one never wraps
    if (lower !== 0) value = add(value, int(lower));
    values.set(iname, value);
    stride *= length;
  }

  const rewritten = mapKernelExpressions(knl, (e) => replaceJoined(e, list, joined, values), { what: 'joinInames' });
  const instructions = rewritten.instructions.map((insn) => ({
    ...insn,
    withinInames: replaceInList(insn.withinInames, list, joined),
  }));
  const loopPriorities = knl.loopPriorities.map((p) => replaceInList(p, list, joined));
  let result = rewritten.with({ domains, instructions, loopPriorities });
  const inameTags = new Map([...result.inameTags].filter(([n]) => !list.includes(n)));
  result = result.with({ inameTags });
  if (inherited !== undefined && options.tag === undefined) result = tagInames(result, { [joined]: inherited });
  if (options.tag !== undefined) result = tagInames(result, { [joined]: options.tag });
  return result;
}

/**
 * Joined loops that are all unrolled (or all ILP) make one unrolled (ILP) loop: the joined
 * one takes their common tag. Loops on hardware axes become one loop only with the tag
 * for it given (option tag: one axis, or 'for'), since their axes cannot all carry it.
 * A mix of other tags has no single meaning and is refused.
 */
function inheritedTag(knl: LoopKernel, list: readonly string[], tagGiven: boolean): string | undefined {
  const tags = list.map((n) => knl.inameTags.get(n)).map((t) => (t && t.kind !== 'for' ? t : undefined));
  if (tags.every((t) => t === undefined)) return undefined;
  const parallel = list.find((_n, k) => isParallelTag(tags[k]));
  if (parallel !== undefined) {
    if (tagGiven) return undefined;
    throw new LoomError(
      `joinInames: '${parallel}' is tagged '${tagToString(tags[list.indexOf(parallel)])}'; loops on hardware axes become one loop only with its tag given (option tag: 'l.0', or 'for' for a sequential loop)`,
    );
  }
  const first = tagToString(tags[0]);
  const other = list.find((_, k) => tagToString(tags[k]) !== first);
  if (other !== undefined) {
    throw new LoomError(
      `joinInames: '${list[0]}' is tagged '${first}' and '${other}' '${tagToString(tags[list.indexOf(other)])}'; only loops with the same tag (or none) can be joined`,
    );
  }
  if (tags[0]!.kind === 'vec')
    throw new LoomError(
      `joinInames: '${list[0]}' is tagged 'vec'; vector lanes cannot be joined (join, then tag the result)`,
    );
  return first;
}

function checkJoinable(knl: LoopKernel, list: readonly string[]): void {
  if (list.length < 2)
    throw new LoomError(
      `joinInames: give at least two inames to join (got ${list.length === 0 ? 'none' : `'${list[0]}'`}; renameIname renames one)`,
    );
  if (new Set(list).size !== list.length)
    throw new LoomError(`joinInames: an iname is listed twice in '${list.join(', ')}'`);
  for (const n of list) {
    if (!knl.inames.includes(n))
      throw new LoomError(`joinInames: unknown iname '${n}' (inames: ${knl.inames.join(', ')})`);
    if (knl.loopSlabs.has(n)) throw new LoomError(`joinInames: '${n}' has slabs; join before asking for slabs`);
    const nested = knl.domains.find((d) => d.params.includes(n));
    if (nested) {
      throw new LoomError(
        `joinInames: the bounds of ${nested.dims.map((d) => `'${d}'`).join(', ')} depend on '${n}' (${nested.toString()}); only independent loops can be joined`,
      );
    }
  }
  // The joined loops must be used together: an instruction inside `i` but not `j`
  // would run len_j times in the joined loop.
  const joined = new Set(list);
  for (const insn of knl.instructions) {
    const within = insn.withinInames.filter((n) => joined.has(n));
    if (within.length > 0 && within.length < list.length) {
      const missing = list.filter((n) => !within.includes(n));
      throw new LoomError(
        `joinInames: instruction '${insn.id}' is inside '${within.join("', '")}' but not '${missing.join("', '")}'; joining would repeat it`,
      );
    }
    for (const e of [insn.expression, ...insn.predicates]) {
      if (!e) continue;
      walk(e, (x) => {
        if (x.kind !== 'reduce') return;
        const reduced = x.inames.filter((n) => joined.has(n));
        if (reduced.length > 0 && (reduced.length < list.length || within.length > 0)) {
          throw new LoomError(
            `joinInames: in instruction '${insn.id}', ${x.op}(${x.inames.join(', ')}, ...) reduces over only some of '${list.join("', '")}'; a reduction must cover all joined inames or none`,
          );
        }
      });
    }
  }
}

/**
 * A domain nested in outer loops may carry bounds that those loops already guarantee
 * (a prefetch's `a_dim_0 <= n - 64*i_outer - 1` inside `0 <= i_outer < n/64`): they mention
 * the outer inames, so the box test below would refuse them. They are dropped first (the
 * home domains gisted against their parents' domain), which leaves the same points.
 */
function withoutBoundsImpliedByParents(knl: LoopKernel, list: readonly string[]): LoopKernel {
  const all = allInames(knl);
  let domains: BasicSet[] | undefined;
  for (const index of new Set(list.map((n) => homeDomainIndex(knl, n)))) {
    const domain = knl.domains[index];
    const parents = domain.params.filter((p) => all.has(p));
    if (parents.length === 0) continue;
    domains ??= [...knl.domains];
    const context = domainOf(knl, parents);
    // the conditions that read the parents go first where they are implied: `128*j_outer <= d`
    // beside `0 <= d`, with j_outer only 0, leaves the box (gist alone may drop `0 <= d` instead)
    let kept = [...domain.constraints];
    for (const c of domain.constraints.filter((x) => x.expr.variables.some((v) => parents.includes(v)))) {
      const others = kept.filter((x) => x !== c);
      const rest = BasicSet.fromConstraints(domain.params, domain.dims, others, domain.existentials);
      if (rest.intersect(context).implies(c)) kept = others;
    }
    const pruned = BasicSet.fromConstraints(domain.params, domain.dims, kept, domain.existentials);
    domains[index] = pruned.gist(context);
  }
  return domains ? knl.with({ domains }) : knl;
}

/**
 * splitIname leaves each part's bounds implicit: `0 <= 4*o + i <= 15` with `0 <= i <= 3` bounds
 * `o` by 0 and 3, and the original loop's bound (`0 <= 64*a + 16*o + 4*i + d <= 127`) ties every
 * part to the others though the parts' boxes imply it. The constant bounds of the inames such
 * constraints mention are stated (valid bounds of the rational shadow: the points stay the same),
 * and each constraint tying a joined iname to another that the rest of the domain implies (exactly,
 * over the integers) is dropped, so that the box test below sees the rectangle the parts span.
 */
function withBoxesMadeExplicit(knl: LoopKernel, list: readonly string[]): LoopKernel {
  const joined = new Set(list);
  let domains: BasicSet[] | undefined;
  for (const index of new Set(list.map((n) => homeDomainIndex(knl, n)))) {
    const domain = knl.domains[index];
    const mentionsJoined = (c: Constraint) => c.expr.variables.some((v) => joined.has(v));
    const tiesOthers = (c: Constraint) => mentionsJoined(c) && c.expr.variables.some((v) => !joined.has(v));
    if (!domain.constraints.some(tiesOthers)) continue;
    // the bounds of every iname such a constraint mentions: it may be the only one to bound them
    const mentioned = new Set(domain.constraints.filter(tiesOthers).flatMap((c) => c.expr.variables));
    const boxes = domain.dims
      .filter((n) => mentioned.has(n))
      .flatMap((n) => constantBounds(domain, n))
      .filter((c) => !domain.constraints.some((d) => d.kind === c.kind && d.expr.equals(c.expr)));
    let constraints = [...domain.constraints, ...boxes];
    for (const c of domain.constraints.filter(tiesOthers)) {
      const rest = constraints.filter((d) => d !== c);
      if (BasicSet.fromConstraints(domain.params, domain.dims, rest, domain.existentials).implies(c))
        constraints = rest;
    }
    domains ??= [...knl.domains];
    domains[index] = BasicSet.fromConstraints(domain.params, domain.dims, constraints, domain.existentials);
  }
  return domains ? knl.with({ domains }) : knl;
}

/** `lower <= iname <= upper` where the domain bounds the iname by constants (its rational shadow's bounds, rounded inwards). */
function constantBounds(domain: BasicSet, iname: string): Constraint[] {
  const v = Linear.variable(iname);
  const constant = (bounds: readonly { expr: Linear; divisor: number }[]) =>
    bounds.filter((b) => b.expr.variables.length === 0).map((b) => b.expr.constant / b.divisor);
  const lowers = constant(domain.lowerBounds(iname, []));
  const uppers = constant(domain.upperBounds(iname, []));
  return [
    ...(lowers.length ? [{ kind: 'ge' as const, expr: v.sub(Math.ceil(Math.max(...lowers))) }] : []),
    ...(uppers.length ? [{ kind: 'ge' as const, expr: Linear.constant(Math.floor(Math.min(...uppers))).sub(v) }] : []),
  ];
}

/**
 * The constant bounds of each iname, and the domain constraints that mention them,
 * after checking those constraints describe exactly the box the bounds span.
 */
function boxOf(knl: LoopKernel, list: readonly string[]): { extents: Extent[]; coupled: Constraint[] } {
  const joined = new Set(list);
  const coupled: Constraint[] = [];
  for (const index of new Set(list.map((n) => homeDomainIndex(knl, n)))) {
    const domain = knl.domains[index];
    for (const c of domain.constraints) {
      const vars = c.expr.variables;
      if (!vars.some((v) => joined.has(v))) continue;
      const other = vars.find((v) => !joined.has(v));
      if (other !== undefined) {
        const about = vars.find((v) => joined.has(v))!;
        const why = domain.existentials.includes(other)
          ? `'${about}' has a stride or modulus condition`
          : domain.dims.includes(other)
            ? `'${about}' is tied to the iname '${other}'`
            : `the bounds of '${about}' depend on '${other}'`;
        throw new LoomError(
          `joinInames: ${why} in ${domain.toString()}; only loops with constant bounds over a rectangle can be joined (fixParameters can make bounds constant)`,
        );
      }
      coupled.push(c);
    }
  }
  const set = BasicSet.fromConstraints([], list, coupled);
  const extents = list.map((iname) => {
    const lowers = set.lowerBounds(iname, []).map((b) => Math.ceil(b.expr.constant / b.divisor));
    const uppers = set.upperBounds(iname, []).map((b) => Math.floor(b.expr.constant / b.divisor));
    if (!lowers.length || !uppers.length)
      throw new LoomError(`joinInames: '${iname}' has no ${lowers.length ? 'upper' : 'lower'} bound`);
    const lower = Math.max(...lowers);
    const length = Math.min(...uppers) - lower + 1;
    if (length <= 0) throw new LoomError(`joinInames: the loop over '${iname}' is empty`);
    return { iname, lower, length };
  });
  // The bounds hold on every point of the domain; the domain must also hold on every
  // point within the bounds, or the joined loop would visit points that do not exist.
  const box = BasicSet.fromConstraints([], list, extents.flatMap(boxConstraints));
  const cut = coupled.find((c) => !box.implies(c));
  if (cut) {
    throw new LoomError(
      `joinInames: the domain of '${list.join("', '")}' is not a rectangle (the condition ${cut.expr.toString()} ${cut.kind === 'eq' ? '=' : '>='} 0 cuts the box ${box.toString()})`,
    );
  }
  return { extents, coupled };
}

function boxConstraints({ iname, lower, length }: Extent): Constraint[] {
  const v = Linear.variable(iname);
  return [
    { kind: 'ge', expr: v.sub(lower) },
    { kind: 'ge', expr: Linear.constant(lower + length - 1).sub(v) },
  ];
}

/**
 * The joined iname takes the place of the first of the old ones in the first domain
 * that had one; the old inames and their box constraints leave every domain. A domain
 * left without inames hands its remaining conditions (on parameters) to the new one.
 */
function joinDomains(
  knl: LoopKernel,
  list: readonly string[],
  joined: string,
  total: number,
  coupled: readonly Constraint[],
): BasicSet[] {
  const homes = [...new Set(list.map((n) => homeDomainIndex(knl, n)))].sort((a, b) => a - b);
  const old = new Set(list);
  const range: Constraint[] = [
    { kind: 'ge', expr: Linear.variable(joined) },
    { kind: 'ge', expr: Linear.constant(total - 1).sub(Linear.variable(joined)) },
  ];
  const strip = (d: BasicSet, extraDims: (dims: string[]) => string[], extra: readonly Constraint[]) =>
    BasicSet.fromConstraints(
      d.params,
      extraDims(d.dims.filter((n) => !old.has(n))),
      [...d.constraints.filter((c) => !coupled.includes(c)), ...extra],
      d.existentials,
    );

  const first = knl.domains[homes[0]];
  const at = first.dims.findIndex((n) => old.has(n));
  let target = strip(first, (dims) => [...dims.slice(0, at), joined, ...dims.slice(at)], range);
  const out: (BasicSet | undefined)[] = [...knl.domains];
  for (const h of homes.slice(1)) {
    const rest = strip(knl.domains[h], (dims) => dims, []);
    if (rest.dims.length > 0) out[h] = rest;
    else {
      if (rest.constraints.length > 0) target = target.intersect(rest);
      out[h] = undefined;
    }
  }
  out[homes[0]] = target;
  return out.filter((d): d is BasicSet => d !== undefined);
}

/** Uses of the old inames become their values; a reduction over them reduces over the joined one. */
function replaceJoined(e: Expr, list: readonly string[], joined: string, values: ReadonlyMap<string, Expr>): Expr {
  return mapExpr(e, (x) => {
    if (x.kind === 'var') return values.get(x.name) ?? x;
    if (x.kind === 'reduce' && x.inames.some((n) => list.includes(n)))
      return reduce(x.op, replaceInList(x.inames, list, joined), x.operands, x.simultaneous);
    return x;
  });
}

/** The first of the old inames becomes the joined one; the others disappear. */
function replaceInList(names: readonly string[], list: readonly string[], joined: string): string[] {
  const out: string[] = [];
  for (const n of names) {
    const m = list.includes(n) ? joined : n;
    if (!out.includes(m)) out.push(m);
  }
  return out;
}
