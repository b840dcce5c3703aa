/**
 * The builder: a kernel and one short verb per core transformation.
 *
 *   kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').split('i', 128, { outer: 'g.0', inner: 'l.0' })
 *
 * Each verb calls the core function of the same meaning (`.split` is `splitIname`) on
 * the kernel so far and returns a new builder: builders are immutable, and a chain
 * gives exactly the kernel the functional calls give. What the builder adds is types:
 * it carries the kernel's inames `I` and signature `S` (see signature/) through the
 * chain, so the compiler rejects an unknown iname or a wrong argument.
 *
 * Errors are raised at the verb that causes them, and point into the templates the
 * kernel was written with (template/errors.ts).
 */
import {
  addDtypes,
  addNosync,
  addPrefetch,
  assume,
  duplicateInames,
  fixParameters,
  generateCode,
  joinInames,
  prioritizeLoops,
  registerFunction,
  renameIname,
  run,
  saveAndReloadTemporaries,
  precompute,
  setOptions,
  setTemporaryAddressSpace,
  splitIname,
  tagArrayAxes,
  tagInames,
  type AddNosyncOptions,
  type AddressSpace,
  type Device,
  type DType,
  type KernelOptions,
  type LoopKernel,
  type NoSyncScope,
  type Target,
  type UserFunction,
  type UserFunctionSpec,
} from '@loom/core';
import type { Fragment } from '../template/fragments.ts';
import { inTemplates, pointIntoTemplates } from '../template/errors.ts';
import type { ArgDecls, DeclaredSignature } from '../signature/declared.ts';
import type { AnySignature, ArgNames, ArrayNames, LooseSignature, Outputs, RunArgs, ValueNames } from '../signature/signature.ts';
import type { CheckedInameList, Join, Numbered, Tag } from './inames.ts';
import type { PrefetchOptions, SplitOptions, TileOptions } from './options.ts';
import { buildKernel, fragmentsOf, type KernelSource } from './source.ts';
import { tileTags } from './tile.ts';
import type { RunParameters, WithDtypes, WithoutArgs } from './typing.ts';

type Step = (knl: LoopKernel) => LoopKernel;

export class KernelBuilder<I extends string, S extends AnySignature> {
  readonly #source: KernelSource;
  readonly #steps: readonly Step[];
  readonly #fragments: readonly Fragment[];
  /** The core `LoopKernel` this builder stands for. */
  readonly kernel: LoopKernel;

  /** Builders come from `kernel()`; this is its machinery. */
  constructor(source: KernelSource, steps: readonly Step[], knl: LoopKernel) {
    this.#source = source;
    this.#steps = steps;
    this.#fragments = fragmentsOf(source);
    this.kernel = knl;
    Object.freeze(this);
  }

  /** The kernel's inames, in order of first appearance. */
  get inames(): readonly I[] {
    return this.kernel.inames as I[];
  }

  // ---- declaring arguments ----

  /**
   * Declares the arguments: `.args({ a: f32('n'), out: f32.out('n') })`. The kernel is
   * rebuilt from its text with these declarations and the transformations so far are
   * replayed; from here on `run` is typed by them.
   */
  args<const D extends ArgDecls>(declarations: D): KernelBuilder<I, DeclaredSignature<D>> {
    const source = { ...this.#source, declared: declarations };
    const replayed = inTemplates(fragmentsOf(source), () => this.#steps.reduce((k, step) => step(k), buildKernel(source)));
    return new KernelBuilder(source, this.#steps, replayed);
  }

  // ---- transformations: one verb per core function ----

  /** `splitIname`: `i` becomes `i_outer` and `i_inner`, with `i = factor*i_outer + i_inner`. */
  split<N extends I, const O extends string = `${N}_outer`, const In extends string = `${N}_inner`>(
    iname: N,
    factor: number,
    options: SplitOptions<I, O, In> = {},
  ): KernelBuilder<Exclude<I, N> | O | In, S> {
    const { outer, inner, outerIname, innerIname, slabs, within } = options;
    return this.#then((k) => splitIname(k, iname, factor, { outerTag: outer, innerTag: inner, outerIname, innerIname, slabs, within }));
  }

  /**
   * Two splits, their tags and the loop order in one call: `.tile('i', 'j', 16, 16, {
   * outer: 'g', inner: 'l' })` gives `i_outer, j_outer` around `i_inner, j_inner`, with
   * `j` (the second iname, contiguous in row-major arrays) on axis 0.
   */
  tile<A extends I, B extends Exclude<I, A>>(a: A, b: B, aFactor: number, bFactor: number, options: TileOptions<I> = {}): KernelBuilder<Exclude<I, A | B> | `${A}_outer` | `${A}_inner` | `${B}_outer` | `${B}_inner`, S> {
    const outer = tileTags(options.outer);
    const inner = tileTags(options.inner);
    return this.#then((k) => {
      let tiled = splitIname(k, a, aFactor, { outerTag: outer.first, innerTag: inner.first });
      tiled = splitIname(tiled, b, bFactor, { outerTag: outer.second, innerTag: inner.second });
      return prioritizeLoops(tiled, [`${a}_outer`, `${b}_outer`, `${a}_inner`, `${b}_inner`]);
    });
  }

  /** `tagInames`: how each iname runs (`'l.0'`, `'g.0'`, `'unr'`, `'ilp'`, `'vec'`, ...). */
  tag(tags: { readonly [K in I]?: Tag<I> }): KernelBuilder<I, S> {
    return this.#then((k) => tagInames(k, tags as Readonly<Record<string, Tag>>));
  }

  /** `prioritizeLoops`: nest these loops in this order when nothing else decides: `'i,j'` or `['i', 'j']`. */
  prioritize<const O extends string>(order: CheckedInameList<O, I> | readonly I[]): KernelBuilder<I, S> {
    return this.#then((k) => prioritizeLoops(k, order));
  }

  /** `addPrefetch`: read the part of `array` the swept inames touch into a temporary first. */
  prefetch<A extends ArrayNames<S>, const Dims extends readonly string[] = never>(
    array: A,
    sweep: readonly I[] = [],
    options: PrefetchOptions<I, Dims> = {},
  ): KernelBuilder<I | ([Dims] extends [never] ? `${A}_dim_${number}` : Dims[number]), S> {
    const { space, ...rest } = options;
    return this.#then((k) => addPrefetch(k, array, sweep, { ...rest, temporaryAddressSpace: space }));
  }

  /** `precompute`: evaluate a substitution rule over the footprint of its uses into a temporary first. */
  precompute<const Dims extends readonly string[] = never>(
    rule: string,
    sweep: readonly I[] = [],
    options: { readonly defaultTag?: Tag<I>; readonly fetchOuterInames?: readonly I[]; readonly temporaryName?: string; readonly space?: AddressSpace; readonly precomputeInames?: Dims } = {},
  ): KernelBuilder<I | ([Dims] extends [never] ? `${string}_dim_${number}` : Dims[number]), S> {
    const { space, ...rest } = options;
    return this.#then((k) => precompute(k, rule, sweep, { ...rest, temporaryAddressSpace: space }));
  }

  /** `duplicateInames`: some instructions get their own copy of these inames (`i_0`, ... unless named). */
  dup<N extends I, const New extends readonly string[] = never>(
    inames: N | readonly N[],
    options: { readonly within?: string | readonly string[]; readonly newNames?: New } = {},
  ): KernelBuilder<I | ([New] extends [never] ? Numbered<N> : New[number]), S> {
    return this.#then((k) => duplicateInames(k, inames as string | readonly string[], options));
  }

  /** `renameIname`. */
  rename<N extends I, const New extends string>(iname: N, newName: New, options: { readonly existingOk?: boolean } = {}): KernelBuilder<Exclude<I, N> | New, S> {
    return this.#then((k) => renameIname(k, iname, newName, options));
  }

  /** `joinInames`: several loops become one (`i_and_j` unless named). */
  join<const L extends readonly I[], const New extends string = Join<L, '_and_'>>(
    inames: L,
    newName?: New,
    options: { readonly tag?: Tag<I> } = {},
  ): KernelBuilder<Exclude<I, L[number]> | New, S> {
    return this.#then((k) => joinInames(k, inames, newName, options));
  }

  /** `fixParameters`: specialize to these values; they are no longer arguments. */
  fix<const V extends { readonly [K in ValueNames<S>]?: number }>(values: V): KernelBuilder<I, WithoutArgs<S, keyof V>> {
    return this.#then((k) => fixParameters(k, values as Readonly<Record<string, number>>));
  }

  /** `assume`: promise conditions on the parameters (`'n >= 1 and n mod 16 = 0'`). */
  assume(conditions: string): KernelBuilder<I, S> {
    return this.#then((k) => assume(k, conditions));
  }

  /** `addDtypes`: fix element types ahead of running; `run` then wants exactly those. */
  dtypes<const T extends { readonly [K in ArgNames<S>]?: DType }>(dtypes: T): KernelBuilder<I, WithDtypes<S, T>> {
    return this.#then((k) => addDtypes(k, dtypes as Readonly<Record<string, DType>>));
  }

  /** `setOptions` (`writeCode`, `buildOptions`, ...). */
  options(options: Partial<KernelOptions>): KernelBuilder<I, S> {
    return this.#then((k) => setOptions(k, options));
  }

  /** `setTemporaryAddressSpace`: where temporaries live (`'private'`, `'local'`, `'global'`). */
  space(temporaries: string | readonly string[], space: AddressSpace): KernelBuilder<I, S> {
    return this.#then((k) => setTemporaryAddressSpace(k, temporaries, space));
  }

  /** `tagArrayAxes`: how an array's axes are laid out (`'c,c'`, `'f,f'`, `'stride:n,c'`, `'sep,c'`, `'vec'`). */
  layout(arrays: string | readonly string[], tags: string | readonly string[]): KernelBuilder<I, S> {
    return this.#then((k) => tagArrayAxes(k, arrays, tags));
  }

  /** `addNosync`: the sinks need no barrier of `scope` after the sources. */
  nosync(scope: NoSyncScope, source: string | readonly string[], sink: string | readonly string[], options: AddNosyncOptions = {}): KernelBuilder<I, S> {
    return this.#then((k) => addNosync(k, scope, source, sink, options));
  }

  /** `registerFunction`: user functions (`defineFunction`) the kernel may call. */
  functions(...fns: readonly (UserFunction | UserFunctionSpec)[]): KernelBuilder<I, S> {
    return this.#then((k) => registerFunction(k, ...fns));
  }

  /** `saveAndReloadTemporaries`: keep temporaries alive across global barriers. */
  saveReload(): KernelBuilder<I, S> {
    return this.#then(saveAndReloadTemporaries);
  }

  /** Any other core transformation; the builder cannot know what it does to inames, so they become loose. */
  apply(transform: (knl: LoopKernel) => LoopKernel): KernelBuilder<string, S> {
    return this.#then(transform);
  }

  // ---- using the kernel ----

  /** The generated device code for `target` (dtypes must be known: `.dtypes()` or `.args()`). */
  code(target: Target): string {
    return inTemplates(this.#fragments, () => generateCode(this.kernel, target).code);
  }

  /**
   * Runs on `device`. The arguments are checked by the compiler against the signature:
   * required inputs present, names known, element types right; outputs come back typed.
   */
  async run<const G extends RunArgs<S>>(device: Device, ...[args]: RunParameters<S, G>): Promise<Outputs<S, G>> {
    try {
      return (await run(this.kernel, device, (args ?? {}) as RunArgs<LooseSignature>)) as Outputs<S, G>;
    } catch (error) {
      throw pointIntoTemplates(error, this.#fragments);
    }
  }

  /** loopy's kernel view: arguments, domains, inames, temporaries, instructions. */
  toString(): string {
    return this.kernel.toString();
  }

  #then<I2 extends string = I, S2 extends AnySignature = S>(step: Step): KernelBuilder<I2, S2> {
    const next = inTemplates(this.#fragments, () => step(this.kernel));
    return new KernelBuilder(this.#source, [...this.#steps, step], next);
  }
}
