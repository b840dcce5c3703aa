/**
 * An option Loom cannot honour is an error, never ignored. TypeScript's excess-property
 * check only sees object literals at compile time: options built in a variable, spread
 * from another object, cast with `as any` or passed from plain JavaScript reach a function
 * unchecked, and a misspelt key (`outerTg`) would silently do nothing. Every public
 * function taking an options object therefore checks its keys against the names it reads.
 *
 * The list of names is written once per options interface with `optionKeys`, which fails
 * to compile when the list misses a key of the interface or names one it lacks, so the
 * list cannot fall behind when the interface grows.
 */
import { LoomError } from './errors.ts';

/** The keys of T that the list K does not name (never when K is complete). */
type MissingKeys<T, K extends readonly PropertyKey[]> = Exclude<{ [P in keyof T]-?: P }[keyof T], K[number]>;

/**
 * `optionKeys<SplitInameOptions>()(['outerTag', 'innerTag', ...])`: the option names of an
 * interface, complete: a name the interface lacks, or a key of it the list leaves out, is a
 * compile error (the second says `Property 'missingKeys' is missing` and names them).
 * Two calls because TypeScript cannot infer the list while T is given explicitly.
 */
export function optionKeys<T extends object>() {
  return <const K extends readonly (keyof T & string)[]>(
    keys: K & ([MissingKeys<T, K>] extends [never] ? unknown : { readonly missingKeys: MissingKeys<T, K> }),
  ): readonly string[] => keys;
}

/** Hints `checkOptionKeys` adds to its error for keys that mean something elsewhere. */
export interface CheckOptionKeysHints {
  /**
   * Names someone may reasonably give that mean a known key under another spelling (the
   * core function's `outerTag` given to the builder's `split`, whose option is `outer`).
   */
  readonly aliases?: Readonly<Record<string, string>>;
}

/**
 * Throws a LoomError naming `where` and the first key of `options` not in `known`, with the
 * known names and a did-you-mean when one of them is close. Undefined options pass.
 */
export function checkOptionKeys(
  where: string,
  options: object | undefined | null,
  known: readonly string[],
  hints: CheckOptionKeysHints = {},
): void {
  if (options === undefined || options === null) return;
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new LoomError(
      `${where}: the options must be an object, got ${Array.isArray(options) ? 'an array' : typeof options}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const knownList = known.length ? known.join(', ') : 'none';
    const guess = Object.hasOwn(hints.aliases ?? {}, key) ? hints.aliases?.[key] : didYouMean(key, known);
    throw new LoomError(
      `${where}: unknown option '${key}' (known: ${knownList})${guess === undefined ? '' : `; did you mean '${guess}'?`}`,
    );
  }
}

/**
 * The known name a misspelt one most likely meant: one equal but for case, else the only
 * one nearest within two edits (one for names of up to three letters, where two edits
 * reach almost anything). Undefined when none is close or two are equally close.
 */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  const sameButCase = known.filter((k) => k.toLowerCase() === name.toLowerCase());
  if (sameButCase.length === 1) return sameButCase[0];
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.ceil(name.length / 3)) + 1;
  let tie = false;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance, tie] = [k, d, false];
    else if (d === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = row;
  }
  return previous[b.length];
}
