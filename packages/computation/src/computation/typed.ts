/**
 * The compiler's view of computations: the signature as a tuple of parameters (name, dtype,
 * role), carried through `attach` by the same rule the tree follows at run time (tree.ts),
 * so that the compiled function's arguments are checked: a Float64Array where the
 * signature says float32, a missing input, an unknown name are compile-time errors.
 */
import type { DeviceArray, DType } from '@loom/core';
import type { ParamSpec } from '../transformation/params.ts';
import type { ComputationParam, ComputationRole } from './params.ts';
import type { KernelArgument } from './plan.ts';

/** The TypedArray that holds each dtype on the host. */
export interface HostArrays {
  bool: Uint8Array;
  int8: Int8Array;
  int16: Int16Array;
  int32: Int32Array;
  int64: BigInt64Array;
  uint8: Uint8Array;
  uint16: Uint16Array;
  uint32: Uint32Array;
  uint64: BigUint64Array;
  float16: Uint16Array;
  float32: Float32Array;
  float64: Float64Array;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

export type HostArrayOf<D extends DType> = HostArrays[D];
/** An array argument: host data (flat or with its shape) or a DeviceArray. */
export type ArrayArgument<D extends DType> = HostArrayOf<D> | { readonly data: HostArrayOf<D>; readonly shape: readonly number[] } | DeviceArray;

type Leaf = ComputationParam;

/** buildPlan's arguments: one KernelArgument per parameter. */
export type KernelArgumentsOf<P extends readonly Leaf[]> = { [K in keyof P]: P[K] extends Leaf ? KernelArgument<P[K]> : never };

/** What one parameter takes: a number for a scalar, an array for an array (optional for an output). */
export type ArgumentFor<P extends Leaf> = P['role'] extends 's'
  ? number | bigint
  : P['role'] extends 'o'
    ? ArrayArgument<P['dtype']> | undefined
    : ArrayArgument<P['dtype']>;

export type PositionalArguments<L extends readonly Leaf[]> = { [K in keyof L]: L[K] extends Leaf ? ArgumentFor<L[K]> : never };

type Required<L extends readonly Leaf[]> = Exclude<L[number], { readonly role: 'o' }>;
type Optional<L extends readonly Leaf[]> = Extract<L[number], { readonly role: 'o' }>;
export type NamedArguments<L extends readonly Leaf[]> = Simplify<
  { readonly [P in Required<L> as P['name']]: ArgumentFor<P> } & { readonly [P in Optional<L> as P['name']]?: ArgumentFor<P> }
>;

/** What a call resolves to: every output, by name. */
export type Outputs<L extends readonly Leaf[]> = Simplify<{ [P in Extract<L[number], { readonly role: 'o' | 'io' }> as P['name']]: HostArrayOf<P['dtype']> | DeviceArray }>;

// ---- attach, at the type level ------------------------------------------------------------------

type ParamNamed<TP extends readonly ParamSpec[], N> = Extract<TP[number], { readonly name: N }>;

/** A transformation parameter as a leaf at connector `X`: what it leaves open is X's. */
type AsLeaf<T extends ParamSpec, X extends Leaf, Name extends string> = {
  readonly name: Name;
  readonly role: T['role'];
  readonly dtype: T['dtype'] extends DType ? T['dtype'] : X['dtype'];
  readonly shape?: readonly number[];
};

/** The leaves the transformation puts in X's place, in its order. */
type Entries<TP extends readonly ParamSpec[], C extends string, M, X extends Leaf, Load extends boolean> = TP extends readonly [
  infer T extends ParamSpec,
  ...infer Rest extends readonly ParamSpec[],
]
  ? [
      ...(T['name'] extends C
        ? X['role'] extends 'io'
          ? [Simplify<Omit<X, 'role'> & { readonly role: Load extends true ? 'o' : 'i' }>]
          : []
        : [AsLeaf<T, X, T['name'] extends keyof M ? M[T['name']] & string : never>]),
      ...Entries<Rest, C, M, X, Load>,
    ]
  : [];

type Replace<L extends readonly Leaf[], N, New extends readonly Leaf[]> = L extends readonly [infer H extends Leaf, ...infer T extends readonly Leaf[]]
  ? H['name'] extends N
    ? [...New, ...T]
    : [H, ...Replace<T, N, New>]
  : [];

type MergedRole<R> = [R] extends ['s'] ? 's' : [R] extends ['i'] ? 'i' : [R] extends ['o'] ? 'o' : 'io';

/** Each name once, at its first place, its roles merged (tree.ts's rule). */
type FirstOccurrences<L extends readonly Leaf[], All extends readonly Leaf[] = L, Seen = never> = L extends readonly [
  infer H extends Leaf,
  ...infer T extends readonly Leaf[],
]
  ? H['name'] extends Seen
    ? FirstOccurrences<T, All, Seen>
    : [Simplify<Omit<H, 'role'> & { readonly role: MergedRole<Extract<All[number], { readonly name: H['name'] }>['role']> }>, ...FirstOccurrences<T, All, Seen | H['name']>]
  : [];

/** The signature after `attach(N, transformation with params TP, connector C, mapping M)`. */
export type Attached<L extends readonly Leaf[], N extends string, TP extends readonly ParamSpec[], C extends string, M> = number extends L['length']
  ? L
  : FirstOccurrences<Replace<L, N, Entries<TP, C, M, Extract<L[number], { readonly name: N }>, ParamNamed<TP, C>['role'] extends 'o' ? true : false>>>;

/** Leaves a transformation may attach to through `C`: inputs for a transformation of what kernels read, outputs for one of what they write. */
export type AttachableNames<L extends readonly Leaf[], TP extends readonly ParamSpec[], C extends string> = ParamNamed<TP, C>['role'] extends 'o'
  ? Extract<L[number], { readonly role: 'i' | 'io' }>['name']
  : Extract<L[number], { readonly role: 'o' | 'io' }>['name'];

/** The mapping `attach` wants: every transformation parameter but the connector, to a name. */
export type MappingFor<TP extends readonly ParamSpec[], C extends string> = { readonly [K in Exclude<TP[number]['name'], C>]: string };

export type { ComputationRole };
