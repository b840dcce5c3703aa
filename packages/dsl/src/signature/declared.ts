/**
 * The signature declared arguments give (`.args({ a: f32('n'), out: f32.out('n') })`).
 *
 * Names in shapes that are not declared otherwise are the kernel's integer parameters.
 * A parameter is optional when the inputs' sizes settle it — the reasoning `run` applies
 * to flat arrays: an input whose shape has one unknown name determines that name, and
 * then maybe the next (`A: f32('n', 'm'), x: f32('m')` settles `m` from `x`, then `n`
 * from `A`).
 */
import type { DType } from '@loom/core';
import type { Variables } from '../parse/scan.ts';
import type { ArgDecls, ArrayDecl, Mode, ValueDecl } from './arg-decls.ts';
import type { Simplify } from './signature.ts';

export type { ArgDecl, ArgDecls, ArrayDecl, Mode, ShapeEntry, ValueDecl } from './arg-decls.ts';

type NamesInShape<Sh> = Sh extends readonly (infer E)[] ? Variables<Extract<E, string>> : never;
type ShapeNames<D extends ArgDecls> = {
  [K in keyof D]: D[K] extends ArrayDecl<DType, Mode, infer Sh> ? NamesInShape<Sh> : never;
}[keyof D];
type DeclaredValues<D extends ArgDecls> = { [K in keyof D]: D[K] extends ValueDecl ? K : never }[keyof D];

/** Names in the shapes of the inputs, per input. */
type InputShapeNames<D extends ArgDecls> = {
  [K in keyof D]: D[K] extends ArrayDecl<DType, 'in' | 'inout', infer Sh> ? NamesInShape<Sh> : never;
};

type IsUnion<T, All = T> = T extends unknown ? ([All] extends [T] ? false : true) : never;
/** `U` when it is exactly one name, else nothing. */
type Single<U> = [U] extends [never] ? never : true extends IsUnion<U> ? never : U;

/** The names a round of solving settles: the sole unknown name of some input's shape. */
type Settled<D extends ArgDecls, Known> = { [K in keyof D]: Single<Exclude<InputShapeNames<D>[K], Known>> }[keyof D];

type Solve<D extends ArgDecls, Known, Rounds extends unknown[] = []> = Rounds['length'] extends 4
  ? Known
  : Solve<D, Known | Settled<D, Known>, [...Rounds, unknown]>;

/** Parameters `run` can find from the inputs' sizes. */
export type Inferable<D extends ArgDecls> = Exclude<Solve<D, DeclaredValues<D>>, DeclaredValues<D>>;

/** The signature that argument declarations give a kernel. */
export type DeclaredSignature<D extends ArgDecls> = Simplify<
  {
    readonly [K in keyof D]: D[K] extends ArrayDecl<infer T, infer M>
      ? {
          readonly kind: 'array';
          readonly dtype: T;
          readonly required: M extends 'out' ? false : true;
          readonly output: M extends 'in' ? false : true;
        }
      : { readonly kind: 'value'; readonly dtype: D[K]['dtype']; readonly required: true; readonly output: false };
  } & {
    readonly [K in Exclude<ShapeNames<D>, keyof D>]: {
      readonly kind: 'value';
      readonly dtype: 'int32';
      readonly required: K extends Inferable<D> ? false : true;
      readonly output: false;
    };
  }
>;
