/** The options of the builder's verbs (each maps onto the options of a core function). */
import type { AddressSpace, DType, MakeKernelOptions, TemporarySpec, Within } from '@loom/core';
import type { ArgDecls } from '../signature/arg-decls.ts';
import type { Tag } from './inames.ts';

/**
 * `makeKernel`'s options, and two of the DSL's own: a literal `name` also looks a
 * template kernel up in the `KernelRegistry`, and `args` declares the arguments from the
 * start (like `.args()`, for kernels that need declarations to be built at all).
 */
export interface KernelBuilderOptions<Name extends string = string, A extends ArgDecls = ArgDecls> extends MakeKernelOptions {
  readonly name?: Name;
  readonly args?: A;
  /** Temporaries declared with what the instructions cannot say (`temporaryVariable`: initializers, address space, base storage). */
  readonly temporaries?: readonly TemporarySpec[];
}

/** Options of `KernelBuilder.split`. */
export interface SplitOptions<I extends string, O extends string, In extends string, W extends Within = Within> {
  /** Tag for the outer iname (`'g.0'`, `'unr'`, ...). */
  readonly outer?: Tag<I>;
  /** Tag for the inner iname (`'l.0'`, `'unr'`, ...). */
  readonly inner?: Tag<I>;
  readonly outerIname?: O;
  readonly innerIname?: In;
  /** Outer iterations generated apart at the start and end, so the bulk needs no guard. */
  readonly slabs?: readonly [number, number];
  /** Only the instructions this match expression picks (`'id:a or tag:b'`); the others keep the iname. */
  readonly within?: W;
}

/** Options of `KernelBuilder.tile`. */
export interface TileOptions<I extends string> {
  /** The two outer inames: `'g'` puts them on group axes (the second iname on g.0), `'l'` on local axes, or one tag for both. */
  readonly outer?: 'g' | 'l' | Tag<I>;
  /** The two inner inames, likewise: `inner: 'l'` gives the second iname l.0 (consecutive work-items, consecutive addresses). */
  readonly inner?: 'g' | 'l' | Tag<I>;
}

/** Options of `KernelBuilder.prefetch`. */
export interface PrefetchOptions<I extends string, Dims extends readonly string[]> {
  /** Tag of the fetch inames; `'l.auto'` spreads them over the local axes. */
  readonly defaultTag?: Tag<I>;
  readonly fetchOuterInames?: readonly I[];
  readonly temporaryName?: string;
  readonly space?: AddressSpace;
  /** Names for the fetch inames, one per axis of the array (default `a_dim_0`, ...). */
  readonly dimArgNames?: Dims;
  /** @deprecated the same as dimArgNames. */
  readonly dimNames?: Dims;
  /** Only the reads in these instructions (a match expression) read the copy. */
  readonly within?: Within;
  readonly prefetchInsnId?: string;
  readonly ruleName?: string;
  /** The footprint, spelled out: `'i, :'` (`:` an entire axis). */
  readonly footprintSubscripts?: string | readonly string[];
  readonly fetchBoundingBox?: boolean;
}

export interface PrecomputeOptions<I extends string, Dims extends readonly string[]> {
  readonly within?: Within;
  readonly storageAxes?: readonly (string | number)[];
  readonly temporaryName?: string;
  /** Names of the new inames, one per storage axis (default: the rule's parameters'). */
  readonly precomputeInames?: Dims;
  readonly precomputeOuterInames?: readonly I[];
  /** @deprecated the same as precomputeOuterInames. */
  readonly fetchOuterInames?: readonly I[];
  readonly storageAxisToTag?: Readonly<Record<string, Tag<I>>>;
  readonly defaultTag?: Tag<I>;
  readonly dtype?: DType;
  readonly fetchBoundingBox?: boolean;
  readonly space?: AddressSpace;
  readonly computeInsnId?: string;
}

/** Options of `KernelBuilder.stats`. */
export interface StatsOptions {
  /** Work-items per sub-group (32 on NVIDIA GPUs), or `'guess'` (32, with a warning). */
  readonly subgroupSize: number | 'guess';
  /** Count the work instructions repeat on the hardware axes they do not use. */
  readonly countRedundantWork?: boolean;
  /** Count the operations in array indices; default true. */
  readonly countWithinSubscripts?: boolean;
}
