/**
 * Kernel signatures as the compiler sees them, and the types of `run()` they give.
 *
 * A signature maps each argument name to what the type level knows about it:
 *
 *   { a:   { kind: 'array'; dtype: 'float32'; required: true;  output: false }
 *     out: { kind: 'array'; dtype: 'float32'; required: false; output: true  }
 *     n:   { kind: 'value'; dtype: 'int32';   required: false; output: false } }
 *
 * gives `run(device, { a: Float32Array, out?: Float32Array, n?: number })` returning
 * `Promise<{ out: Float32Array }>`. Three sources produce signatures: `.args({...})`
 * (declared.ts), literal strings (infer.ts) and `loom typegen` (the `KernelRegistry`
 * below). A kernel none of them can see has the `LooseSignature`: any argument goes, and
 * outputs come back as the core returns them.
 */
import type { DType, DeviceArray, HostArray, HostArrays, RunArgument, RunOutputs } from '@loom/core';

/** The TypedArray that holds each dtype on the host: core's, which this package's users name from here too. */
export type { HostArrays };

/** What the type level knows about one argument. */
export interface ArgInfo {
  /** An array or a scalar value. */
  readonly kind: 'array' | 'value';
  /** `'auto'`: whatever the data passed at run time says. */
  readonly dtype: DType | 'auto';
  /** `run` cannot do without it (inputs; values that no array size determines). */
  readonly required: boolean;
  /** `run` returns it. */
  readonly output: boolean;
}

/** A kernel's arguments as the type checker knows them, by name. */
export type Signature = { readonly [name: string]: ArgInfo };

declare const loose: unique symbol;
/** The signature of a kernel whose text the compiler cannot see. */
export interface LooseSignature {
  /** Marks the signature loose. */
  readonly [loose]: true;
}

/** A signature, known or loose. */
export type AnySignature = Signature | LooseSignature;

/**
 * Signatures `loom typegen` found for kernels written with templates, by kernel name.
 * The generated `*.loom.d.ts` files add to this interface.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, so that generated *.loom.d.ts files can add to it
export interface KernelRegistry {}

/** One entry of the registry: the kernel's inames and its signature. */
export interface RegisteredKernel {
  /** The kernel's inames, as a union of string literal types (`'i' | 'j'`). */
  readonly inames: string;
  /** Its signature. */
  readonly args: Signature;
}

/** The host array of a dtype. */
export type HostOf<D> = D extends DType ? HostArrays[D] : HostArray;

/** An array argument: host data (flat, or with its shape), or data already on the device. */
export type ArrayArgument<D> =
  | HostOf<D>
  | { readonly data: HostOf<D>; readonly shape: readonly number[] }
  | DeviceArray;
/** A value argument: a number (64-bit integers may be bigints). */
export type ValueArgument<D> = D extends 'int64' | 'uint64' | 'auto' ? number | bigint : number;

type ArgumentOf<A extends ArgInfo> = A['kind'] extends 'value' ? ValueArgument<A['dtype']> : ArrayArgument<A['dtype']>;

/** `{ a: 1 } & { b: 2 }` shown as `{ a: 1; b: 2 }` in hovers and messages. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredNames<S extends Signature> = { [K in keyof S]: S[K]['required'] extends true ? K : never }[keyof S];
type OptionalNames<S extends Signature> = Exclude<keyof S, RequiredNames<S>>;
type OutputNames<S extends Signature> = { [K in keyof S]: S[K]['output'] extends true ? K : never }[keyof S];

export type ArgNames<S extends AnySignature> = S extends Signature ? keyof S & string : string;
export type ArrayNames<S extends AnySignature> = S extends Signature
  ? { [K in keyof S]: S[K]['kind'] extends 'array' ? K : never }[keyof S] & string
  : string;
export type ValueNames<S extends AnySignature> = S extends Signature
  ? { [K in keyof S]: S[K]['kind'] extends 'value' ? K : never }[keyof S] & string
  : string;

/** What `run` takes: every required argument, optionally the others, nothing else. */
export type RunArgs<S extends AnySignature> = S extends Signature
  ? Simplify<
      { readonly [K in RequiredNames<S>]: ArgumentOf<S[K]> } & { readonly [K in OptionalNames<S>]?: ArgumentOf<S[K]> }
    >
  : Readonly<Record<string, RunArgument>>;

/**
 * `run`'s arguments, checked for names the kernel does not have. (`run` is generic in
 * what it is given, to type outputs by what was passed, and TypeScript checks a generic
 * argument only against its constraint, which lets extra names through; mapping over the
 * names given puts them back under check.)
 */
export type OnlyKnown<G, S extends AnySignature> = S extends Signature
  ? { [K in keyof G]: K extends keyof S ? G[K] : `'${K & string}' is not an argument of this kernel` }
  : G;

/**
 * What an output comes back as: what was passed for it, else a new host array. (Tuples
 * keep a union — an argument that may or may not be there — from splitting the answer.)
 */
type Returned<A extends ArgInfo, Given> = [Given] extends [DeviceArray]
  ? DeviceArray
  : [Given] extends [{ readonly data: infer H }]
    ? H
    : [Given] extends [HostArray]
      ? Given
      : HostOf<A['dtype']>;

/** What `run` resolves to, given the signature and the arguments `G` it was passed. */
export type Outputs<S extends AnySignature, G> = S extends Signature
  ? { [K in OutputNames<S>]: Returned<S[K], K extends keyof G ? G[K] : undefined> }
  : RunOutputs;
