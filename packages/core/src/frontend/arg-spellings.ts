/**
 * loopy's spellings of `make_kernel`'s arguments, read into the one form the rest of the
 * frontend works with. loopy users write
 *
 *   makeKernel(domain, insns, 'a, b, ...')                      // kernel_data as one string
 *   makeKernel(domain, insns, ['a', globalArg('b,c', {...}), '...'])  // bare names, names with commas
 *   makeKernel(domain, insns, { name: 'k' })                    // keyword arguments, no list
 *   globalArg('b', { shape: 'n, m' })                           // a shape as one string (or one number)
 *
 * and each is read here as loopy reads it (loopy/kernel/creation.py, `_parse_shape_or_strides`
 * in loopy/kernel/array.py). Anything that is none of these is a LoomError that says what to write.
 */
import type { StructDType } from '../structs/struct-dtype.ts';
import { LoomError } from '../errors.ts';
import type { ArgSpec } from './argument-specs.ts';
import type { TemporarySpec } from './temporary-specs.ts';

/** An argument declaration with its shape read: a list of entries, `'auto'`, or not given. */
export type DeclaredArg = Omit<ArgSpec, 'shape'> & {
  readonly shape?: readonly (number | string)[] | 'auto' | null;
  /** A struct array's struct, once its dtype is its bytes (struct-fields.ts). */
  readonly struct?: StructDType;
};

/** One entry of makeKernel's argument list, as the rest of the frontend reads it. */
export type ArgEntry = DeclaredArg | TemporarySpec | '...';

/** What makeKernel accepts as an argument list: a list, or loopy's one comma-separated string. */
export type ArgListInput = string | readonly (ArgSpec | TemporarySpec | string)[];

/** A shape as written: a list of entries, one entry alone, a comma-separated string, or `'auto'`. */
export type ShapeInput = readonly (number | string)[] | number | string;

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'a list';
  if (typeof x === 'object') return `an object (${JSON.stringify(x)?.slice(0, 60)})`;
  return `${typeof x} ${JSON.stringify(x) ?? String(x)}`;
}

/**
 * makeKernel's third and fourth arguments: `(args, options)`, or `(options)` alone where
 * loopy's keyword arguments were written without an argument list. An argument declaration
 * (it has a `kind`) alone is not options: it belongs in a list.
 */
export function splitArgsAndOptions<O extends object>(
  third: unknown,
  fourth: O | undefined,
): { readonly args: unknown; readonly options: O } {
  const proto = typeof third === 'object' && third !== null ? Object.getPrototypeOf(third) : undefined;
  const isPlainObject = proto === Object.prototype || proto === null;
  if (!isPlainObject) return { args: third, options: fourth ?? ({} as O) };
  if ('kind' in (third as object)) {
    throw new LoomError(
      `makeKernel: the argument declaration '${String((third as { name?: unknown }).name)}' must be in a list: [globalArg(...), '...']`,
    );
  }
  if (fourth !== undefined)
    throw new LoomError(
      'makeKernel: options given twice (as the third argument and as the fourth); pass the argument list third',
    );
  return { args: undefined, options: third as O };
}

/**
 * The argument list in one form: `undefined` is `['...']` (infer every argument, as loopy's
 * default); a string is split at its commas; a bare name is an argument whose kind, dtype and
 * shape are inferred (loopy's `make_new_arg`); a declaration named `'a, b'` declares each name.
 */
export function normalizeArgList(args: unknown): ArgEntry[] {
  if (args === undefined) return ['...'];
  const entries: readonly unknown[] =
    typeof args === 'string' ? args.split(',') : Array.isArray(args) ? args : badList(args);
  const out: ArgEntry[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') {
      for (const name of entry.split(',').map((s) => s.trim())) {
        if (name === '...') out.push('...');
        else if (name !== '') out.push({ name });
      }
      continue;
    }
    if (typeof entry !== 'object' || entry === null || typeof (entry as { name?: unknown }).name !== 'string') {
      throw new LoomError(
        `makeKernel: an entry of the argument list must be a name ('a'), '...', globalArg(...), valueArg(...), constantArg(...) or temporaryVariable(...); got ${describe(entry)}`,
      );
    }
    const spec = entry as ArgSpec | TemporarySpec;
    const names = spec.name.split(',').map((s) => s.trim());
    if (names.some((n) => n === ''))
      throw new LoomError(`makeKernel: the argument name '${spec.name}' has an empty name between its commas`);
    // (a temporary's shape is read by declaredTemporary, which a temporaryVariable reaches only through here)
    for (const name of names)
      out.push(spec.kind === 'temporary' ? { ...spec, name } : normalizeArgSpec({ ...spec, name }));
  }
  return out;
}

function badList(args: unknown): never {
  throw new LoomError(
    `makeKernel: the argument list must be a list or a comma-separated string ('a, b, ...'), got ${describe(args)}`,
  );
}

function normalizeArgSpec(spec: ArgSpec): DeclaredArg {
  return { ...spec, shape: normalizeShape(spec.shape, spec.name) };
}

/**
 * A shape as loopy's `_parse_shape_or_strides` reads it: `'n'` is `(n,)`, `'n, m'` and
 * `'(n, m)'` are `(n, m)`, `'()'` is a scalar, a number is one axis; `'auto'` stays.
 */
export function normalizeShape(
  shape: ShapeInput | null | undefined,
  name: string,
): (number | string)[] | 'auto' | null | undefined {
  // null: loopy's shape=None, one axis as long as the array passed (kernel/arg-layouts.ts)
  if (shape === undefined || shape === null || shape === 'auto') return shape;
  if (typeof shape === 'number') return [shape];
  if (typeof shape === 'string') return splitShapeString(shape, name);
  if (Array.isArray(shape)) {
    for (const entry of shape) {
      if (typeof entry !== 'number' && typeof entry !== 'string') {
        throw new LoomError(
          `'${name}': a shape entry must be a number or an expression string ('n + 1'), got ${describe(entry)}`,
        );
      }
    }
    return [...shape];
  }
  throw new LoomError(
    `'${name}': shape must be a list ([n, 4]), one string ('n, 4'), a number, 'auto' or null; got ${describe(shape)}`,
  );
}

/** `'(n, m)'` → `['n', 'm']`: commas outside brackets separate the axes. */
function splitShapeString(text: string, name: string): string[] {
  let s = text.trim();
  const wrapped = s.startsWith('(') && closingParen(s) === s.length - 1;
  if (wrapped) s = s.slice(1, -1).trim();
  if (s === '') {
    if (wrapped) return [];
    throw new LoomError(`'${name}': the shape '${text}' is empty; write '()' for a scalar`);
  }
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s[k];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(s.slice(start, k).trim());
      start = k + 1;
    }
  }
  const last = s.slice(start).trim();
  // a trailing comma, as in Python's one-tuple '(n,)'
  if (last !== '' || parts.length === 0) parts.push(last);
  if (parts.some((p) => p === '')) throw new LoomError(`'${name}': the shape '${text}' has an empty axis`);
  return parts;
}

/** The index of the parenthesis closing the one at 0, or -1. */
function closingParen(s: string): number {
  let depth = 0;
  for (let k = 0; k < s.length; k++) {
    if (s[k] === '(') depth++;
    else if (s[k] === ')' && --depth === 0) return k;
  }
  return -1;
}
