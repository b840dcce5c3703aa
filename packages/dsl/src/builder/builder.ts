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
 * The verbs come in layers, one file per group: core.ts (arguments, code, run),
 * iname-verbs.ts, rule-verbs.ts, and here the verbs on parameters, data and instructions.
 * Errors are raised at the verb that causes them, and point into the templates the
 * kernel was written with (template/errors.ts).
 */
import {
  addDependency, addDtypes, addNosync, assume, fixParameters, realizeReduction, reductionArgToSubstRule, registerFunction, removeInstructions, replaceInstructionIds,
  saveAndReloadTemporaries, setInstructionPriority, setOptions, setTemporaryAddressSpace, tagArrayAxes, tagInstructions,
  type AddNosyncOptions, type AddressSpace, type DType, type KernelOptions, type NoSyncScope, type UserFunction, type UserFunctionSpec, type Within,
} from '@loom/core';
import { attach, type ParamSpec, type Transformation } from '@loom/computation';
import type { AnySignature, ArgNames, ArrayNames, ValueNames } from '../signature/signature.ts';
import { RuleVerbs } from './rule-verbs.ts';
import type { WithAttached, WithDtypes, WithoutArgs } from './typing.ts';

export class KernelBuilder<I extends string, S extends AnySignature> extends RuleVerbs<I, S> {
  // ---- parameters and data ----

  /** `fixParameters`: specialize to these values; they are no longer arguments. */
  fix<const V extends { readonly [K in ValueNames<S>]?: number }>(values: V): KernelBuilder<I, WithoutArgs<S, keyof V>> {
    return this.derive((k) => fixParameters(k, values as Readonly<Record<string, number>>));
  }

  /** `assume`: promise conditions on the parameters (`'n >= 1 and n mod 16 = 0'`). */
  assume(conditions: string): KernelBuilder<I, S> {
    return this.derive((k) => assume(k, conditions));
  }

  /** `addDtypes`: fix element types ahead of running; `run` then wants exactly those. */
  dtypes<const T extends { readonly [K in ArgNames<S>]?: DType }>(dtypes: T): KernelBuilder<I, WithDtypes<S, T>> {
    return this.derive((k) => addDtypes(k, dtypes as Readonly<Record<string, DType>>));
  }

  /** `setOptions` (`writeCode`, `buildOptions`, ...). */
  options(options: Partial<KernelOptions>): KernelBuilder<I, S> {
    return this.derive((k) => setOptions(k, options));
  }

  /** `setTemporaryAddressSpace`: where temporaries live (`'private'`, `'local'`, `'global'`). */
  space(temporaries: string | readonly string[], space: AddressSpace): KernelBuilder<I, S> {
    return this.derive((k) => setTemporaryAddressSpace(k, temporaries, space));
  }

  /** `tagArrayAxes`: how an array's axes are laid out (`'c,c'`, `'f,f'`, `'stride:n,c'`, `'sep,c'`, `'vec'`). */
  layout(arrays: string | readonly string[], tags: string | readonly string[]): KernelBuilder<I, S> {
    return this.derive((k) => tagArrayAxes(k, arrays, tags));
  }

  /** `reductionArgToSubstRule`: a reduction's value becomes a substitution rule of its inames (`red_i_arg(i)`), for `.precompute`. */
  reductionRule(inames: readonly I[] | I, options: { readonly ruleName?: string; readonly within?: string | readonly string[] } = {}): KernelBuilder<I, S> {
    return this.derive((k) => reductionArgToSubstRule(k, typeof inames === 'string' ? [inames] : inames, options));
  }

  /** `realizeReduction`: the reductions (of these instructions) become instructions now; dtypes must be known. */
  realizeReduction(options: { readonly insnIdFilter?: readonly string[] } = {}): KernelBuilder<I | `red_${string}`, S> {
    return this.derive((k) => realizeReduction(k, options));
  }

  /** `registerFunction`: user functions (`defineFunction`) the kernel may call. */
  functions(...fns: readonly (UserFunction | UserFunctionSpec)[]): KernelBuilder<I, S> {
    return this.derive((k) => registerFunction(k, ...fns));
  }

  /** `saveAndReloadTemporaries`: keep temporaries alive across global barriers. */
  saveReload(): KernelBuilder<I, S> {
    return this.derive(saveAndReloadTemporaries);
  }

  /**
   * `attach` (@loom/computation): the transformation runs in place of every access of `arg`,
   * through its parameter `connector`; its other parameters become arguments, named by
   * `mapping`, and `run` is typed by them.
   */
  attach<A extends ArrayNames<S>, const TP extends readonly ParamSpec[], TC extends string, C extends TC, const M extends { readonly [K in Exclude<TP[number]['name'], C>]: string }>(
    arg: A,
    tr: Transformation<TP, TC>,
    connector: C,
    mapping: M,
  ): KernelBuilder<I, WithAttached<S, A, TP, C, M>> {
    return this.derive((k) => attach(k, arg, tr as unknown as Transformation, connector, mapping as Readonly<Record<string, string>>));
  }

  // ---- instructions (picked by match expressions: `'id:a'`, `'writes:out or tag:x'`) ----

  /** `addNosync`: the sinks need no barrier of `scope` after the sources. */
  nosync(scope: NoSyncScope, source: Within, sink: Within, options: AddNosyncOptions = {}): KernelBuilder<I, S> {
    return this.derive((k) => addNosync(k, scope, source, sink, options));
  }

  /** `setInstructionPriority`: among instructions free to go first, higher priorities do. */
  priority(within: Within, priority: number): KernelBuilder<I, S> {
    return this.derive((k) => setInstructionPriority(k, within, priority));
  }

  /** `addDependency`: the instructions `within` picks wait for those `dependsOn` picks. */
  addDependency(within: Within, dependsOn: Within): KernelBuilder<I, S> {
    return this.derive((k) => addDependency(k, within, dependsOn));
  }

  /** `removeInstructions`: those that waited for them wait for what they waited for. */
  removeInstructions(within: Within): KernelBuilder<I, S> {
    return this.derive((k) => removeInstructions(k, within));
  }

  /** `replaceInstructionIds`: dependencies on an id become dependencies on others. */
  replaceInstructionIds(replacements: Readonly<Record<string, readonly string[]>>): KernelBuilder<I, S> {
    return this.derive((k) => replaceInstructionIds(k, replacements));
  }

  /** `tagInstructions`: a tag that `tag:` matches can pick later. */
  tagInstructions(tag: string, within?: Within): KernelBuilder<I, S> {
    return this.derive((k) => tagInstructions(k, tag, within));
  }
}
