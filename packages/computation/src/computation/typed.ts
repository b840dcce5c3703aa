/**
 * The compiler's view of computations: the signature as a tuple of parameters (name, dtype,
 * role), carried through `attach` by the same rule the tree follows at run time (tree.ts),
 * so that the compiled function's arguments are checked: a Float64Array where the
 * signature says float32, a missing input, an unknown name are compile-time errors.
 */
import type { ComplexScalar, DeviceArray, DType, HostArrays } from '@loom/core';

/** The TypedArray that holds each dtype on the host: core's, which this package's users name from here too. */
export type { HostArrays };
import type { ParamSpec } from '../transformation/params.ts';
import type { ComputationParam, ComputationRole } from './params.ts';
import type { KernelArgument } from './plan.ts';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The host typed array of a dtype. */
export type HostArrayOf<D extends DType> = HostArrays[D];
/** An array argument: host data (flat or with its shape) or a DeviceArray. */
export type ArrayArgument<D extends DType> =
  | HostArrayOf<D>
  | { readonly data: HostArrayOf<D>; readonly shape: readonly number[] }
  | DeviceArray;

type Leaf = ComputationParam;

/** buildPlan's arguments: one KernelArgument per parameter. */
export type KernelArgumentsOf<P extends readonly Leaf[]> = {
  [K in keyof P]: P[K] extends Leaf ? KernelArgument<P[K]> : never;
};

/** What a scalar of a dtype takes: a number (a bigint for 64-bit integers); a complex one also its parts, `{ re, im }` or `[re, im]`. */
export type ScalarArgument<D extends DType> = D extends 'complex64' | 'complex128'
  ? number | ComplexScalar
  : number | bigint;

/** What one parameter takes: a number for a scalar, an array for an array (optional for an output). */
export type ArgumentFor<P extends Leaf> = P['role'] extends 's'
  ? ScalarArgument<P['dtype']>
  : P['role'] extends 'o'
    ? ArrayArgument<P['dtype']> | undefined
    : ArrayArgument<P['dtype']>;

/** What a loosely typed computation takes for any parameter (its signature unknown to the compiler). */
export type LooseArgument =
  | HostArrays[keyof HostArrays]
  | { readonly data: HostArrays[keyof HostArrays]; readonly shape: readonly number[] }
  | DeviceArray
  | number
  | bigint
  | ComplexScalar
  | undefined;

/** The arguments of a compiled computation's call, in parameter order, typed by the parameters. */
export type PositionalArguments<L extends readonly Leaf[]> = number extends L['length']
  ? LooseArgument[]
  : { [K in keyof L]: L[K] extends Leaf ? ArgumentFor<L[K]> : never };

/** What `prepare` takes: a DeviceArray for each array, a number for each scalar (a complex one as `ScalarArgument` says). */
export type PreparedArguments<L extends readonly Leaf[]> = number extends L['length']
  ? (DeviceArray | number | bigint | ComplexScalar)[]
  : {
      [K in keyof L]: L[K] extends Leaf
        ? L[K]['role'] extends 's'
          ? ScalarArgument<L[K]['dtype']>
          : DeviceArray
        : never;
    };

type Required<L extends readonly Leaf[]> = Exclude<L[number], { readonly role: 'o' }>;
type Optional<L extends readonly Leaf[]> = Extract<L[number], { readonly role: 'o' }>;
/** The arguments of `byName`, by parameter name, typed by the parameters. */
export type NamedArguments<L extends readonly Leaf[]> = number extends L['length']
  ? { readonly [name: string]: LooseArgument }
  : Simplify<
      { readonly [P in Required<L> as P['name']]: ArgumentFor<P> } & {
        readonly [P in Optional<L> as P['name']]?: ArgumentFor<P>;
      }
    >;

type LooseOutputs = { readonly [name: string]: HostArrays[keyof HostArrays] | DeviceArray };

/** An output comes back as the DeviceArray passed for it, else as host data (the array passed, or a new one). */
type Returned<P extends Leaf, Given> = [Given] extends [DeviceArray]
  ? DeviceArray
  : [Given] extends [{ readonly data: infer H }]
    ? H
    : HostArrayOf<P['dtype']>;

/** What a positional call resolves to: every output, by name, typed by what was passed for it. */
export type Outputs<L extends readonly Leaf[], G extends readonly unknown[] = []> = number extends L['length']
  ? LooseOutputs
  : Simplify<{
      [K in keyof L & `${number}` as L[K] extends { readonly role: 'o' | 'io'; readonly name: infer N extends string }
        ? N
        : never]: L[K] extends Leaf ? Returned<L[K], K extends keyof G ? G[K] : undefined> : never;
    }>;

/**
 * A call's arguments by name, checked for names the signature does not have (a generic
 * argument is checked only against its constraint, which lets extra names through).
 */
export type OnlyKnown<G, L extends readonly Leaf[]> = number extends L['length']
  ? G
  : { [K in keyof G]: K extends L[number]['name'] ? G[K] : `'${K & string}' is not a parameter of this computation` };

/** What a call by name resolves to. */
export type NamedOutputs<L extends readonly Leaf[], G> = number extends L['length']
  ? LooseOutputs
  : Simplify<{
      [P in Extract<L[number], { readonly role: 'o' | 'io' }> as P['name']]: Returned<
        P,
        P['name'] extends keyof G ? G[P['name']] : undefined
      >;
    }>;

// ---- attach, at the type level ------------------------------------------------------------------
//
// The tree of transformations as a type: the roots' names, the leaves by name, and for each node
// the names its transformations put before and after it. The signature is the same walk tree.ts
// makes at run time, so the tuple the compiled function takes is the one it is called with.

interface TreeState {
  readonly roots: readonly string[];
  readonly leaves: { readonly [name: string]: Leaf };
  readonly edges: { readonly [name: string]: NodeEdges };
}

/** For each path with a transformation: the names before and after the node. */
interface NodeEdges {
  readonly output?: readonly [readonly string[], readonly string[]];
  readonly input?: readonly [readonly string[], readonly string[]];
}

type IsTuple<L extends readonly unknown[]> = number extends L['length'] ? false : true;

/**
 * The parameters of computations whose parameter list the compiler cannot see (a list
 * declared as `ComputationParam[]`, shared between computations, or built from consts), by
 * the computation's name. `loom typegen` fills it: it evaluates such lists statically and
 * writes `<file>.loom.d.ts` next to the source, adding entries here
 * (`{ params: readonly [{ name: 'output'; dtype: 'float32'; ... }, ...] }`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging (loom typegen)
export interface ComputationRegistry {}

/** A computation's parameters as the compiler sees them: its own list when that is a tuple, else what typegen registered under its name. */
export type RegisteredParams<N extends string, P extends readonly Leaf[]> =
  IsTuple<P> extends true
    ? P
    : N extends keyof ComputationRegistry
      ? ComputationRegistry[N] extends { readonly params: infer R extends readonly Leaf[] }
        ? R
        : P
      : P;

/** A computation's tree before anything is attached. */
export type InitialTree<P extends readonly Leaf[]> = {
  /** The computation's own parameters' names, in order. */
  readonly roots: { readonly [K in keyof P]: P[K] extends Leaf ? P[K]['name'] : never };
  /** Every parameter is a leaf of the signature, by name. */
  readonly leaves: { readonly [L in P[number] as L['name']]: L };
  /** No transformation is attached yet. */
  readonly edges: {};
};

/** The signature of a tree: its leaves, in the walk's order (loose for a computation whose parameters the compiler does not know). */
export type SignatureOf<P extends readonly Leaf[], T> =
  IsTuple<P> extends false ? P : T extends TreeState ? Walk<T, T['roots'], never, never>['r'] : never;

type EdgesOf<T extends TreeState, N> = N extends keyof T['edges'] ? T['edges'][N] : {};
type Children<E> = E extends {
  readonly output: readonly [infer OB extends readonly string[], infer OA extends readonly string[]];
}
  ? E extends { readonly input: readonly [infer IB extends readonly string[], infer IA extends readonly string[]] }
    ? [[...OB, ...OA], [...IB, ...IA]]
    : [OB, OA]
  : E extends { readonly input: readonly [infer IB extends readonly string[], infer IA extends readonly string[]] }
    ? [IB, IA]
    : [[], []];

type Walk<T extends TreeState, Names extends readonly string[], Ignore, Visited> = Names extends readonly [
  infer H extends string,
  ...infer Rest extends readonly string[],
]
  ? [H] extends [Ignore | Visited]
    ? Walk<T, Rest, Ignore, Visited>
    : WalkNode<T, H, Rest[number], Visited | H> extends { r: infer R1 extends readonly Leaf[]; v: infer V1 }
      ? Walk<T, Rest, Ignore, V1> extends { r: infer R2 extends readonly Leaf[]; v: infer V2 }
        ? { r: [...R1, ...R2]; v: V2 }
        : never
      : never
  : { r: []; v: Visited };

type WalkNode<T extends TreeState, H extends string, Later, Visited> =
  Children<EdgesOf<T, H>> extends [infer B extends readonly string[], infer A extends readonly string[]]
    ? Walk<T, B, Later, Visited> extends { r: infer RB extends readonly Leaf[]; v: infer VB }
      ? Walk<T, A, Later, VB> extends { r: infer RA extends readonly Leaf[]; v: infer VA }
        ? { r: [...RB, ...(H extends keyof T['leaves'] ? [T['leaves'][H]] : []), ...RA]; v: VA }
        : never
      : never
    : never;

type ParamNamed<TP extends readonly ParamSpec[], N> = Extract<TP[number], { readonly name: N }>;

/** The transformation's parameters as the names they take (the connector as the node). */
type Order<TP extends readonly ParamSpec[], C extends string, M, X extends string> = {
  [K in keyof TP]: TP[K] extends ParamSpec
    ? TP[K]['name'] extends C
      ? X
      : TP[K]['name'] extends keyof M
        ? M[TP[K]['name']] & string
        : never
    : never;
};
type Before<O extends readonly string[], X> = O extends readonly [
  infer H extends string,
  ...infer R extends readonly string[],
]
  ? [H] extends [X]
    ? []
    : [H, ...Before<R, X>]
  : [];
type After<O extends readonly string[], X> = O extends readonly [
  infer H extends string,
  ...infer R extends readonly string[],
]
  ? [H] extends [X]
    ? R
    : After<R, X>
  : [];

type Role2 = 'i' | 'o' | 'io' | 's';
type Merge<A extends Role2, B extends Role2> = A extends B ? A : A extends 'io' ? 'io' : 'io';

/** The leaves after attaching: the connector's path taken, the transformation's other parameters added or merged. */
type NewLeaves<
  T extends TreeState,
  X extends string,
  TP extends readonly ParamSpec[],
  C extends string,
  M,
  Load extends boolean,
> = Simplify<
  {
    readonly [N in keyof T['leaves'] as N extends X
      ? T['leaves'][N]['role'] extends 'io'
        ? N
        : never
      : N]: N extends X
      ? Simplify<Omit<T['leaves'][N], 'role'> & { readonly role: Load extends true ? 'o' : 'i' }>
      : N extends MappedNames<TP, C, M>
        ? Simplify<
            Omit<T['leaves'][N], 'role'> & { readonly role: Merge<T['leaves'][N]['role'], RoleMappedTo<TP, C, M, N>> }
          >
        : T['leaves'][N];
  } & {
    readonly [P in Exclude<TP[number], { readonly name: C }> as P['name'] extends keyof M
      ? M[P['name']] extends keyof T['leaves']
        ? never
        : M[P['name']] & string
      : never]: {
      readonly name: P['name'] extends keyof M ? M[P['name']] & string : never;
      readonly role: P['role'];
      readonly dtype: P['dtype'] extends DType ? P['dtype'] : T['leaves'][X]['dtype'];
      readonly shape?: readonly number[];
    };
  }
>;
type MappedNames<TP extends readonly ParamSpec[], C extends string, M> = {
  [K in Exclude<TP[number]['name'], C>]: K extends keyof M ? M[K] : never;
}[Exclude<TP[number]['name'], C>];
type RoleMappedTo<TP extends readonly ParamSpec[], C extends string, M, N> = {
  [K in Exclude<TP[number]['name'], C>]: K extends keyof M
    ? M[K] extends N
      ? ParamNamed<TP, K>['role']
      : never
    : never;
}[Exclude<TP[number]['name'], C>];

/** The tree after `attach(X, transformation with params TP, connector C, mapping M)`. */
export type Attached<T, X extends string, TP extends readonly ParamSpec[], C extends string, M> = T extends TreeState
  ? ParamNamed<TP, C>['role'] extends 'o' | 'i'
    ? {
        readonly roots: T['roots'];
        readonly leaves: NewLeaves<T, X, TP, C, M, ParamNamed<TP, C>['role'] extends 'o' ? true : false>;
        readonly edges: Simplify<
          Omit<T['edges'], X> & {
            readonly [K in X]: Simplify<
              EdgesOf<T, X> & {
                readonly [W in ParamNamed<TP, C>['role'] extends 'o' ? 'input' : 'output']: [
                  Before<Order<TP, C, M, X>, X>,
                  After<Order<TP, C, M, X>, X>,
                ];
              }
            >;
          }
        >;
      }
    : T
  : T;

/** Leaves a transformation may attach to through `C`: inputs for a transformation of what kernels read, outputs for one of what they write. */
export type AttachableNames<L extends readonly Leaf[], TP extends readonly ParamSpec[], C extends string> =
  IsTuple<L> extends false
    ? string
    : ParamNamed<TP, C>['role'] extends 'o'
      ? Extract<L[number], { readonly role: 'i' | 'io' }>['name']
      : Extract<L[number], { readonly role: 'o' | 'io' }>['name'];

/** The mapping `attach` wants: every transformation parameter but the connector, to a name. */
export type MappingFor<TP extends readonly ParamSpec[], C extends string> = {
  readonly [K in Exclude<TP[number]['name'], C>]: string;
};

export type { ComputationRole };
