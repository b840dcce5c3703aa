/**
 * The builder's verbs on substitution rules and stored footprints: prefetch, precompute,
 * extracting and expanding rules. Prefetch adds its fetch inames (`a_dim_0`, ... unless
 * named); precompute names its new inames after the rule's parameters, which the type
 * level cannot read, so without `precomputeInames` the inames become loose (`string`).
 */
import {
  addPrefetch,
  aliasTemporaries,
  allocateTemporariesForBaseStorage,
  assignmentToSubst,
  bufferArray,
  expandSubst,
  extractSubst,
  pipelinePrefetch,
  doubleBuffer,
  asyncCopies,
  bulkCopies,
  precompute,
  tensorize,
  type TensorizeOptions,
  type AliasTemporariesOptions,
  type PipelinePrefetchOptions,
  type AssignmentToSubstOptions,
  type BufferArrayOptions,
  type Within,
} from '@loom/core';
import type { AnySignature, ArrayNames } from '../signature/signature.ts';
import type { KernelBuilder } from './builder.ts';
import { InameVerbs } from './iname-verbs.ts';
import type { PrecomputeOptions, PrefetchOptions } from './options.ts';
import type { Tag } from './inames.ts';
import { checkVerbOptions } from './verb-options.ts';

/**
 * The names new inames tagged `T` may end up with: `defaultTag: 'l.auto'` splits one longer
 * than its local axis into `<name>_outer` and `<name>_inner`, as loopy's automatic axes do.
 * ```ts
 * kernel(...).prefetch('a', ['i_inner', 'j_inner'], { defaultTag: 'l.auto' }).prioritize('a_dim_0_outer,a_dim_1_outer');
 * ```
 */
export type AutoFitted<T, N extends string> = T extends 'l.auto' ? N | `${N}_outer` | `${N}_inner` : N;

export class RuleVerbs<I extends string, S extends AnySignature, C = never> extends InameVerbs<I, S, C> {
  /** `addPrefetch`: read the part of `array` the swept inames touch into a temporary first. */
  prefetch<
    A extends ArrayNames<S>,
    const Dims extends readonly string[] = never,
    const T extends Tag<I> | undefined = undefined,
  >(
    array: A | `${A}[${string}]`,
    sweep: readonly I[] = [],
    options: PrefetchOptions<I, Dims> & { readonly defaultTag?: T } = {},
  ): KernelBuilder<I | AutoFitted<T, [Dims] extends [never] ? `${A}_dim_${number}` : Dims[number]>, S> {
    checkVerbOptions('prefetch', options);
    const { space, ...rest } = options;
    return this.derive((k) => addPrefetch(k, array, sweep, { ...rest, temporaryAddressSpace: space }));
  }

  /**
   * `pipelinePrefetch`: the fetch instructions `fetch` picks load the values of the next
   * iteration of `iname` into registers while this one computes (copies of their loops: `x_next`, `x_first`).
   */
  pipelinePrefetch(
    fetch: Within,
    iname: I,
    options: PipelinePrefetchOptions = {},
  ): KernelBuilder<I | `${I}_next` | `${I}_first`, S> {
    return this.derive((k) => pipelinePrefetch(k, fetch, iname, options));
  }

  /**
   * `doubleBuffer`: local temporaries filled one step of `iname` ahead into a second buffer, one
   * barrier a step (`iname` becomes `${iname}_pair` and the unrolled `${iname}_parity`); with
   * `stages`, that many buffers filled `ahead` steps ahead (default `stages - 1`, the first steps
   * by a loop `${iname}_prologue`), whose asynchronous copies a barrier may leave in flight.
   * ```ts
   * kernel`...`.prefetch('a', ['i_inner', 'k_inner'], { space: 'local' }).doubleBuffer('a_fetch', 'k_outer')
   * kernel`...`.doubleBuffer(['a_fetch', 'b_fetch'], 'k_outer', { stages: 4 }).asyncCopies(['a_fetch', 'b_fetch'])
   * ```
   */
  doubleBuffer<
    const P extends string = `${I}_pair`,
    const Q extends string = `${I}_parity`,
    const R extends string = `${I}_prologue`,
  >(
    temporaries: string | readonly string[],
    iname: I,
    options: {
      readonly pairIname?: P;
      readonly parityIname?: Q;
      readonly stages?: number;
      readonly ahead?: number;
      readonly prologueIname?: R;
    } = {},
  ): KernelBuilder<Exclude<I, typeof iname> | P | Q | R | `${I}_next` | `${I}_first`, S> {
    return this.derive((k) => doubleBuffer(k, temporaries, iname, options));
  }

  /**
   * `asyncCopies`: the fills of local temporaries become asynchronous copies (CUDA's `cp.async`),
   * which a work-item issues without waiting and waits for at its next barrier; with a double
   * buffer, the next step's copies land while this step computes.
   * ```ts
   * kernel`...`.prefetch('b', ['k_inner', 'j_inner'], { space: 'local' }).doubleBuffer('b_fetch', 'k_outer').asyncCopies('b_fetch')
   * ```
   */
  asyncCopies(temporaries: string | readonly string[]): KernelBuilder<I, S> {
    return this.derive((k) => asyncCopies(k, temporaries));
  }

  /**
   * `bulkCopies`: the fills of local tiles become one request a step, which the work-group's
   * first work-item makes and the hardware carries out (CUDA's tensor memory accelerator on
   * sm_90, `cp.async.bulk.tensor`), waited for at the next barrier; the tile must be a box of the
   * global array laid out in local memory as the request writes it.
   * ```ts
   * kernel`...`.prefetch('a', ['i_inner', 'k_inner'], { space: 'local', fetchOuterInames: ['i_outer', 'k_outer'] }).bulkCopies('a_fetch')
   * ```
   */
  bulkCopies(temporaries: string | readonly string[]): KernelBuilder<I, S> {
    return this.derive((k) => bulkCopies(k, temporaries));
  }

  /**
   * `tensorize`: a tile of a sum of products computed by the target's matrix instructions (tensor
   * cores: CUDA's WMMA), one tile per subgroup of 32 lanes (a new iname `lane` on `l.0`).
   * ```ts
   * kernel`...`.split('i', 16).split('j', 16).split('k', 16).tensorize({ m: 'i_inner', n: 'j_inner', k: 'k_inner' })
   * ```
   */
  tensorize<const L extends string = 'lane'>(
    tile: { readonly m: I; readonly n: I; readonly k: I },
    options: TensorizeOptions & { readonly laneIname?: L } = {},
  ): KernelBuilder<I | L, S> {
    return this.derive((k) => tensorize(k, tile, options));
  }

  /** `precompute`: evaluate a substitution rule over the footprint of its uses into a temporary first. */
  precompute<const Dims extends readonly string[] = never, const T extends Tag<I> | undefined = undefined>(
    rule: string | readonly string[],
    sweep: readonly I[] = [],
    options: PrecomputeOptions<I, Dims> & { readonly defaultTag?: T } = {},
  ): KernelBuilder<[Dims] extends [never] ? string : I | AutoFitted<T, Dims[number]>, S> {
    checkVerbOptions('precompute', options);
    const { space, ...rest } = options;
    return this.derive((k) => precompute(k, rule, sweep, { ...rest, temporaryAddressSpace: space }));
  }

  /** `extractSubst`: subexpressions shaped like `template` become calls of a new rule `name`. */
  extractSubst(
    name: string,
    template: string,
    parameters: string | readonly string[] = [],
    within?: Within,
  ): KernelBuilder<I, S> {
    return this.derive((k) => extractSubst(k, name, template, parameters, within));
  }

  /** `assignmentToSubst`: an assignment to `name` becomes the rule `name_subst`, called where `name` was read. */
  assignmentToSubst(name: string, options: AssignmentToSubstOptions = {}): KernelBuilder<I, S> {
    return this.derive((k) => assignmentToSubst(k, name, options));
  }

  /** `expandSubst`: rule calls are written out (in the instructions `within` picks). */
  expandSubst(within?: Within): KernelBuilder<I, S> {
    return this.derive((k) => expandSubst(k, within));
  }

  /** `bufferArray`: the writes of `array` go to a buffer, filled first and written back after (`<array>_init_0`, `<array>_store_0` loops). */
  bufferArray<A extends ArrayNames<S>>(
    array: A,
    options: Omit<BufferArrayOptions, 'bufferInames'> & { readonly bufferInames?: readonly I[] } = {},
  ): KernelBuilder<I | `${A}_init_${number}` | `${A}_store_${number}`, S> {
    return this.derive((k) => bufferArray(k, array, options));
  }

  /** `aliasTemporaries`: these temporaries share one storage, their uses ordered one after the other. */
  aliasTemporaries(names: readonly string[], options: AliasTemporariesOptions = {}): KernelBuilder<I, S> {
    return this.derive((k) => aliasTemporaries(k, names, options));
  }

  /**
   * `allocateTemporariesForBaseStorage` (loopy's): temporaries sharing a `baseStorage` get it;
   * Loom allocates it as the kernel is made, so the kernel is unchanged.
   * ```ts
   * kernel.allocateTemporariesForBaseStorage().compile(device);
   * ```
   */
  allocateTemporariesForBaseStorage(): KernelBuilder<I, S> {
    return this.derive((k) => allocateTemporariesForBaseStorage(k));
  }
}
