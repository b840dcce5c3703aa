/**
 * `addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto' })`: read the part of `a`
 * that the swept inames touch into a temporary first (`a_fetch`), then compute from the
 * temporary (see footprint-store.ts). loopy's names: the temporary `a_fetch`, one iname per
 * fetched axis `a_dim_0`, `a_dim_1`, ..., the fetch instruction `a_fetch_rule`.
 *
 * The footprint may be spelled out: `addPrefetch(knl, 'a[:, j]', ['j'])` fetches whole rows
 * (`:` is an entire axis) for every `j`; the reads inside it then read the copy, the others
 * the array.
 *
 * A tagged name fetches only the reads written with that tag (loopy's `TaggedVariable`):
 * `addPrefetch(knl, 'G$x[:, e, :, :]')` fetches the reads `G$x[...]` into `G_x_fetch`, and
 * leaves `G$y[...]` and untagged reads of `G` reading `G`.
 * Reads inside substitution rules read the copy too, through copies of the rules made for
 * their callers; the rules stay rules (a rule every caller reads the same way keeps its
 * name), so a later `precompute` still finds them, as after loopy's add_prefetch.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName, checkNames, nameList } from '../names.ts';
import { subscript, type Expr } from '../expr/nodes.ts';
import { freeVariables, mapExpr, parseExpression, printExpr, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet } from '../sets/index.ts';
import { allAccesses } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { AddressSpace, LoopKernel } from '../kernel/model.ts';
import { describeWithin, instructionsWithin, type Within } from './match.ts';
import { storeFootprint, type Use } from './footprint-store.ts';
import type { TagSpec } from './tag-inames.ts';

/** The options addPrefetch reads; any other key is an error. */
const ADD_PREFETCH_OPTIONS = optionKeys<PrefetchOptions>()([
  'defaultTag',
  'dimArgNames',
  'dimNames',
  'fetchBoundingBox',
  'fetchOuterInames',
  'footprintSubscripts',
  'prefetchInsnId',
  'roundTag',
  'ruleName',
  'temporaryAddressSpace',
  'temporaryName',
  'within',
]);

/** Options of `addPrefetch`. */
export interface PrefetchOptions {
  /**
   * Tag of the fetch inames; default: loops. `'l.auto'` fits them to the work-group's local axes
   * as loopy does (the smallest stride on l.0, one longer than its axis split into
   * `<name>_outer` and `<name>_inner`, loops where no axis is free: automatic-axes.ts).
   */
  readonly defaultTag?: TagSpec;
  /**
   * With `defaultTag: 'l.auto'`, the tag of the rounds it leaves where a fetch iname is longer than
   * its local axis (`a_dim_1_outer`); default: loops. `'unr'` issues a work-item's loads of the
   * whole tile together rather than a load and a store a round (a 128 x 16 panel over 16 x 16
   * work-items: 8 loads in flight, not 1):
   * ```ts
   * knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto', roundTag: 'unr' });
   * ```
   */
  readonly roundTag?: TagSpec;
  /** Extra inames the fetch runs inside (loopy's fetch_outer_inames): a list, or loopy's comma-separated string `'i_outer, j_outer'`. */
  readonly fetchOuterInames?: string | readonly string[];
  /** The temporary's name (default `a_fetch` for an array `a`). */
  readonly temporaryName?: string;
  /** Where the temporary lives; default `'auto'`, decided when the kernel is preprocessed (loopy's `AddressSpace.AUTO`). */
  readonly temporaryAddressSpace?: AddressSpace;
  /** Names of the fetch inames, one per axis of the array (loopy's dim_arg_names). */
  readonly dimArgNames?: string | readonly string[];
  /**
   * The same as `dimArgNames` (Loom's earlier name for it).
   * @deprecated use `dimArgNames`.
   */
  readonly dimNames?: readonly string[];
  /** Only the reads in the instructions this match expression picks (see match.ts) read the copy; default: all. */
  readonly within?: Within;
  /** The id of the fetch instruction (default: the rule name). */
  readonly prefetchInsnId?: string;
  /** loopy's name for the substitution rule it fetches through; Loom's fetch instruction takes it as its default id (`a_fetch_rule`). */
  readonly ruleName?: string;
  /** The footprint, spelled out: index tuples such as `'i, :'` (`:` an entire axis); or put one in the name, `'a[i, :]'`. */
  readonly footprintSubscripts?: string | readonly string[];
  /** Fetch the whole bounding box, not clipped to the bounds every read keeps. */
  readonly fetchBoundingBox?: boolean;
}

/**
 * Reads the part of an array that the `sweep` loops touch into a local or private temporary first (loopy's
 * `add_prefetch`).
 * ```ts
 * knl = addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto' });
 * ```
 */
export function addPrefetch(
  knl: LoopKernel,
  spec: string,
  sweep: string | readonly string[] = [],
  options: PrefetchOptions = {},
): LoopKernel {
  checkOptionKeys('addPrefetch', options, ADD_PREFETCH_OPTIONS);
  checkPrefetchNames(options);
  const { name, tag, subscripts } = splitName(spec, options);
  // loopy's names for a tagged fetch: `G$x` fetches into `G_x_fetch`
  const base = tag === undefined ? name : `${name}_${tag}`;
  const selected = (array: string, readTag: string | undefined) =>
    array === name && (tag === undefined || readTag === tag);
  const swept = nameList(sweep);
  const arg = knl.arg(name);
  if (!arg && !knl.temporaries.has(name)) throw new LoomError(`addPrefetch: the kernel has no array '${name}'`);
  if (arg?.kind === 'value') throw new LoomError(`addPrefetch: '${name}' is a value argument, not an array`);
  const all = allAccesses(knl).filter((a) => a.array === name);
  if (all.every((a) => a.isWrite)) throw new LoomError(`addPrefetch: the kernel never reads '${name}'`);
  if (all.length === 0) throw new LoomError(`addPrefetch: the kernel never reads '${name}'`);
  const within = instructionsWithin(knl, options.within, 'addPrefetch: option within');
  const accesses = all.filter((a) => !a.isWrite && within.has(a.instruction.id) && selected(a.array, a.tag));
  if (accesses.length === 0 && tag !== undefined && all.some((a) => !a.isWrite && within.has(a.instruction.id)))
    throw new LoomError(
      `addPrefetch: no read of '${name}' is tagged '${tag}' (tags of its reads: ${[...new Set(all.filter((a) => !a.isWrite).map((a) => (a.tag === undefined ? 'none' : `'${a.tag}'`)))].join(', ')})`,
    );
  if (accesses.length === 0) {
    throw new LoomError(
      `addPrefetch: no instruction within '${describeWithin(options.within)}' reads '${name}' (readers: ${[...new Set(all.filter((a) => !a.isWrite).map((a) => a.instruction.id))].join(', ')})`,
    );
  }
  const uses = accesses.map((a) => ({
    instruction: a.instruction,
    reductionInames: a.reductionInames,
    args: a.indices.map((ix, axis) => {
      const lin = toLinear(ix);
      if (!lin)
        throw new LoomError(
          `addPrefetch: index '${printExpr(ix)}' of '${name}' (axis ${axis}) is not affine; it cannot be prefetched`,
          a.instruction.span,
        );
      return lin;
    }),
  }));
  const shape = arg?.shape ?? knl.temporaries.get(name)!.shape;
  // a vector array's footprint may leave out its lanes (loopy's `DrDsDt[:, :]` of float4s): all of them
  const lanesAxis = (arg ?? knl.temporaries.get(name))?.dimTags?.at(-1)?.kind === 'vec' ? shape.length - 1 : undefined;
  const spelled = subscripts?.map((entriesOf) =>
    lanesAxis !== undefined && entriesOf.length === lanesAxis ? [...entriesOf, ':'] : entriesOf,
  );
  const footprint = spelled && footprintUses(knl, name, shape, spelled, uses[0]);
  const given =
    typeof options.dimArgNames === 'string'
      ? options.dimArgNames.split(',').map((s) => s.trim())
      : (options.dimArgNames ?? options.dimNames);
  return storeFootprint(knl, {
    what: 'addPrefetch',
    // reads inside rules read the copy through copies of the rules, which stay (loopy's extract_subst + precompute)
    throughRules: true,
    base: name,
    uses,
    footprint: footprint?.uses,
    sweep: swept,
    extraSweep: footprint?.sweep,
    fetchOuterInames: options.fetchOuterInames === undefined ? undefined : nameList(options.fetchOuterInames),
    temporaryName: options.temporaryName,
    defaultTemporaryName: `${base}_fetch`,
    axisNames: given,
    defaultAxisName: (axis) => `${base}_dim_${(arg ?? knl.temporaries.get(name))?.dimNames?.[axis] ?? axis}`,
    storeId: options.prefetchInsnId,
    defaultStoreId: options.ruleName ?? `${base}_fetch_rule`,
    defaultTag: options.defaultTag,
    roundTag: options.roundTag,
    // the lanes of one vector are copied together, by one work-item
    ...(lanesAxis !== undefined ? { axisTag: (axis: number) => (axis === lanesAxis ? 'unr' : undefined) } : {}),
    addressSpace: options.temporaryAddressSpace,
    dtype: arg?.dtype ?? knl.temporaries.get(name)?.dtype,
    boundingBox: options.fetchBoundingBox,
    limit: (axis) => (shape[axis] ? toLinear(shape[axis]) : undefined),
    value: (args) => subscript(name, args),
    rewrite: (e, read) =>
      mapExpr(e, (x) =>
        x.kind === 'subscript' && selected(x.array, x.tag) ? (read(x.indices.map((ix) => toLinear(ix)!)) ?? x) : x,
      ),
  });
}

/**
 * `'a'`, or `'a[i, :]'` with its footprint; `footprintSubscripts` gives footprints too (not both).
 * `'a$x'`, `'a$x[i, :]'`: loopy's tagged name, which fetches only the reads written `a$x[...]`.
 */
function splitName(spec: string, options: PrefetchOptions): { name: string; tag?: string; subscripts?: string[][] } {
  const open = spec.indexOf('[');
  const given =
    options.footprintSubscripts === undefined
      ? undefined
      : typeof options.footprintSubscripts === 'string'
        ? [options.footprintSubscripts]
        : options.footprintSubscripts;
  if (open < 0) return { ...taggedName(spec), subscripts: given?.map(entries) };
  if (given)
    throw new LoomError(
      `addPrefetch: '${spec}' has a footprint in its name; give it there or in footprintSubscripts, not both`,
    );
  if (!spec.trimEnd().endsWith(']'))
    throw new LoomError(`addPrefetch: expected 'name[indices]', got '${spec}'`, {
      text: spec,
      start: spec.length - 1,
      end: spec.length,
    });
  return {
    ...taggedName(spec.slice(0, open)),
    subscripts: [entries(spec.slice(open + 1, spec.trimEnd().length - 1))],
  };
}

/** `'a'` → { name: 'a' }; `'a$x'` → { name: 'a', tag: 'x' }. */
function taggedName(text: string): { name: string; tag?: string } {
  const [name, tag, ...more] = text.trim().split('$');
  if (more.length) throw new LoomError(`addPrefetch: '${text.trim()}' has more than one tag ('name$tag' has one)`);
  const checked = checkName(name, 'addPrefetch: the array');
  return tag === undefined ? { name: checked } : { name: checked, tag: checkName(tag, 'addPrefetch: the tag') };
}

function entries(text: string): string[] {
  return text
    .replace(/^\s*\[|\]\s*$/g, '')
    .split(',')
    .map((s) => s.trim());
}

/**
 * The footprint the caller spelled out, as uses: an index expression is its value where the
 * inames it names run (swept or fixed), `:` a variable of its own over the whole axis.
 */
function footprintUses(
  knl: LoopKernel,
  name: string,
  shape: readonly Expr[],
  subscripts: readonly string[][],
  sample: Use,
): { uses: Use[]; sweep: string[] } {
  const inames = new Set(knl.inames);
  const sweep: string[] = [];
  const uses = subscripts.map((entriesOf, k): Use => {
    if (entriesOf.length !== shape.length)
      throw new LoomError(
        `addPrefetch: the footprint '${entriesOf.join(', ')}' has ${entriesOf.length} indices; '${name}' has ${shape.length} axes`,
      );
    const slices: { v: string; extent: Linear }[] = [];
    const args = entriesOf.map((text, axis) => {
      if (text === ':') {
        const extent = toLinear(shape[axis]);
        if (!extent)
          throw new LoomError(
            `addPrefetch: axis ${axis} of '${name}' has no affine length (${printExpr(shape[axis])}) to fetch whole`,
          );
        const v = `__${name}_fetch_axis_${k}_${axis}`;
        slices.push({ v, extent });
        sweep.push(v);
        return Linear.variable(v);
      }
      // written in the names from before a split (loopy reads them through its applied_iname_rewrites)
      const index = throughAppliedRewrites(knl, parseExpression(text));
      const lin = toLinear(index);
      if (!lin) throw new LoomError(`addPrefetch: the footprint index '${text}' is not affine`);
      const unknown = [...freeVariables(index)].filter(
        (n) => !inames.has(n) && !knl.domains.some((d) => d.params.includes(n)) && !knl.arg(n),
      );
      if (unknown.length)
        throw new LoomError(
          `addPrefetch: the footprint index '${text}' names '${unknown.join("', '")}', which is no iname or parameter`,
        );
      return lin;
    });
    const named = [...new Set(args.flatMap((l) => l.variables.filter((v) => inames.has(v))))];
    const whole = BasicSet.fromConstraints(
      [],
      slices.map((s) => s.v),
      slices.flatMap(({ v, extent }) => [
        { kind: 'ge' as const, expr: Linear.variable(v) },
        { kind: 'ge' as const, expr: extent.sub(1).sub(Linear.variable(v)) },
      ]),
    );
    return {
      instruction: sample.instruction,
      reductionInames: [],
      args,
      points: named.length ? domainOf(knl, named).intersect(whole) : whole,
    };
  });
  return { uses, sweep };
}

/** `e` with the inames that splits replaced written as the splits wrote them, oldest split first. */
function throughAppliedRewrites(knl: LoopKernel, e: Expr): Expr {
  // a name that is an iname again (renamed back) means that iname
  const current = new Set(knl.inames);
  let out = e;
  for (const rewrite of knl.appliedInameRewrites) {
    out = mapExpr(out, (x) =>
      x.kind === 'var' && rewrite.has(x.name) && !current.has(x.name) ? rewrite.get(x.name)! : x,
    );
  }
  return out;
}

/** The names `addPrefetch` is given become a temporary, inames and an instruction id: they must be names. */
function checkPrefetchNames(options: PrefetchOptions): void {
  if (options.temporaryName !== undefined) checkName(options.temporaryName, 'addPrefetch: option temporaryName');
  if (options.dimNames !== undefined) checkNames(options.dimNames, 'addPrefetch: option dimNames');
  if (options.dimArgNames !== undefined)
    checkNames(
      typeof options.dimArgNames === 'string'
        ? options.dimArgNames.split(',').map((s) => s.trim())
        : options.dimArgNames,
      'addPrefetch: option dimArgNames',
    );
  if (options.dimNames !== undefined && options.dimArgNames !== undefined)
    throw new LoomError('addPrefetch: give dimArgNames or dimNames (the same option), not both');
  // only l.auto leaves rounds: with any other tag the option would do nothing
  if (options.roundTag !== undefined && options.roundTag !== null && options.defaultTag !== 'l.auto')
    throw new LoomError(
      `addPrefetch: option roundTag tags the rounds defaultTag 'l.auto' leaves over a tile larger than the work-group; defaultTag is ${options.defaultTag === undefined ? 'not given' : `'${String(options.defaultTag)}'`}`,
    );
  if (options.prefetchInsnId !== undefined) checkName(options.prefetchInsnId, 'addPrefetch: option prefetchInsnId');
  if (options.ruleName !== undefined) checkName(options.ruleName, 'addPrefetch: option ruleName');
}
