/**
 * Inames at the type level: the builder carries the union `I` of a kernel's inames, and
 * each transformation says how it changes — `.split('i', ...)` trades `i` for `i_outer`
 * and `i_inner`, `.rename('i', 'row')` trades `i` for `row`. When the inames are not
 * known (`string`), every name is accepted and every result is `string` again.
 */
import type { SplitList } from '../parse/scan.ts';

/** A grid axis. */
export type Axis = 0 | 1 | 2;

/** Iname implementation tags, as `tagInames` reads them. */
export type Tag<I extends string = string> =
  | 'for'
  | 'unr'
  | 'ilp'
  | 'ilp.unr'
  | 'ilp.seq'
  | 'vec'
  | `l.${Axis}`
  | `g.${Axis}`
  | 'l.auto'
  | 'unused.l'
  | 'unused.g'
  | `like.${I}`
  | null;

/**
 * The names `tag({ f: 'l.auto' })` may split an iname into: `f_outer` (a loop) and `f_inner`
 * (the local axis), when `f` is longer than the axis it is fitted to.
 */
export type AutoFittedTags<T> = {
  [K in keyof T]: T[K] extends 'l.auto' ? `${K & string}_outer` | `${K & string}_inner` : never;
}[keyof T];

/**
 * A comma-separated list of inames, checked: the list itself when every name is an
 * iname, else a message naming the first unknown ones, which the argument then fails to
 * match (`'i,q'` is not assignable to `"unknown iname: q"`).
 */
export type CheckedInameList<O extends string, I extends string> = string extends I
  ? O
  : string extends O
    ? O
    : [Exclude<SplitList<O>, I>] extends [never]
      ? O
      : `unknown iname: ${Exclude<SplitList<O>, I>}`;

/** `Join<['i', 'j'], '_and_'>` = `'i_and_j'`, the name `joinInames` gives by default. */
export type Join<L extends readonly string[], Sep extends string> = L extends readonly [infer H extends string]
  ? H
  : L extends readonly [infer H extends string, ...infer R extends readonly string[]]
    ? `${H}${Sep}${Join<R, Sep>}`
    : string;

/** Names a transformation invents from a base name (`uniqueName` in the core): `i_0`, `i_1`, ... */
export type Numbered<Base extends string> = `${Base}_${number}`;

/**
 * What a verb with a `within` option leaves: with no `within`, the old inames are gone
 * (`Removed` excluded); with one, the instructions outside it keep them.
 */
export type AfterWithin<I extends string, Removed extends string, Added extends string, W> = [W] extends [undefined]
  ? Exclude<I, Removed> | Added
  : I | Added;

/**
 * The old and new inames of an ISL map `[p] -> { [i, j] -> [i0, j0] : ... }`:
 * `MapInames<'{ [t] -> [to, ti]: ... }'>` = `{ from: 't'; to: 'to' | 'ti' }`; a map the
 * type level cannot read gives `string` for both.
 */
export type MapInames<M extends string> = M extends `${string}{${infer Body}`
  ? Body extends `${infer In}]${string}->${infer Rest}`
    ? Rest extends `${string}[${infer Out}]${string}`
      ? { from: SplitList<AfterBracket<In>>; to: SplitList<Out> }
      : { from: string; to: string }
    : { from: string; to: string }
  : { from: string; to: string };

type AfterBracket<S extends string> = S extends `${string}[${infer R}` ? R : S;
