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
  addAndInferDtypes,
  addBarrier,
  addDependency,
  addDtypes,
  addNosync,
  addPadding,
  addPaddingToAvoidBankConflicts,
  assume,
  changeArgToImage,
  concatenateArrays,
  diffKernel,
  fixParameters,
  inferUnknownTypes,
  LoomError,
  privatizeTemporariesWithInames,
  realizeReduction,
  reductionArgToSubstRule,
  registerFunction,
  removeInstructions,
  removeUnusedArguments,
  mapInstructions,
  uniquifyInstructionIds,
  removePredicatesFromInsn,
  foldConstants,
  simplifyIndices,
  collectCommonFactorsOnIncrement,
  renameArgument,
  replaceInstructionIds,
  saveAndReloadTemporaries,
  setArgumentOrder,
  setArrayAxisNames,
  setInstructionPriority,
  setOptions,
  setTemporaryAddressSpace,
  splitArrayAxis,
  swizzleArray,
  tagArrayAxes,
  tagInstructions,
  toBatched,
  unprivatizeTemporariesWithInames,
  type ToBatchedOptions,
  type DiffKernelOptions,
  type Instruction,
  type AddBarrierOptions,
  type AddNosyncOptions,
  type AddressSpace,
  type DType,
  type KernelOptions,
  type NoSyncScope,
  type UserFunction,
  type UserFunctionSpec,
  type Within,
} from '@loom/core';
import type { AttachableTransformation, TransformationParam } from './attachable.ts';
import type { AnySignature, ArgNames, ArrayNames, ValueNames } from '../signature/signature.ts';
import { RuleVerbs } from './rule-verbs.ts';
import type { Batched, RenamedArg, WithAttached, WithDerivatives, WithDtypes, WithoutArgs } from './typing.ts';
import { checkVerbOptions } from './verb-options.ts';

/** A kernel being written with the DSL: each method is a transformation returning a new builder, typed by the kernel's inames and signature. */
export class KernelBuilder<I extends string, S extends AnySignature, C = never> extends RuleVerbs<I, S, C> {
  // ---- parameters and data ----

  /** `fixParameters`: specialize to these values; they are no longer arguments. */
  fix<const V extends { readonly [K in ValueNames<S>]?: number }>(
    values: V,
  ): KernelBuilder<I, WithoutArgs<S, keyof V>> {
    return this.derive((k) => fixParameters(k, values as Readonly<Record<string, number>>));
  }

  /** `assume`: promise conditions on the parameters (`'n >= 1 and n mod 16 = 0'`, or `'[n] -> { : n >= 1 }'`). */
  assume(conditions: string): KernelBuilder<I, S> {
    return this.derive((k) => assume(k, conditions));
  }

  /** `addDtypes`: fix element types ahead of running; `run` then wants exactly those. */
  dtypes<const T extends { readonly [K in ArgNames<S>]?: DType }>(dtypes: T): KernelBuilder<I, WithDtypes<S, T>, C> {
    return this.derive<I, WithDtypes<S, T>, C>((k) => addDtypes(k, dtypes as Readonly<Record<string, DType>>));
  }

  /**
   * `addAndInferDtypes`: `dtypes`, then the dtypes of temporaries and outputs inferred from what is written to them.
   * @param options.expectCompletion a dtype that cannot be inferred yet is an error (else the rest is inferred from the data at run time)
   */
  addAndInferDtypes<const T extends { readonly [K in ArgNames<S>]?: DType }>(
    dtypes: T,
    options: { readonly expectCompletion?: boolean } = {},
  ): KernelBuilder<I, WithDtypes<S, T>> {
    return this.derive((k) => addAndInferDtypes(k, dtypes as Readonly<Record<string, DType>>, options));
  }

  /**
   * `inferUnknownTypes`: the dtypes nobody declared, inferred from what is written (outputs stay typed by the data passed).
   * @param options.expectCompletion a dtype that cannot be inferred yet is an error (else the rest is inferred from the data at run time)
   */
  inferUnknownTypes(options: { readonly expectCompletion?: boolean } = {}): KernelBuilder<I, S> {
    return this.derive((k) => inferUnknownTypes(k, options));
  }

  /** `renameArgument`: the argument (an array, or a value the domains use) is called `newName` from now on. */
  renameArgument<const Old extends ArgNames<S>, const New extends string>(
    oldName: Old,
    newName: New,
  ): KernelBuilder<I, RenamedArg<S, Old, New>> {
    return this.derive((k) => renameArgument(k, oldName, newName));
  }

  /** `setArgumentOrder`: the arguments in this order (every one, each once). */
  setArgumentOrder(names: readonly ArgNames<S>[]): KernelBuilder<I, S> {
    return this.derive((k) => setArgumentOrder(k, names));
  }

  /** `removeUnusedArguments`: these arguments, which nothing uses, go (one still used is an error). */
  removeUnusedArguments<const L extends readonly ArgNames<S>[]>(names: L): KernelBuilder<I, WithoutArgs<S, L[number]>> {
    return this.derive((k) => {
      const result = removeUnusedArguments(k);
      const kept = names.filter((n) => result.arg(n));
      if (kept.length)
        throw new LoomError(`removeUnusedArguments: '${kept.join("', '")}' is used by the kernel; it stays`);
      return k.with({ args: k.args.filter((a) => !(names as readonly string[]).includes(a.name)) });
    });
  }

  /**
   * `changeArgToImage`: the read-only array argument becomes an image (loopy's `ImageArg`):
   * OpenCL reads it as an `image2d_t`/`image3d_t`, WebGPU as a texture, the other devices as
   * the array it was; `run` takes the same data.
   * ```ts
   * kernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'out[i, j] = 2*a[i, j]')
   *   .args({ a: f32('n', 'm'), out: f32.out('n', 'm') })
   *   .changeArgToImage('a');
   * ```
   */
  changeArgToImage(name: ArgNames<S>): KernelBuilder<I, S> {
    return this.derive((k) => changeArgToImage(k, name));
  }

  /** `setOptions` (`writeCode`, `buildOptions`, ...). */
  options(options: Partial<KernelOptions>): KernelBuilder<I, S> {
    checkVerbOptions('options', options);
    return this.derive((k) => setOptions(k, options));
  }

  /** `setTemporaryAddressSpace`: where temporaries live (`'private'`, `'local'`, `'global'`). */
  space(temporaries: string | readonly string[], space: AddressSpace): KernelBuilder<I, S> {
    return this.derive((k) => setTemporaryAddressSpace(k, temporaries, space));
  }

  /**
   * `swizzleArray`: a local array stored swizzled over 32, 64 or 128 bytes, as Hopper's tensor memory
   * accelerator writes tiles and its warpgroup instructions read them without bank conflicts.
   * ```ts
   * kernel`...`.prefetch('a', ['i_tile', 'k_tile'], { space: 'local' }).swizzle('a_fetch', 128).bulkCopies('a_fetch')
   * ```
   */
  swizzle(array: string, span: 32 | 64 | 128): KernelBuilder<I, S> {
    return this.derive((k) => swizzleArray(k, array, span));
  }

  /** `tagArrayAxes`: how an array's axes are laid out (`'c,c'`, `'f,f'`, `'stride:n,c'`, `'sep,c'`, `'vec'`). */
  layout(arrays: string | readonly string[], tags: string | readonly string[]): KernelBuilder<I, S> {
    return this.derive((k) => tagArrayAxes(k, arrays, tags));
  }

  /**
   * `reductionArgToSubstRule`: a reduction's value becomes a substitution rule of its inames (`red_i_arg(i)`), for `.precompute`.
   * @param options.ruleName the rule's name (then there must be one such reduction)
   * @param options.within only the reductions in these instructions (a match expression)
   */
  reductionRule(
    inames: readonly I[] | I,
    options: { readonly ruleName?: string; readonly within?: string | readonly string[] } = {},
  ): KernelBuilder<I, S> {
    checkVerbOptions('reductionRule', options);
    return this.derive((k) => reductionArgToSubstRule(k, typeof inames === 'string' ? [inames] : inames, options));
  }

  /**
   * `realizeReduction`: the reductions (of these instructions) become instructions now; dtypes
   * must be known. `forceScan` realizes triangular reductions (`out[i] = sum(j, a[j])` over
   * `j <= i`) as scans, O(n), swept by `forceOuterInameForScan` where named; `automagicScansOk`
   * does so for those that are scans and leaves the others reductions.
   * @param options.insnIdFilter only the reductions of these instructions; default all
   * @param options.forceScan realize triangular reductions as scans
   * @param options.automagicScansOk realize the reductions that are scans as scans, the others as reductions
   * @param options.forceOuterInameForScan the iname a scan is swept by
   */
  realizeReduction(
    options: {
      readonly insnIdFilter?: readonly string[];
      readonly forceScan?: boolean;
      readonly automagicScansOk?: boolean;
      readonly forceOuterInameForScan?: I;
    } = {},
  ): KernelBuilder<I | `red_${string}` | `${I}_scan${string}` | `${I}_s${number}` | `${I}_base${string}`, S> {
    return this.derive((k) => realizeReduction(k, options));
  }

  /** `registerFunction`: user functions (`defineFunction`) the kernel may call. */
  functions(...fns: readonly (UserFunction | UserFunctionSpec)[]): KernelBuilder<I, S> {
    return this.derive((k) => registerFunction(k, ...fns));
  }

  /** `privatizeTemporariesWithInames`: each iteration of these inames gets its own entry of the temporaries written in them. */
  privatize(inames: I | readonly I[], onlyVarNames?: readonly string[]): KernelBuilder<I, S> {
    return this.derive((k) => privatizeTemporariesWithInames(k, inames, onlyVarNames));
  }

  /** `unprivatizeTemporariesWithInames`: the entries privatize added go again. */
  unprivatize(inames: I | readonly I[], onlyVarNames?: readonly string[]): KernelBuilder<I, S> {
    return this.derive((k) => unprivatizeTemporariesWithInames(k, inames, onlyVarNames));
  }

  /** `concatenateArrays` of temporaries: one array `newName`, each access offset. (Arguments: use the core function; the signature changes.) */
  concatenateTemporaries(names: readonly string[], newName?: string, axis = 0): KernelBuilder<I, S> {
    return this.derive((k) => {
      const args = names.filter((n) => k.arg(n));
      if (args.length)
        throw new LoomError(
          `concatenateTemporaries: '${args.join("', '")}' is an argument; concatenating arguments changes the signature (use concatenateArrays and apply)`,
        );
      return concatenateArrays(k, names, newName, axis);
    });
  }

  /** `setArrayAxisNames`: names for the axes of arrays, which the inames made for them take (`a_dim_row`). */
  setArrayAxisNames(arrays: string | readonly string[], dimNames: string | readonly string[]): KernelBuilder<I, S> {
    return this.derive((k) => setArrayAxisNames(k, arrays, dimNames));
  }

  /** `splitArrayAxis`: an axis of these arrays becomes two (`a[i]` becomes `a[i // count, i % count]`). */
  splitArrayAxis(
    names: string | readonly string[],
    axis: number,
    count: number,
    order: 'C' | 'F' = 'C',
  ): KernelBuilder<I, S> {
    return this.derive((k) => splitArrayAxis(k, names, axis, count, order));
  }

  /** `addPadding`: the fixed stride of an argument's axis grows to a multiple of `alignBytes`. */
  addPadding(name: ArgNames<S>, axis: number, alignBytes: number): KernelBuilder<I, S> {
    return this.derive((k) => addPadding(k, name, axis, alignBytes));
  }

  /**
   * `addPaddingToAvoidBankConflicts`: local tiles whose columns would fall in few memory banks get their rows lengthened.
   * @param options.banks memory banks (default 32)
   * @param options.bankWidthBytes bytes per bank word (default 4)
   */
  addPaddingToAvoidBankConflicts(
    options: { readonly banks?: number; readonly bankWidthBytes?: number } = {},
  ): KernelBuilder<I, S> {
    return this.derive((k) => addPaddingToAvoidBankConflicts(k, options));
  }

  /**
   * `diffKernel`: the derivatives of the outputs by the argument `by` (loopy's diff_kernel):
   * `z_dx[i, k]` is dz[i]/dx[k], over new loops `diff_i0, ...`; the kernel then computes those
   * (and the outputs `copyOutputs` names), the outputs' own writers left out.
   * ```ts
   * kernel('{ [i]: 0<=i<n }', 'z[i] = sin(x[i])').diffKernel('z', 'x');   // returns z_dx, n x n
   * ```
   * @param options.diffInamePrefix the new loops' names, followed by the axis of `by` (default `diff_i`)
   * @param options.copyOutputs outputs whose values the kernel computes too
   */
  diffKernel<const O extends ArgNames<S>, const B extends ArgNames<S>, const P extends string = 'diff_i'>(
    outputs: O | readonly O[],
    by: B,
    options: Omit<DiffKernelOptions, 'diffInamePrefix'> & { readonly diffInamePrefix?: P } = {},
  ): KernelBuilder<I | `${P}${number}` | `${P}${number}_${number}`, WithDerivatives<S, O, B>> {
    return this.derive((k) => {
      const [result, names] = diffKernel(k, outputs, by, options);
      // the signature names each derivative OUT_dBY: another name (that one was taken) would not match it
      for (const [output, name] of names)
        if (name !== `${output}_d${by}`)
          throw new LoomError(
            `diffKernel: the derivative of '${output}' is named '${name}' ('${output}_d${by}' is taken); call diffKernel from @loom/core, which returns the names`,
          );
      return result;
    });
  }

  /** `toBatched`: a batch of the computation, over a new iname `ibatch`; the varying arguments gain a leading axis. */
  toBatched<const N extends string, const V extends readonly ArgNames<S>[]>(
    nbatches: N,
    batchVaryingArgs: V,
    options: ToBatchedOptions = {},
  ): KernelBuilder<I | 'ibatch', Batched<S, N, V[number]>> {
    return this.derive((k) => toBatched(k, nbatches, batchVaryingArgs, options));
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
  attach<
    A extends ArrayNames<S>,
    const TP extends readonly TransformationParam[],
    TC extends string,
    C extends TC,
    const M extends { readonly [K in Exclude<TP[number]['name'], C>]: string },
  >(
    arg: A,
    tr: AttachableTransformation<TP, TC>,
    connector: C,
    mapping: M,
  ): KernelBuilder<I, WithAttached<S, A, TP, C, M>> {
    return this.derive((k) => tr.attachTo(k, arg, connector, mapping as Readonly<Record<string, string>>));
  }

  // ---- instructions (picked by match expressions: `'id:a'`, `'writes:out or tag:x'`) ----

  /** `addNosync`: the sinks need no barrier of `scope` after the sources. */
  nosync(scope: NoSyncScope, source: Within, sink: Within, options: AddNosyncOptions = {}): KernelBuilder<I, S> {
    checkVerbOptions('nosync', options);
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

  /** `mapInstructions`: each instruction `within` picks replaced by what `f` returns (`.mapInstructions('tag:init', (i) => ({ ...i, priority: 2 }))`). */
  mapInstructions(within: Within, f: (insn: Instruction) => Instruction): KernelBuilder<I, S> {
    return this.derive((k) => mapInstructions(k, within, f));
  }

  /** `uniquifyInstructionIds`: instructions sharing an id get unique ones (`ID_0`, ...); `.uniquifyInstructionIds()`. */
  uniquifyInstructionIds(): KernelBuilder<I, S> {
    return this.derive((k) => uniquifyInstructionIds(k));
  }

  /** `removePredicatesFromInsn`: the instructions picked run whether or not these conditions hold (`.removePredicatesFromInsn(['cond'], 'id:a')`). */
  removePredicatesFromInsn(predicates: string | readonly string[], within: Within): KernelBuilder<I, S> {
    return this.derive((k) => removePredicatesFromInsn(k, predicates, within));
  }

  /** `foldConstants`: integer constant sub-expressions computed (`2*3` → `6`); `.foldConstants()`. */
  foldConstants(): KernelBuilder<I, S> {
    return this.derive((k) => foldConstants(k));
  }

  /** `collectCommonFactorsOnIncrement`: factors common to every increment of an accumulator move to its reads (`.collectCommonFactorsOnIncrement('out_tmp')`). */
  collectCommonFactorsOnIncrement(name: string): KernelBuilder<I, S> {
    return this.derive((k) => collectCommonFactorsOnIncrement(k, name));
  }

  /** `simplifyIndices`: subscripts simplified over their loops' bounds (`X[10*(j//10) + j]` → `X[j]` for `j < 10`); `.simplifyIndices()`. */
  simplifyIndices(): KernelBuilder<I, S> {
    return this.derive((k) => simplifyIndices(k));
  }

  /** `replaceInstructionIds`: dependencies on an id become dependencies on others. */
  replaceInstructionIds(replacements: Readonly<Record<string, readonly string[]>>): KernelBuilder<I, S> {
    return this.derive((k) => replaceInstructionIds(k, replacements));
  }

  /** `addBarrier`: a barrier after the instructions `before` picks and before those `after` picks. */
  addBarrier(before: Within, after: Within, options: AddBarrierOptions = {}): KernelBuilder<I, S> {
    return this.derive((k) => addBarrier(k, before, after, options));
  }

  /** `tagInstructions`: a tag that `tag:` matches can pick later. */
  tagInstructions(tag: string, within?: Within): KernelBuilder<I, S> {
    return this.derive((k) => tagInstructions(k, tag, within));
  }
}
