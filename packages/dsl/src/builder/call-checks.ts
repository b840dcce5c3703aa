/**
 * What the compiler checks of the calls a kernel makes (`.calls({ twice })`): for each call
 * the instructions write (parse/calls.ts) whose callee's signature is known,
 *  - the call passes as many arguments as the callee has inputs (its input arrays and its
 *    values, domain parameters included, as a callee kernel takes them) and assigns as many
 *    results as it has output arrays;
 *  - an array passed has a dtype some input array of the callee has, an array assigned one
 *    some output has (a signature says no order, so a callee whose inputs differ in dtype has
 *    each position checked when the program is made);
 *  - a result is not an input of the caller;
 * and every kernel the instructions call is given. A problem replaces the callee's type by a
 * sentence saying it, which is what the compiler then shows.
 */
import type { CallFact } from '../parse/calls.ts';
import type { AnySignature, Signature } from '../signature/signature.ts';
import type { KernelBuilder } from './builder.ts';
import type { ProgramBuilder } from './program.ts';

// biome-ignore lint/suspicious/noExplicitAny: a builder of any inames, signature and calls (a signature's run is invariant in it)
type AnyKernelBuilder = KernelBuilder<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: as above, a program builder
type AnyProgramBuilder = ProgramBuilder<any, any, any>;

/** A kernel other kernels call: a builder, or a program builder (whose entrypoint is called). */
export type Callee = AnyKernelBuilder | AnyProgramBuilder;

/** What `.calls()` takes: each callee under the name the instructions call it by. */
export type Callees = { readonly [name: string]: Callee };

/** The signature of a callee's builder. */
export type SignatureOf<B> =
  B extends ProgramBuilder<infer _I, infer S, infer _K>
    ? S
    : B extends KernelBuilder<infer _I, infer S, infer _C>
      ? S
      : never;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type LastOf<U> = UnionToIntersection<U extends unknown ? () => U : never> extends () => infer L ? L : never;
/** How many members a union has (their order, which TypeScript does not keep, plays no part). */
type Count<U, N extends unknown[] = []> = [U] extends [never]
  ? N['length']
  : N['length'] extends 64
    ? number
    : Count<Exclude<U, LastOf<U>>, [...N, unknown]>;

type InputNames<S extends Signature> = {
  [K in keyof S]: S[K]['kind'] extends 'value' ? K : S[K]['required'] extends true ? K : never;
}[keyof S];
type OutputNames<S extends Signature> = {
  [K in keyof S]: S[K]['kind'] extends 'array' ? (S[K]['output'] extends true ? K : never) : never;
}[keyof S];
type InputArrayDtypes<S extends Signature> = {
  [K in keyof S]: S[K]['kind'] extends 'array' ? (S[K]['required'] extends true ? S[K]['dtype'] : never) : never;
}[keyof S];
type OutputDtypes<S extends Signature> = { [K in OutputNames<S>]: S[K]['dtype'] }[OutputNames<S>];

/** The dtype of the caller's array `X`, where its signature says one. */
type ArrayDtype<S, X> = S extends Signature
  ? X extends keyof S
    ? S[X]['kind'] extends 'array'
      ? Exclude<S[X]['dtype'], 'auto'>
      : never
    : never
  : never;

/** `'x' is a float64 array; 'twice' takes float32`, when the dtype `T` is none of `Allowed` (all known). */
type DtypeProblem<X extends string, T, Allowed, What extends string> = [T] extends [never]
  ? never
  : [Allowed] extends [never]
    ? never
    : 'auto' extends Allowed
      ? never
      : T extends Allowed
        ? never
        : `'${X}' is a ${T & string} array; ${What} ${Allowed & string}`;

type ArgProblems<N extends string, F extends CallFact, S, CS extends Signature> = {
  [P in keyof F['args']]: DtypeProblem<
    F['args'][P] & string,
    ArrayDtype<S, F['args'][P]>,
    InputArrayDtypes<CS>,
    `the input arrays of '${N}' are`
  >;
}[number];

type ResultProblems<N extends string, F extends CallFact, S, CS extends Signature> = {
  [P in keyof F['results']]: F['results'][P] extends infer Y extends string
    ? S extends Signature
      ? Y extends keyof S
        ? S[Y]['output'] extends false
          ? `'${Y}' is an input of this kernel; the call of '${N}' writes it (declare it .out or .inout)`
          : DtypeProblem<Y, ArrayDtype<S, Y>, OutputDtypes<CS>, `the output arrays of '${N}' are`>
        : never
      : never
    : never;
}[number];

/** What is wrong with the calls `F` of the callee `N` (signature `CS`) by a kernel of signature `S`. */
type CallProblems<N extends string, F, S, CS> = CS extends Signature
  ? F extends CallFact
    ? F['args']['length'] extends Count<InputNames<CS>>
      ? F['results']['length'] extends Count<OutputNames<CS>>
        ? ArgProblems<N, F, S, CS> | ResultProblems<N, F, S, CS>
        : `the call of '${N}' assigns ${F['results']['length']} result(s); '${N}' has ${Count<OutputNames<CS>>} output array(s)`
      : `the call of '${N}' passes ${F['args']['length']} argument(s); '${N}' takes ${Count<InputNames<CS>>} (its input arrays and values)`
    : never
  : never;

/**
 * `.calls()`'s parameter: the callees given, each replaced by what is wrong with its calls
 * where something is, and each callee the instructions call but the object lacks required.
 */
export type CheckedCallees<K, S extends AnySignature, Facts> = {
  readonly [N in keyof K]: N extends string
    ? [CallProblems<N, Extract<Facts, { readonly callee: N }>, S, SignatureOf<K[N]>>] extends [never]
      ? K[N]
      : CallProblems<N, Extract<Facts, { readonly callee: N }>, S, SignatureOf<K[N]>>
    : K[N];
} & {
  readonly [M in Exclude<
    Facts extends CallFact ? Facts['callee'] : never,
    keyof K
  >]: `the instructions call '${M}': pass its kernel (.calls({ ${M} }))`;
};
