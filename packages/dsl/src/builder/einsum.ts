/**
 * `einsum(spec, argNames)`: loopy's `make_einsum` as a builder, typed by the spec the compiler
 * reads. Each subscript letter is an iname over `0 <= i < Ni`, the operands are the arrays
 * named, and the kernel writes `out`:
 *
 *   einsum('ik,kj->ij', ['a', 'b'])   // out[i, j] = sum(k, a[i, k]*b[k, j]); inames 'i' | 'j' | 'k'
 *
 * The builder is an ordinary one, made from the text core's `einsumSource` writes, so `.args()`
 * declares its arguments and every verb applies.
 */
import { einsumSource, type MakeKernelOptions } from '@loom/core';
import type { LooseSignature, Signature, Simplify } from '../signature/signature.ts';
import type { KernelBuilder } from './builder.ts';
import { kernel } from './kernel.ts';

type Blank = ' ' | '\t' | '\n' | '\r';
/** The letters of a subscript, as a union. */
type LettersOf<S extends string> = S extends `${infer C}${infer R}`
  ? C extends Blank
    ? LettersOf<R>
    : C | LettersOf<R>
  : never;
type Operands<S extends string, Found extends string[] = []> = S extends `${infer Head},${infer Rest}`
  ? Operands<Rest, [...Found, Head]>
  : [...Found, S];
type Parsed<Spec extends string> = Spec extends `${infer In}->${infer Out}`
  ? { readonly inputs: Operands<In>; readonly output: Out }
  : never;

/** How many operands the spec has (`number` when the compiler cannot read it). */
export type EinsumOperandCount<Spec extends string> = string extends Spec
  ? number
  : [Parsed<Spec>] extends [never]
    ? number
    : Parsed<Spec>['inputs']['length'];

/** The inames of an einsum: its subscript letters. */
export type EinsumInames<Spec extends string> = string extends Spec
  ? string
  : [Parsed<Spec>] extends [never]
    ? string
    : LettersOf<Parsed<Spec>['inputs'][number]> | LettersOf<Parsed<Spec>['output']>;

type OperandArg<Subscript extends string> = {
  readonly kind: [LettersOf<Subscript>] extends [never] ? 'value' : 'array';
  readonly dtype: 'auto';
  readonly required: true;
  readonly output: false;
};

type AsSignature<T> = Simplify<T> extends infer S extends Signature ? S : LooseSignature;

/** The signature of an einsum: its operands (an operand without subscripts a value), `out`, and the lengths `N<letter>`. */
export type EinsumSignature<Spec extends string, Names extends readonly string[]> = string extends Spec
  ? LooseSignature
  : [Parsed<Spec>] extends [never]
    ? LooseSignature
    : AsSignature<
        {
          readonly [K in keyof Names & `${number}` as Names[K] & string]: OperandArg<
            Parsed<Spec>['inputs'][K & keyof Parsed<Spec>['inputs']] & string
          >;
        } & {
          readonly out: {
            readonly kind: 'array';
            readonly dtype: 'auto';
            readonly required: false;
            readonly output: true;
          };
        } & {
          readonly [L in EinsumInames<Spec> as `N${L}`]: {
            readonly kind: 'value';
            readonly dtype: 'int32';
            // as for literal kernels: the arrays' sizes usually settle them, and run says when they do not
            readonly required: false;
            readonly output: false;
          };
        }
      >;

/**
 * A kernel from numpy's einsum notation (loopy's `make_einsum`, core's `makeEinsum`), one name
 * per operand; the compiler reads the spec, so the inames and `run`'s arguments are typed.
 * ```ts
 * const matvec = einsum('ij,j->i', ['a', 'x']).args({ a: f32('Ni', 'Nj'), x: f32('Nj'), out: f32.out('Ni') });
 * ```
 */
export function einsum<const Spec extends string, const Names extends readonly string[]>(
  spec: Spec,
  argNames: Names & { readonly length: EinsumOperandCount<Spec> },
  options: MakeKernelOptions = {},
): KernelBuilder<EinsumInames<Spec>, EinsumSignature<Spec, Names>> {
  const source = einsumSource(spec, argNames);
  return kernel(source.domain, source.instruction, {
    ...options,
    name: options.name ?? source.name,
  }) as unknown as KernelBuilder<EinsumInames<Spec>, EinsumSignature<Spec, Names>>;
}
