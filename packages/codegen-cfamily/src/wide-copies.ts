/**
 * Copies of halves merged into 16-byte moves. A work-item that stages a tile of halves in local
 * memory one element per statement (an unrolled loop over 8 consecutive elements) issues 8
 * two-byte loads and stores; where the language can move 16 bytes at once (`HalfStorageSpelling.
 * copyWide`), a run of 8 copies whose target and source indices are consecutive and provably
 * multiples of 8 becomes one move. Buffers start aligned (a device allocation, a local tile
 * declared aligned: the only local arrays held as halves are tiles that matrix instructions read),
 * so an index that is a multiple of 8 is a 16-byte aligned address.
 */
import { expr as E, type Expr, type Stmt } from '@loom/core';
import type { CExpressionPrinter } from './expressions.ts';

/** Halves a wide move copies. */
export const WIDE_COPY = 8;

type Assign = Extract<Stmt, { kind: 'assign' }>;

/** A statement copying one half buffer's element into another's as it is: its two arrays and flat indices. */
function halfCopy(s: Stmt, printer: CExpressionPrinter) {
  if (s.kind !== 'assign' || s.atomic || s.vector) return undefined;
  const { target, value } = s as Assign;
  if (target.kind !== 'subscript' || value.kind !== 'subscript') return undefined;
  if (!printer.halfBuffers.has(target.array) || !printer.halfBuffers.has(value.array)) return undefined;
  return { to: target.array, toIndex: target.indices[0], from: value.array, fromIndex: value.indices[0] };
}

/** The terms of a sum, its constants added up: `(8*x + (y + 3)) + 1` → [8*x, y], 4. */
function terms(e: Expr): { readonly parts: readonly Expr[]; readonly constant: number } {
  if (e.kind === 'int') return { parts: [], constant: e.value };
  if (e.kind === 'binary' && e.op === '+') {
    const l = terms(e.left);
    const r = terms(e.right);
    return { parts: [...l.parts, ...r.parts], constant: l.constant + r.constant };
  }
  return { parts: [e], constant: 0 };
}

/** Whether a term is a multiple of `m` whatever its names' values (`8 * x`, `40 * (y / 4)`). */
function multipleOf(e: Expr, m: number): boolean {
  if (e.kind === 'int') return e.value % m === 0;
  if (e.kind === 'binary' && e.op === '*')
    return (e.left.kind === 'int' && e.left.value % m === 0) || (e.right.kind === 'int' && e.right.value % m === 0);
  return false;
}

/** Whether two lists of terms are the same, in order. */
const sameTerms = (a: readonly Expr[], b: readonly Expr[]) =>
  a.length === b.length && a.every((x, k) => E.exprEquals(x, b[k]));

/**
 * The number of statements from `start` that one wide move replaces: `WIDE_COPY` where they are
 * copies of consecutive halves from and to aligned places, else 0.
 */
export function wideCopyAt(statements: readonly Stmt[], start: number, printer: CExpressionPrinter): number {
  if (!printer.dialect.halfStorage.copyWide || start + WIDE_COPY > statements.length) return 0;
  const first = halfCopy(statements[start], printer);
  if (!first) return 0;
  const to = terms(first.toIndex);
  const from = terms(first.fromIndex);
  const aligned = (t: ReturnType<typeof terms>) =>
    t.constant % WIDE_COPY === 0 && t.parts.every((p) => multipleOf(p, WIDE_COPY));
  if (!aligned(to) || !aligned(from)) return 0;
  for (let k = 1; k < WIDE_COPY; k++) {
    const next = halfCopy(statements[start + k], printer);
    if (!next || next.to !== first.to || next.from !== first.from) return 0;
    const t = terms(next.toIndex);
    const f = terms(next.fromIndex);
    if (!sameTerms(t.parts, to.parts) || !sameTerms(f.parts, from.parts)) return 0;
    if (t.constant !== to.constant + k || f.constant !== from.constant + k) return 0;
  }
  return WIDE_COPY;
}

/** The wide move of the run that `wideCopyAt` found at `start`. */
export function printWideCopy(statements: readonly Stmt[], start: number, printer: CExpressionPrinter): string {
  const first = halfCopy(statements[start], printer)!;
  const toIndex = printer.print(first.toIndex, 'int32');
  const fromIndex = printer.print(first.fromIndex, 'int32');
  return printer.dialect.halfStorage.copyWide!(first.to, toIndex, first.from, fromIndex);
}
