/**
 * Fragments: the text of a `domain` or `insn` template with interpolations done, and a
 * record of where each stretch of that text came from, so that a position in the text
 * (an error's caret) can be traced back to the template, and from there to the file.
 *
 * Interpolation is textual, with rules that keep it safe to read:
 *   - a number becomes a literal (`${16}` → `16`, `${-1}` → `(-1)`);
 *   - a string becomes a name, and must be one (`${'a'}` → `a`; `${'a b'}` is an error:
 *     splice text with a fragment instead);
 *   - a fragment of the same kind is spliced in (insn`...` inside insn`...`);
 *   - an array is its elements, names and numbers joined by `, `, fragments by lines.
 * Templates are read raw (as `String.raw` reads them): backslashes mean nothing in the
 * kernel language, and raw text maps column for column onto the source.
 */
import { LoomError } from '@loom/core';
import { layoutAt, lineAndColumn, type CallSite, type SourceLocation } from './source-location.ts';

export type FragmentKind = 'domain' | 'insn';

/** One tagged template as written: its literal pieces and where its tag stands. */
export class Template<K extends FragmentKind = FragmentKind> {
  #layout: ReturnType<typeof layoutAt> | null = null;

  constructor(
    readonly kind: K,
    readonly raw: readonly string[],
    private readonly site: () => CallSite | undefined,
  ) {}

  /** The template as written, with `${…}` for each interpolation. */
  get shape(): string {
    return this.raw.join('${…}');
  }

  /** Where character `offset` of literal piece `piece` is in the file, or in the template. */
  locate(piece: number, offset: number): TemplateLocation {
    const layout = this.layout();
    if (layout)
      return {
        ...lineAndColumn(layout.text, layout.pieceStarts[piece] + offset),
        file: layout.file,
        template: this.kind,
      };
    const before = this.raw.slice(0, piece).reduce((n, p) => n + p.length + '${…}'.length, 0);
    return { ...lineAndColumn(this.shape, before + offset), template: this.kind };
  }

  /** Where interpolation `index` (its `${`) is. */
  locateValue(index: number): TemplateLocation {
    const layout = this.layout();
    if (layout)
      return { ...lineAndColumn(layout.text, layout.valueStarts[index]), file: layout.file, template: this.kind };
    return this.locate(index, this.raw[index].length);
  }

  private layout() {
    if (this.#layout === null) {
      const site = this.site();
      this.#layout = site ? layoutAt(site, this.raw) : undefined;
    }
    return this.#layout;
  }
}

/**
 * A position an error points at: in a file when the template could be found there,
 * else (no `file`) a line and column counted inside the template's own text.
 */
export interface TemplateLocation extends Omit<SourceLocation, 'file'> {
  /** The file the template is in, when it could be found there. */
  readonly file?: string;
  /** Which tag made the template (`domain`, `insn`...). */
  readonly template: FragmentKind;
}

/** Where `text.slice(start, end)` came from: a literal piece (all of it), or an interpolated value. */
export type Segment =
  | { readonly start: number; readonly end: number; readonly template: Template; readonly piece: number }
  | { readonly start: number; readonly end: number; readonly template: Template; readonly value: number };

/** A piece of domain or instruction text made by a template tag (`domain`, `insn`). */
export class Fragment<K extends FragmentKind = FragmentKind> {
  constructor(
    /** Which tag made it. */
    readonly kind: K,
    /** The text, with the interpolated values in place. */
    readonly text: string,
    /** Where each part of the text came from, for error positions. */
    readonly segments: readonly Segment[],
  ) {}

  /** Where character `offset` of the text came from, if from a template. */
  locate(offset: number): TemplateLocation | undefined {
    const segment =
      this.segments.find((s) => s.start <= offset && offset < s.end) ?? this.segments.find((s) => s.end === offset);
    if (!segment) return undefined;
    return 'value' in segment
      ? segment.template.locateValue(segment.value)
      : segment.template.locate(segment.piece, offset - segment.start);
  }

  /** The text, so a fragment interpolates into a template or a string as what it says. */
  toString(): string {
    return this.text;
  }
}

/** A domain fragment (`domain`...``). */
export type DomainFragment = Fragment<'domain'>;
/** An instruction fragment (`insn`...``). */
export type InsnFragment = Fragment<'insn'>;

/** What may stand in `${...}`. */
export type Interpolation = number | bigint | string | Fragment | readonly Interpolation[];

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Builds the fragment for one use of a tag. */
export function interpolate<K extends FragmentKind>(template: Template<K>, values: readonly unknown[]): Fragment<K> {
  let text = '';
  const segments: Segment[] = [];
  template.raw.forEach((piece, k) => {
    segments.push({ start: text.length, end: text.length + piece.length, template, piece: k });
    text += piece;
    if (k === values.length) return;
    const at = text.length;
    const spliced = render(values[k], template, k);
    if (typeof spliced === 'string') {
      segments.push({ start: at, end: at + spliced.length, template, value: k });
      text += spliced;
    } else {
      segments.push(...shift(spliced.segments, at));
      text += spliced.text;
    }
  });
  return new Fragment(template.kind, text, segments);
}

/** The text of one interpolated value, or a fragment (text with its own origins). */
function render(value: unknown, template: Template, index: number): string | { text: string; segments: Segment[] } {
  const fail = (why: string): never => {
    throw templateError(`${template.kind} template: ${why}`, template.locateValue(index));
  };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(`cannot interpolate ${value}: only finite numbers become literals`);
    return value < 0 || Object.is(value, -0) ? `(${value})` : String(value);
  }
  if (typeof value === 'bigint') return value < 0n ? `(${value})` : String(value);
  if (typeof value === 'string') {
    if (!NAME.test(value))
      fail(
        `an interpolated string becomes a name, and ${JSON.stringify(value)} is not one (splice text with ${template.kind}\`...\`)`,
      );
    return value;
  }
  if (value instanceof Fragment) {
    if (value.kind !== template.kind)
      fail(`a ${value.kind} fragment cannot be spliced into a ${template.kind} template`);
    return { text: value.text, segments: [...value.segments] };
  }
  if (Array.isArray(value)) {
    const parts = value.map((v) => render(v, template, index));
    const separator = parts.length > 0 && parts.every((p) => typeof p !== 'string') ? '\n' : ', ';
    let text = '';
    const segments: Segment[] = [];
    parts.forEach((p, k) => {
      if (k > 0) text += separator;
      if (typeof p === 'string') {
        segments.push({ start: text.length, end: text.length + p.length, template, value: index });
        text += p;
      } else {
        segments.push(...shift(p.segments, text.length));
        text += p.text;
      }
    });
    return { text, segments };
  }
  // a kernel is called by the name the instructions write, the builder given to .calls()
  if (typeof value === 'object' && value !== null && typeof (value as { calls?: unknown }).calls === 'function')
    fail(
      `cannot interpolate ${describe(value)}: a kernel calls another by name; write the name (twice(...)) and pass the builder with .calls({ twice })`,
    );
  return fail(
    `cannot interpolate ${describe(value)}: use a number, a name (string), a ${template.kind} fragment or an array of these`,
  );
}

/** Segments of a text that now starts at `at` in a larger one. */
export function shift(segments: readonly Segment[], at: number): Segment[] {
  return segments.map((s) => ({ ...s, start: s.start + at, end: s.end + at }));
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  const name = typeof value === 'object' ? value.constructor?.name : undefined;
  if (!name || name === 'Object') return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return `a ${name}`;
}

/** A `LoomError` whose message ends with where in the source the problem is. */
export function templateError(message: string, location: TemplateLocation | undefined): LoomError {
  const error = new LoomError(location ? `${message}\n  ${describeLocation(location)}` : message);
  return Object.assign(error, { templateLocation: location });
}

/** `at examples/k.ts:12:15`, or `at line 2, column 9 of the insn template`. */
export function describeLocation(location: TemplateLocation): string {
  return location.file
    ? `at ${location.file}:${location.line}:${location.column}`
    : `at line ${location.line}, column ${location.column} of the ${location.template} template`;
}
