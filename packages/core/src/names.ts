/**
 * One policy for every name that reaches generated code.
 *
 * Kernel names, instruction ids, inames, arguments, temporaries, rule names and the
 * names a transformation is given all end up spelled in OpenCL C, WGSL or JavaScript
 * (the last one run by `new Function` on the host). A name is therefore held to two
 * rules, and nothing else a user writes is ever printed into code:
 *
 *  1. Where it enters Loom it must be an identifier: `/^[A-Za-z_][A-Za-z0-9_]*$/`
 *     (`checkName`). A newline, a comment closer or `#define` inside a "name" would otherwise end a
 *     comment or start a directive in the generated code. The `LoomError` says which
 *     API received the name and, when the name came from text, puts a caret under it.
 *  2. Where it leaves Loom each target maps it away from its own keywords and built-ins
 *     (`TargetNames`): `int` is a fine iname in Loom but not in OpenCL C, so OpenCL
 *     spells it `int_`. The mapping is deterministic and never collides with another
 *     of the program's names.
 *
 * Tables keyed by user names are Maps or null-prototype objects (`nameTable`), so that
 * `constructor` or `__proto__` are names like any other, not `Object.prototype`'s.
 */
import { InternalError, LoomError, type SourceSpan } from './errors.ts';

/** What a Loom name looks like: a letter or `_`, then letters, digits and `_` (ASCII only). */
export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isName(value: unknown): value is string {
  return typeof value === 'string' && NAME_PATTERN.test(value);
}

/**
 * A value as an error message shows it: strings quoted with their control characters
 * escaped (`"a\nb"`), so a hostile name cannot forge lines of the message either.
 */
export function showName(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  return value === null ? 'null' : typeof value;
}

/**
 * `value`, checked to be a name. `where` says who received it (`splitIname: outerIname`);
 * `span`, where the name came from a text (an instruction, a domain), puts a caret under it.
 */
export function checkName(value: unknown, where: string, span?: SourceSpan): string {
  if (isName(value)) return value;
  throw new LoomError(
    `${where}: ${showName(value)} is not a name (a name is a letter or '_' followed by letters, digits and '_')`,
    span,
  );
}

/**
 * The backstop for a name a printer is about to spell: core checked every name of the
 * program already, so a non-name here is a bug in Loom (an InternalError), not the user's.
 */
export function checkInternalName(value: unknown, where: string): string {
  if (isName(value)) return value;
  throw new InternalError(`${where}: ${showName(value)} is not a name`);
}

/** Each of `values` checked with `checkName`; a single string counts as a list of one. */
export function checkNames(values: unknown, where: string): string[] {
  const list = typeof values === 'string' ? [values] : values;
  if (!Array.isArray(list)) throw new LoomError(`${where}: expected a name or a list of names, got ${showName(list)}`);
  return list.map((v) => checkName(v, where));
}

/**
 * A lookup table of constants keyed by names, without a prototype: `table.constructor`
 * is undefined and `'toString' in table` is false, as for any other unknown name.
 */
/**
 * Names given the way loopy takes them: one string, comma-separated (`'i, j'`), or a list.
 * Always a new array.
 */
export function nameList(names: string | readonly string[]): string[] {
  // an options object where the names go (loopy's keyword arguments spelled positionally) is no list
  if (typeof names !== 'string' && !Array.isArray(names)) {
    throw new LoomError(
      `expected names: one string ('i, j') or a list of strings, got ${JSON.stringify(names)?.slice(0, 60) ?? String(names)}; options go after the names`,
    );
  }
  return typeof names === 'string'
    ? names
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [...names];
}

/** A frozen lookup table with no prototype, so a name like `__proto__` or `constructor` is only itself. */
export function nameTable<T>(entries: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/** `record[key]` when the record itself has that key (never an inherited `Object.prototype` member). */
export function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Text for a comment in generated code, in any target. Comments are built from checked
 * names already; this is the second lock, so that no comment can ever end early: only
 * printable ASCII survives (no newline, no U+2028, which ends a line in JavaScript and
 * WGSL), without backslashes (C splices a line ending in one onto the next), and block
 * comment delimiters are broken apart.
 */
export function commentText(text: string): string {
  return text
    .replace(/[^\x20-\x7e]|\\/g, '_')
    .replace(/\*\//g, '* /')
    .replace(/\/\*/g, '/ *');
}

/** Whether a target cannot use a name as it is: a keyword, a built-in, a name of its own. */
export type ReservedTest = (name: string) => boolean;

/**
 * How one program's names are spelled in one target. A name the target does not
 * reserve is spelled as it is; a reserved one gets underscores appended (`int` → `int_`,
 * then `int__`...) until the result is neither reserved nor another name of the program.
 * Names starting with `_` that the target reserves (C reserves `__x` for itself) first
 * get a `v` in front (`__kernel` → `v__kernel`).
 *
 * The result depends only on the set of the program's names, not on the order in which
 * they are asked for, and two names never share a spelling.
 */
export class TargetNames {
  private readonly spelled = new Map<string, string>();
  private readonly taken: Set<string>;

  constructor(
    private readonly reserved: ReservedTest,
    programNames: Iterable<string>,
  ) {
    const names = [...new Set(programNames)].sort();
    for (const n of names) checkInternalName(n, 'a name in the generated program');
    this.taken = new Set(names);
    // reserved names are renamed in sorted order, so the spelling is the same on every call
    for (const n of names) if (reserved(n)) this.spelled.set(n, this.fresh(n));
  }

  /** Whether some name is spelled otherwise in the target (else the program can be printed as it is). */
  get renamesAny(): boolean {
    return this.spelled.size > 0;
  }

  /** The target's spelling of a program name. */
  of(name: string): string {
    const spelled = this.spelled.get(name);
    if (spelled !== undefined) return spelled;
    if (!this.taken.has(name))
      throw new InternalError(`'${showName(name)}' is not a name of the program being printed`);
    return name;
  }

  private fresh(name: string): string {
    const stem = name.startsWith('_') ? `v${name}` : name;
    let candidate = stem === name ? `${stem}_` : stem;
    while (this.reserved(candidate) || this.taken.has(candidate)) candidate += '_';
    this.taken.add(candidate);
    return candidate;
  }
}
