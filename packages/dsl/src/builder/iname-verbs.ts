/**
 * The builder's verbs on inames: each is the core function of the same meaning, and its
 * type says what it does to the kernel's inames `I` (split trades `i` for `i_outer` and
 * `i_inner`; with `within`, the instructions outside keep `i`, so `i` stays).
 */
import {
  addInamesForUnusedHwAxes,
  addInamesToInsn,
  affineMapInames,
  chunkIname,
  duplicateInames,
  joinInames,
  LoomError,
  makeReductionInamesUnique,
  mapDomain,
  prioritizeLoops,
  removeInamesFromInsn,
  removeUnusedInames,
  renameIname,
  renameInames,
  renameInamesInBatch,
  splitIname,
  splitReductionInward,
  splitReductionOutward,
  tagInames,
  untagInames,
  type TagKind,
  type Within,
} from '@loom/core';
import type { AnySignature } from '../signature/signature.ts';
import { BuilderCore } from './core.ts';
import type { KernelBuilder } from './builder.ts';
import type { AfterWithin, AutoFittedTags, CheckedInameList, Join, MapInames, Numbered, Tag } from './inames.ts';
import type { SplitOptions, TileOptions } from './options.ts';
import { tileTags } from './tile.ts';
import { checkVerbOptions } from './verb-options.ts';

export class InameVerbs<I extends string, S extends AnySignature, C = never> extends BuilderCore<I, S, C> {
  /** `splitIname`: `i` becomes `i_outer` and `i_inner`, with `i = factor*i_outer + i_inner`. */
  split<
    N extends I,
    const O extends string = `${N}_outer`,
    const In extends string = `${N}_inner`,
    const W extends Within = undefined,
  >(iname: N, factor: number, options: SplitOptions<I, O, In, W> = {}): KernelBuilder<AfterWithin<I, N, O | In, W>, S> {
    checkVerbOptions('split', options);
    const { outer, inner, outerIname, innerIname, slabs, within } = options;
    return this.derive((k) =>
      splitIname(k, iname, factor, { outerTag: outer, innerTag: inner, outerIname, innerIname, slabs, within }),
    );
  }

  /** `chunkIname`: `i` becomes `numChunks` contiguous chunks: `i_outer` picks the chunk, `i_inner` the place in it. */
  chunk<
    N extends I,
    const O extends string = `${N}_outer`,
    const In extends string = `${N}_inner`,
    const W extends Within = undefined,
  >(
    iname: N,
    numChunks: number,
    options: SplitOptions<I, O, In, W> = {},
  ): KernelBuilder<AfterWithin<I, N, O | In, W>, S> {
    checkVerbOptions('chunk', options);
    const { outer, inner, outerIname, innerIname, slabs, within } = options;
    return this.derive((k) =>
      chunkIname(k, iname, numChunks, { outerTag: outer, innerTag: inner, outerIname, innerIname, slabs, within }),
    );
  }

  /**
   * Two splits, their tags and the loop order in one call: `.tile('i', 'j', 16, 16, {
   * outer: 'g', inner: 'l' })` gives `i_outer, j_outer` around `i_inner, j_inner`, with
   * `j` (the second iname, contiguous in row-major arrays) on axis 0.
   */
  tile<A extends I, B extends Exclude<I, A>>(
    a: A,
    b: B,
    aFactor: number,
    bFactor: number,
    options: TileOptions<I> = {},
  ): KernelBuilder<Exclude<I, A | B> | `${A}_outer` | `${A}_inner` | `${B}_outer` | `${B}_inner`, S> {
    checkVerbOptions('tile', options);
    const outer = tileTags(options.outer);
    const inner = tileTags(options.inner);
    return this.derive((k) => {
      let tiled = splitIname(k, a, aFactor, { outerTag: outer.first, innerTag: inner.first });
      tiled = splitIname(tiled, b, bFactor, { outerTag: outer.second, innerTag: inner.second });
      return prioritizeLoops(tiled, [`${a}_outer`, `${b}_outer`, `${a}_inner`, `${b}_inner`]);
    });
  }

  /**
   * `tagInames`: how each iname runs (`'l.0'`, `'g.0'`, `'unr'`, `'ilp'`, `'vec'`, ...); `'l.auto'`
   * fits one to the work-group, split into `<name>_outer` and `<name>_inner` when longer than its axis:
   * ```ts
   * kernel(...).tag({ i: 'l.0' }).tag({ f: 'l.auto' }).prioritize('f_outer');
   * ```
   */
  tag<const T extends { readonly [K in I]?: Tag<I> }>(
    tags: T & { readonly [K in Exclude<keyof T, I>]: never },
  ): KernelBuilder<I | AutoFittedTags<T>, S> {
    return this.derive((k) => tagInames(k, tags as Readonly<Record<string, Tag>>));
  }

  /** `untagInames`: these inames are plain loops again (only a tag of `kind`, when given). */
  untag(inames: I | readonly I[], kind?: TagKind): KernelBuilder<I, S> {
    return this.derive((k) => untagInames(k, inames, kind));
  }

  /** `prioritizeLoops`: nest these loops in this order when nothing else decides: `'i,j'` or `['i', 'j']`. */
  prioritize<const O extends string>(order: CheckedInameList<O, I> | readonly I[]): KernelBuilder<I, S> {
    return this.derive((k) => prioritizeLoops(k, order));
  }

  /**
   * `duplicateInames`: some instructions get their own copy of these inames (`i_0`, ... unless named).
   * @param options.within which instructions get the copies (a match expression); default: every instruction
   * @param options.newInames the copies' names, one per iname
   * @param options.newNames the same as `newInames` (Loom's earlier name for it)
   * @param options.suffix automatic names are the iname with this suffix, made unique (`_copy` gives `i_copy`)
   * @param options.tags tags for the copies, by the iname they copy: `{ i: 'l.0' }`
   */
  dup<N extends I, const New extends readonly string[] = never>(
    inames: N | readonly N[],
    options: {
      readonly within?: Within;
      readonly newInames?: New;
      readonly newNames?: New;
      readonly suffix?: string;
      readonly tags?: { readonly [K in N]?: Tag<I> };
    } = {},
  ): KernelBuilder<I | ([New] extends [never] ? Numbered<N> : New[number]), S> {
    checkVerbOptions('dup', options);
    return this.derive((k) =>
      duplicateInames(k, inames as string | readonly string[], options as Parameters<typeof duplicateInames>[2]),
    );
  }

  /**
   * `renameIname`.
   * @param options.existingOk when the new name is already an iname over the same domain, merge the two loops
   * @param options.within only the instructions this match expression picks move to the new name
   */
  rename<N extends I, const New extends string, const W extends Within = undefined>(
    iname: N,
    newName: New,
    options: { readonly existingOk?: boolean; readonly within?: W } = {},
  ): KernelBuilder<AfterWithin<I, N, New, W>, S> {
    checkVerbOptions('rename', options);
    return this.derive((k) => renameIname(k, iname, newName, options));
  }

  /**
   * `renameInames`: several loops become one, `newIname` (their domains must be equal).
   * @param options.existingOk `newIname` may already be an iname: every old one merges into it
   * @param options.within only these instructions (a match expression)
   */
  renameInames<const L extends readonly I[], const New extends string, const W extends Within = undefined>(
    inames: L,
    newIname: New,
    options: { readonly existingOk?: boolean; readonly within?: W } = {},
  ): KernelBuilder<AfterWithin<I, L[number], New, W>, S> {
    return this.derive((k) => renameInames(k, inames, newIname, options));
  }

  /**
   * `renameInamesInBatch`: each entry's loops become one loop named by its key (loopy's
   * rename_inames_in_batch). A record says the new inames to the types; the `Map` that
   * `getKennedyUnweightedFusionCandidates` returns leaves them `string`.
   * ```ts
   * knl.renameInamesInBatch({ ifused: ['j0', 'j1'] });
   * knl.renameInamesInBatch(getKennedyUnweightedFusionCandidates(knl.kernel, ['j0', 'j1']));
   * ```
   */
  renameInamesInBatch<const B extends { readonly [New: string]: readonly I[] }>(
    batches: B,
  ): KernelBuilder<Exclude<I, B[keyof B][number]> | Extract<keyof B, string>, S>;
  renameInamesInBatch(batches: ReadonlyMap<string, readonly string[]>): KernelBuilder<string, S>;
  renameInamesInBatch(
    batches: { readonly [New: string]: readonly I[] } | ReadonlyMap<string, readonly string[]>,
  ): KernelBuilder<string, S> {
    return this.derive((k) => renameInamesInBatch(k, batches));
  }

  /**
   * `joinInames`: several loops become one (`i_and_j` unless named).
   * @param options.tag an implementation tag for the joined iname (`'l.0'`, `'g.0'`, `'unr'`...)
   * @param options.within only these instructions (a match expression)
   */
  join<const L extends readonly I[], const New extends string = Join<L, '_and_'>, const W extends Within = undefined>(
    inames: L,
    newName?: New,
    options: { readonly tag?: Tag<I>; readonly within?: W } = {},
  ): KernelBuilder<AfterWithin<I, L[number], New, W>, S> {
    checkVerbOptions('join', options);
    return this.derive((k) => joinInames(k, inames, newName, options));
  }

  /**
   * `removeUnusedInames`: these loops, which no instruction uses, leave the kernel. (The
   * builder needs the list to know the inames left; an iname still used is an error.)
   */
  removeUnusedInames<const L extends readonly I[]>(inames: L): KernelBuilder<Exclude<I, L[number]>, S> {
    return this.derive((k) => {
      const result = removeUnusedInames(k, inames);
      const kept = inames.filter((n) => result.inames.includes(n));
      if (kept.length)
        throw new LoomError(
          `removeUnusedInames: '${kept.join("', '")}' is used by an instruction (or bounds a loop that is); it stays`,
        );
      return result;
    });
  }

  /** `mapDomain`: inames replaced through a bijective affine map; the type reads the map's old and new inames. */
  mapDomain<const M extends string>(map: M): KernelBuilder<Exclude<I, MapInames<M>['from']> | MapInames<M>['to'], S> {
    return this.derive((k) => mapDomain(k, map));
  }

  /** `affineMapInames`: `mapDomain` with the map given as equations (`'i0 = i + n'`). */
  affineMapInames<const Old extends readonly I[], const New extends readonly string[]>(
    oldInames: Old,
    newInames: New,
    equations: string | readonly string[],
  ): KernelBuilder<Exclude<I, Old[number]> | New[number], S> {
    return this.derive((k) => affineMapInames(k, oldInames, newInames, equations));
  }

  /** `splitReductionInward`: `sum([i, j], e)` becomes `sum([j], sum([i], e))` for `'i'`. */
  splitReductionInward(inames: I | readonly I[], within?: Within): KernelBuilder<I, S> {
    return this.derive((k) => splitReductionInward(k, inames, within));
  }

  /** `splitReductionOutward`: `sum([i, j], e)` becomes `sum([i], sum([j], e))` for `'i'`. */
  splitReductionOutward(inames: I | readonly I[], within?: Within): KernelBuilder<I, S> {
    return this.derive((k) => splitReductionOutward(k, inames, within));
  }

  /**
   * `makeReductionInamesUnique`: a second reduction over `i` gets its own copy `i_0`.
   * @param options.inames only these inames; default all
   * @param options.within only the reductions in these instructions (a match expression)
   */
  makeReductionInamesUnique(
    options: { readonly inames?: readonly I[]; readonly within?: Within } = {},
  ): KernelBuilder<I | Numbered<I>, S> {
    return this.derive((k) => makeReductionInamesUnique(k, options));
  }

  /** `addInamesToInsn`: the instructions `within` picks also run inside these loops. */
  addInamesToInsn(inames: I | readonly I[], within: Within): KernelBuilder<I, S> {
    return this.derive((k) => addInamesToInsn(k, inames, within));
  }

  /** `removeInamesFromInsn`: the instructions `within` picks leave these loops. */
  removeInamesFromInsn(inames: I | readonly I[], within: Within): KernelBuilder<I, S> {
    return this.derive((k) => removeInamesFromInsn(k, inames, within));
  }

  /** `addInamesForUnusedHwAxes`: each instruction runs in the hardware-parallel inames it lacks. */
  addInamesForUnusedHwAxes(within?: Within): KernelBuilder<I, S> {
    return this.derive((k) => addInamesForUnusedHwAxes(k, within));
  }
}
