/**
 * `addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto' })`: read the part of
 * `a` that the swept inames touch into a temporary first (`a_fetch`), then compute
 * from the temporary (see `footprint.ts`).
 */
import { LoomError } from '../errors.ts';
import { checkName, checkNames } from '../names.ts';
import { subscript } from '../expr/nodes.ts';
import { mapExpr, printExpr, someExpr, toLinear } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import { allAccesses } from '../kernel/accesses.ts';
import type { AddressSpace, LoopKernel } from '../kernel/model.ts';
import { instructionsWithin, type Within } from './match.ts';
import { storeFootprint } from './footprint.ts';
import { inlineRulesThat } from './rewrite-expressions.ts';
import type { TagSpec } from './tag-inames.ts';

export interface PrefetchOptions {
  /** Tag of the fetch inames: `'l.auto'` spreads them over local axes (last array axis on l.0); default: loops. */
  readonly defaultTag?: TagSpec;
  /** Extra inames the fetch runs inside (loopy's fetch_outer_inames). */
  readonly fetchOuterInames?: readonly string[];
  readonly temporaryName?: string;
  readonly temporaryAddressSpace?: AddressSpace;
  /** Names of the fetch inames, one per fetched axis. */
  readonly dimNames?: readonly string[];
  /** Only the reads in these instructions (ids, wildcards allowed) read the fetched copy; default: all. */
  readonly within?: string | readonly string[];
  /** The id of the fetch instruction (default `<temporary>_rule`). */
  readonly prefetchInsnId?: string;
}

export function addPrefetch(knl: LoopKernel, name: string, sweep: string | readonly string[] = [], options: PrefetchOptions = {}): LoopKernel {
  checkPrefetchNames(options);
  const swept = typeof sweep === 'string' ? sweep.split(',').map((s) => s.trim()).filter(Boolean) : [...sweep];
  const arg = knl.arg(name);
  if (!arg && !knl.temporaries.has(name)) throw new LoomError(`addPrefetch: the kernel has no array '${name}'`);
  if (arg?.kind === 'value') throw new LoomError(`addPrefetch: '${name}' is a value argument, not an array`);
  // reads inside substitution rules become reads in the instructions that call them
  knl = inlineRulesThat(knl, (rule) => readsArray(rule.expression, name));
  const all = allAccesses(knl).filter((a) => a.array === name);
  if (all.some((a) => a.isWrite)) throw new LoomError(`addPrefetch: '${name}' is written by the kernel; only data that is only read can be prefetched`);
  if (all.length === 0) throw new LoomError(`addPrefetch: the kernel never reads '${name}'`);
  const within = instructionsWithin(knl, options.within, 'addPrefetch: option within');
  const accesses = all.filter((a) => within.has(a.instruction.id));
  if (accesses.length === 0) {
    throw new LoomError(`addPrefetch: no instruction within '${[options.within].flat().join(':')}' reads '${name}' (readers: ${[...new Set(all.map((a) => a.instruction.id))].join(', ')})`);
  }
  const uses = accesses.map((a) => ({
    instruction: a.instruction,
    reductionInames: a.reductionInames,
    args: a.indices.map((ix, axis) => {
      const lin = toLinear(ix);
      if (!lin) throw new LoomError(`addPrefetch: index '${printExpr(ix)}' of '${name}' (axis ${axis}) is not affine; it cannot be prefetched`, a.instruction.span);
      return lin;
    }),
  }));
  const shape = arg?.shape ?? knl.temporaries.get(name)!.shape;
  return storeFootprint(knl, {
    what: 'addPrefetch',
    base: name,
    tempSuffix: 'fetch',
    uses,
    sweep: swept,
    fetchOuterInames: options.fetchOuterInames,
    temporaryName: options.temporaryName,
    dimNames: options.dimNames,
    storeId: options.prefetchInsnId,
    defaultTag: options.defaultTag,
    addressSpace: options.temporaryAddressSpace,
    dtype: arg?.dtype ?? knl.temporaries.get(name)?.dtype,
    limit: (axis) => (shape[axis] ? toLinear(shape[axis]) : undefined),
    value: (args) => subscript(name, args),
    rewrite: (e, read) => mapExpr(e, (x) => (x.kind === 'subscript' && x.array === name ? read(x.indices.map((ix) => toLinear(ix)!)) : x)),
  });
}

function readsArray(e: Expr, name: string): boolean {
  return someExpr(e, (x) => x.kind === 'subscript' && x.array === name);
}

/** The names `addPrefetch` is given become a temporary, inames and an instruction id: they must be names. */
function checkPrefetchNames(options: PrefetchOptions): void {
  if (options.temporaryName !== undefined) checkName(options.temporaryName, 'addPrefetch: option temporaryName');
  if (options.dimNames !== undefined) checkNames(options.dimNames, 'addPrefetch: option dimNames');
  if (options.prefetchInsnId !== undefined) checkName(options.prefetchInsnId, 'addPrefetch: option prefetchInsnId');
}
