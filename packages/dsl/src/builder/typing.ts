/**
 * How the builder's types are worked out: where a new kernel's types come from (declared
 * arguments, literal text, the typegen registry, in that order), and how verbs change a
 * signature.
 */
import type { InamesOfDomains } from '../parse/domain.ts';
import type { CallFacts } from '../parse/calls.ts';
import type { ArgDecls, DeclaredSignature } from '../signature/declared.ts';
import type { InferredSignature } from '../signature/infer.ts';
import type { DType } from '@loom/core';
import type { TransformationParam as ParamSpec } from './attachable.ts';
import type {
  AnySignature,
  ArgInfo,
  KernelRegistry,
  LooseSignature,
  OnlyKnown,
  RunArgs,
  Signature,
  Simplify,
} from '../signature/signature.ts';
import type { KernelBuilder } from './builder.ts';

type Registered<Name extends string> = Name extends keyof KernelRegistry
  ? KernelRegistry[Name] extends { readonly inames: infer I extends string; readonly args: infer S extends Signature }
    ? { inames: I; args: S }
    : never
  : never;

/** The inames: from literal domains, else from the registry, else any. */
type InamesFor<D, Name extends string> =
  string extends InamesOfDomains<D>
    ? [Registered<Name>] extends [never]
      ? string
      : Registered<Name>['inames']
    : InamesOfDomains<D>;

/** The signature: declared, else read from literal text, else from the registry, else loose. */
type SignatureFor<D, X, Name extends string, A extends ArgDecls> = [A] extends [never]
  ? InferredSignature<D, X> extends LooseSignature
    ? [Registered<Name>] extends [never]
      ? LooseSignature
      : Registered<Name>['args']
    : InferredSignature<D, X>
  : DeclaredSignature<A>;

/** The builder `kernel()` returns, typed by the best source there is; literal instructions also tell the calls they make. */
export type BuilderFor<D, X, Name extends string, A extends ArgDecls = never> = KernelBuilder<
  InamesFor<D, Name>,
  SignatureFor<D, X, Name, A>,
  CallFacts<X>
>;

/** `.dtypes({ a: 'float32' })`: those arguments now have that dtype. */
export type WithDtypes<S extends AnySignature, T> = S extends Signature
  ? Simplify<{
      readonly [K in keyof S]: K extends keyof T ? Simplify<Omit<S[K], 'dtype'> & { readonly dtype: T[K] }> : S[K];
    }>
  : S;

/** `.fix({ n: 8 })`: `n` is no longer an argument. */
export type WithoutArgs<S extends AnySignature, K> = S extends Signature ? Simplify<Omit<S, K & string>> : S;

/** `.renameArgument('a', 'b')`: the argument `a` is now called `b`. */
export type RenamedArg<S extends AnySignature, Old extends string, New extends string> = S extends Signature
  ? Simplify<Omit<S, Old> & { readonly [K in New]: S[Old] }>
  : S;

/** `.diffKernel('z', 'x')`: each output `z` gains its derivative `z_dx`, an array the kernel returns (typed by the data). */
export type WithDerivatives<S extends AnySignature, O extends string, B extends string> = S extends Signature
  ? Simplify<
      { readonly [K in keyof S]: S[K] } & {
        readonly [K in `${O}_d${B}`]: {
          readonly kind: 'array';
          readonly dtype: 'auto';
          readonly required: false;
          readonly output: true;
        };
      }
    >
  : S;

/** `.toBatched('nb', ['x'])`: `nb` is a new value argument (unless it was one); `x` keeps its kind and dtype (a value becomes an array). */
export type Batched<S extends AnySignature, N extends string, V extends string> = S extends Signature
  ? Simplify<
      {
        readonly [K in keyof S]: K extends V
          ? S[K]['kind'] extends 'value'
            ? Simplify<Omit<S[K], 'kind'> & { readonly kind: 'array' }>
            : S[K]
          : S[K];
      } & (N extends keyof S
        ? {}
        : {
            readonly [K in N]: {
              readonly kind: 'value';
              readonly dtype: 'int32';
              readonly required: true;
              readonly output: false;
            };
          })
    >
  : S;

/** When nothing is required, `run`'s arguments may be left out. */
export type RunParameters<S extends AnySignature, G> =
  {} extends RunArgs<S> ? [args?: OnlyKnown<G, S>] : [args: OnlyKnown<G, S>];

/**
 * `.attach(arg, tr, connector, mapping)`: the argument gives way to the transformation's other
 * parameters, under their new names: arrays it reads become required inputs, arrays it writes
 * outputs, scalars required values; what the transformation leaves untyped has the argument's
 * dtype. An argument the kernel also accesses the other way stays, for that way alone.
 */
export type WithAttached<
  S extends AnySignature,
  A extends string,
  TP extends readonly ParamSpec[],
  C extends string,
  M,
> = S extends Signature
  ? Simplify<
      {
        readonly [K in keyof S as K extends A
          ? S[K]['required'] extends true
            ? S[K]['output'] extends true
              ? K
              : never
            : never
          : K]: K extends A ? Kept<S[K], Extract<TP[number], { readonly name: C }>['role']> : S[K];
      } & {
        readonly [P in Exclude<TP[number], { readonly name: C }> as P['name'] extends keyof M
          ? M[P['name']] extends keyof S
            ? M[P['name']] extends A
              ? M[P['name']] & string
              : never
            : M[P['name']] & string
          : never]: AttachedArg<P, S[A]>;
      }
    >
  : S;

/** An 'inout' argument after a transformation takes one of its ways. */
type Kept<I extends ArgInfo, ConnectorRole> = Simplify<
  Omit<I, 'required' | 'output'> &
    (ConnectorRole extends 'o'
      ? { readonly required: false; readonly output: true }
      : { readonly required: true; readonly output: false })
>;

type AttachedArg<P extends ParamSpec, At extends ArgInfo> = {
  readonly kind: P['role'] extends 's' ? 'value' : 'array';
  readonly dtype: P['dtype'] extends DType ? P['dtype'] : At['dtype'];
  readonly required: P['role'] extends 'o' ? false : true;
  readonly output: P['role'] extends 'o' ? true : false;
};
