/**
 * `addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto' })`: read the part of
 * `a` that the swept inames touch into a temporary first (`a_fetch`), then compute
 * from the temporary (see `footprint.ts`).
 */
import { LoomError } from '../errors.ts';
import { subscript } from '../expr/nodes.ts';
import { mapExpr, printExpr, toLinear } from '../expr/index.ts';
import { allAccesses } from '../kernel/accesses.ts';
import type { AddressSpace, LoopKernel } from '../kernel/model.ts';
import { storeFootprint } from './footprint.ts';
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
}

export function addPrefetch(knl: LoopKernel, name: string, sweep: string | readonly string[] = [], options: PrefetchOptions = {}): LoopKernel {
  const swept = typeof sweep === 'string' ? sweep.split(',').map((s) => s.trim()).filter(Boolean) : [...sweep];
  const arg = knl.arg(name);
  if (!arg && !knl.temporaries.has(name)) throw new LoomError(`addPrefetch: the kernel has no array '${name}'`);
  if (arg?.kind === 'value') throw new LoomError(`addPrefetch: '${name}' is a value argument, not an array`);
  const accesses = allAccesses(knl).filter((a) => a.array === name);
  if (accesses.some((a) => a.isWrite)) throw new LoomError(`addPrefetch: '${name}' is written by the kernel; only data that is only read can be prefetched`);
  if (accesses.length === 0) throw new LoomError(`addPrefetch: the kernel never reads '${name}'`);
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
    defaultTag: options.defaultTag,
    addressSpace: options.temporaryAddressSpace,
    dtype: arg?.dtype ?? knl.temporaries.get(name)?.dtype,
    limit: (axis) => (shape[axis] ? toLinear(shape[axis]) : undefined),
    value: (args) => subscript(name, args),
    rewrite: (e, read) => mapExpr(e, (x) => (x.kind === 'subscript' && x.array === name ? read(x.indices.map((ix) => toLinear(ix)!)) : x)),
  });
}
