/**
 * Domains read at the type level: the inames and parameters of a literal domain string.
 *
 *   DomainInames<'{ [i,j]: 0<=i,j<n }'>              = 'i' | 'j'
 *   DomainParams<'[n] -> { [i]: 0<=i<n and i mod 3 = 0 }'> = 'n'
 *
 * The inames are the names between the first `[` and `]` after the `{`; the parameters
 * are every other identifier, less the words of the set language and the names bound
 * by `exists`. A string that is not a literal type (a `domain` template, a computed
 * string) gives `string`: anything is accepted, nothing is checked.
 */
import type { IsLiteral, Identifiers, SplitList } from './scan.ts';

/** Words of the set language that are not names. */
type SetKeywords = 'and' | 'or' | 'not' | 'mod' | 'exists' | 'floor' | 'ceil' | 'min' | 'max' | 'true' | 'false';

type LiteralInames<D extends string> = D extends `${string}{${infer Body}`
  ? Body extends `${string}[${infer Dims}]${string}`
    ? SplitList<Dims>
    : never
  : never;

/** Names bound by every `exists a, b:` in the text. */
type ExistsNames<D extends string, Found extends string = never> = D extends `${string}exists${infer After}`
  ? After extends `${infer Names}:${infer Rest}`
    ? ExistsNames<Rest, Found | SplitList<Names>>
    : Found
  : Found;

type LiteralParams<D extends string> = Exclude<Identifiers<D>, LiteralInames<D> | ExistsNames<D> | SetKeywords>;

export type DomainInames<D> = IsLiteral<D> extends true ? LiteralInames<D & string> : string;
export type DomainParams<D> = IsLiteral<D> extends true ? LiteralParams<D & string> : string;

/**
 * The same for what `kernel()` accepts as its domains: one domain or a list of them.
 * A later domain may use an earlier one's inames as parameters (`{ [j]: 0<=j<=i }`), so
 * the parameters of the list are those that are no iname of any domain.
 */
export type InamesOfDomains<D> = D extends readonly unknown[] ? DomainInames<D[number]> : DomainInames<D>;
/** The parameters of domains, read from their text by the type checker. */
export type ParamsOfDomains<D> = D extends readonly unknown[]
  ? Exclude<DomainParams<D[number]>, InamesOfDomains<D>>
  : DomainParams<D>;
