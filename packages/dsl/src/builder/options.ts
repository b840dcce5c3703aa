/** The options of the builder's verbs (each maps onto the options of a core function). */
import type { AddressSpace, DType, MakeKernelOptions, TemporarySpec, Within } from '@loom/core';
import type { ArgDecls } from '../signature/arg-decls.ts';
import type { Tag } from './inames.ts';

/**
 * `makeKernel`'s options, and two of the DSL's own: a literal `name` also looks a
 * template kernel up in the `KernelRegistry`, and `args` declares the arguments from the
 * start (like `.args()`, for kernels that need declarations to be built at all).
 */
export interface KernelBuilderOptions<Name extends string = string, A extends ArgDecls = ArgDecls>
  extends MakeKernelOptions {
  /** The kernel's name; a literal one also finds a template kernel's types in the `KernelRegistry`. */
  readonly name?: Name;
  /** The argument declarations, as `.args()` takes them. */
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
  /** The outer iname's name (default `i_outer` for `i`). */
  readonly outerIname?: O;
  /** The inner iname's name (default `i_inner` for `i`). */
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
  /** With `defaultTag: 'l.auto'`, the tag of the rounds over a tile longer than the work-group (`'unr'`: its loads issued together). */
  readonly roundTag?: Tag<I>;
  /** Extra inames the fetch runs inside (loopy's `fetch_outer_inames`). */
  readonly fetchOuterInames?: readonly I[];
  /** The copy's name (default `a_fetch` for an array `a`). */
  readonly temporaryName?: string;
  /** Where the copy lives (`'local'`, `'private'`, `'global'`); default `'auto'`, as loopy decides it. */
  readonly space?: AddressSpace;
  /** Names for the fetch inames, one per axis of the array (default `a_dim_0`, ...). */
  readonly dimArgNames?: Dims;
  /**
   * The same as `dimArgNames` (Loom's earlier name for it).
   * @deprecated use `dimArgNames`.
   */
  readonly dimNames?: Dims;
  /** Only the reads in these instructions (a match expression) read the copy. */
  readonly within?: Within;
  /** The id of the fetch instruction (default: the rule name). */
  readonly prefetchInsnId?: string;
  /** loopy's name for the substitution rule it fetches through; the fetch instruction's default id. */
  readonly ruleName?: string;
  /** The footprint, spelled out: `'i, :'` (`:` an entire axis). */
  readonly footprintSubscripts?: string | readonly string[];
  /** Fetch the whole bounding box, not clipped to the bounds every read keeps. */
  readonly fetchBoundingBox?: boolean;
}

/** Options of `KernelBuilder.precompute`. */
export interface PrecomputeOptions<I extends string, Dims extends readonly string[]> {
  /** Only the calls in these instructions (a match expression) read the temporary. */
  readonly within?: Within;
  /** The temporary's axes, in order: the rule's parameters (by name or position) and the swept inames its value uses. */
  readonly storageAxes?: readonly (string | number)[];
  /** The temporary's name (default: made from the rule's). */
  readonly temporaryName?: string;
  /** Names of the new inames, one per storage axis (default: the rule's parameters'). */
  readonly precomputeInames?: Dims;
  /** Inames the store runs inside, besides those its footprint moves with (loopy's `precompute_outer_inames`). */
  readonly precomputeOuterInames?: readonly I[];
  /**
   * The same as `precomputeOuterInames` (Loom's earlier name for it).
   * @deprecated use `precomputeOuterInames`.
   */
  readonly fetchOuterInames?: readonly I[];
  /** Tags of the new inames by storage axis (parameter name, position, swept iname or given iname name). */
  readonly storageAxisToTag?: Readonly<Record<string, Tag<I>>>;
  /** Tag of the new inames that `storageAxisToTag` does not tag; default: none (loops). */
  readonly defaultTag?: Tag<I>;
  /** The temporary's dtype; default: the type of the rule's value. */
  readonly dtype?: DType;
  /** Store the whole box, not clipped to the bounds every use keeps. */
  readonly fetchBoundingBox?: boolean;
  /** Where the temporary lives (`'local'`, `'private'`, `'global'`); default `'auto'`, as loopy decides it. */
  readonly space?: AddressSpace;
  /** The id of the store instruction (default: the rule's name). */
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
