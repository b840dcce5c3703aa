/**
 * Where a tagged template sits in its source file, so that an error in a kernel's text
 * can name the file, line and column the user wrote it at.
 *
 * A template only knows its own text. Its position comes from a stack trace taken when
 * the tag ran (tsx and Node's source maps give positions in the TypeScript source),
 * which points at the tag expression; the template's literal pieces are then found in
 * the file itself, after the backtick that follows the tag. `loom typegen`, which reads
 * the file anyway, gives the position directly. Everything here runs only when an error
 * is reported, and any doubt (no stack frame, a file that cannot be read, text that does
 * not line up) gives `undefined`: the caller then falls back to a position inside the
 * template.
 *
 * Node's `fs` is reached through `process.getBuiltinModule`, not imported, so that the
 * DSL also loads in a browser (where positions stay inside the template).
 */
import { LruCache } from '@loom/core';

/** A 1-based line and column, as editors and stack traces count them. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** The position of a tag expression (`insn` in ``insn`...` ``), 1-based. */
export type CallSite = SourceLocation;

const FRAME = /\(?((?:file:\/\/)?\/[^()]*?|[A-Za-z]:\\[^()]*?):(\d+):(\d+)\)?$/;

/**
 * The first frame of `trace` outside the files in `skip` (the tag functions themselves):
 * the template's call site.
 */
export function callSiteOf(trace: Error, skip: readonly string[]): CallSite | undefined {
  for (const frame of (trace.stack ?? '').split('\n').slice(1)) {
    const m = FRAME.exec(frame.trim());
    if (!m) continue;
    const file = pathOf(m[1]);
    if (skip.includes(file)) continue;
    return { file, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

/** Where each literal piece of a template starts in its file (offsets into the file text). */
export interface TemplateLayout {
  readonly file: string;
  readonly text: string;
  readonly pieceStarts: readonly number[];
  /** Where each interpolation `${...}` starts (at the `$`). */
  readonly valueStarts: readonly number[];
}

/** A file path from a stack frame's location or a module URL (`file:///a/b.ts` → `/a/b.ts`). */
export function pathOf(location: string): string {
  if (!location.startsWith('file://')) return location;
  const path = decodeURIComponent(new URL(location).pathname);
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}

const SOURCE_FILES_KEPT = 32;

type FileSystem = { readFileSync(path: string, encoding: 'utf8'): string };
const nodeFs = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule?.(
  'node:fs',
) as FileSystem | undefined;
/** Source files read to place template errors (null: unreadable); a few, the recently used. */
const files = new LruCache<string, string | null>(SOURCE_FILES_KEPT);

function readSource(file: string): string | undefined {
  const text = files.memo(file, () => {
    try {
      return nodeFs?.readFileSync(file, 'utf8') ?? null;
    } catch {
      return null;
    }
  });
  return text ?? undefined;
}

/** Finds the template whose tag starts at `site` and checks that its pieces are `raw`. */
export function layoutAt(site: CallSite, raw: readonly string[]): TemplateLayout | undefined {
  const text = readSource(site.file);
  if (text === undefined) return undefined;
  const tagStart = offsetOf(text, site.line, site.column);
  if (tagStart === undefined) return undefined;
  const backtick = text.indexOf('`', tagStart);
  if (backtick < 0) return undefined;
  const pieceStarts: number[] = [];
  const valueStarts: number[] = [];
  let at = backtick + 1;
  for (let k = 0; k < raw.length; k++) {
    if (text.slice(at, at + raw[k].length) !== raw[k]) return undefined;
    pieceStarts.push(at);
    at += raw[k].length;
    if (k === raw.length - 1) break;
    if (!text.startsWith('${', at)) return undefined;
    valueStarts.push(at);
    const close = closingBrace(text, at + 2);
    if (close === undefined) return undefined;
    at = close + 1;
  }
  return text[at] === '`' ? { file: site.file, text, pieceStarts, valueStarts } : undefined;
}

/** The 1-based line and column of an offset into `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

function offsetOf(text: string, line: number, column: number): number | undefined {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    offset = text.indexOf('\n', offset) + 1;
    if (offset === 0) return undefined;
  }
  return offset + column - 1;
}

/**
 * The `}` closing an interpolation whose expression starts at `from`. Strings, nested
 * templates and braces inside the expression are skipped; comments are not expected.
 */
function closingBrace(text: string, from: number): number | undefined {
  let depth = 0;
  for (let k = from; k < text.length; k++) {
    const c = text[k];
    if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return k;
      depth--;
    } else if (c === '"' || c === "'") {
      k = endOfString(text, k, c);
    } else if (c === '`') {
      k = endOfTemplate(text, k);
    }
    if (k < 0) return undefined;
  }
  return undefined;
}

function endOfString(text: string, start: number, quote: string): number {
  for (let k = start + 1; k < text.length; k++) {
    if (text[k] === '\\') k++;
    else if (text[k] === quote) return k;
  }
  return -1;
}

function endOfTemplate(text: string, start: number): number {
  for (let k = start + 1; k < text.length; k++) {
    if (text[k] === '\\') k++;
    else if (text[k] === '`') return k;
    else if (text.startsWith('${', k)) {
      const close = closingBrace(text, k + 2);
      if (close === undefined) return -1;
      k = close;
    }
  }
  return -1;
}
