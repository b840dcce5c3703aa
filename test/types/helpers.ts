/**
 * Helpers for the type tests in this folder. These files are compiled by `tsc` (as part of
 * `npm test`) and never run: a line that must not compile carries `// @ts-expect-error`,
 * which fails the compilation if the line compiles after all; `Expect<Equal<A, B>>` fails
 * it unless A and B are the same type. test/dsl-type-tests.test.ts checks that every
 * expected error is really there.
 */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export type Expect<T extends true> = T;

/** A value of type T, for checking what an expression accepts without running anything. */
export declare function value<T>(): T;
