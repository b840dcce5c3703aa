/**
 * Copies of consecutive elements merged into 16-byte moves. A work-item that stages a tile in
 * local memory one element per statement (an unrolled loop over a line's consecutive elements)
 * issues one narrow load and store each; where the language can move 16 bytes at once
 * (`CDialect.wideCopy`), a run of copies (8 halves, 4 floats, ...) whose target and source
 * indices are consecutive and provably multiples of the run's length becomes one move. Both
 * arrays must start aligned (a device allocation, a local tile declared aligned:
 * `CExpressionPrinter.alignedArrays`), so that an index that is such a multiple is a 16-byte
 * aligned address. Asynchronous copies (async-copies.ts) merge the same way, into one 16-byte
 * asynchronous copy, never with plain ones.
 */
import { byteSize, expr as E, isNarrowFloat, type DType, type Expr, type Stmt } from '@loom/core';
import type { CExpressionPrinter } from './expressions.ts';
import { printWideAsyncCopy } from './async-copies.ts';

/** Bytes one wide move copies. */
const WIDE_BYTES = 16;

/** A statement copying one element into another array's as it is: the two arrays, their flat indices and dtype. */
function plainCopy(s: Stmt, printer: CExpressionPrinter) {
  if (s.kind !== 'assign' || s.atomic || s.vector) return undefined;
  const async = s.async === true;
  const { target, value, dtype } = s;
  if (target.kind !== 'subscript' || value.kind !== 'subscript' || target.field || value.field) return undefined;
  if (!printer.alignedArrays.has(target.array) || !printer.alignedArrays.has(value.array)) return undefined;
  // arrays of vectors, atomics and conversions move otherwise (an asynchronous copy addresses a
  // vector array's elements through a pointer to them, as its lane writes are printed)
  const vectors = (name: string) => printer.vectorWidths.get(name);
  if ((vectors(target.array) || vectors(value.array)) && !async) return undefined;
  if (vectors(target.array)?.packed || vectors(value.array)?.packed) return undefined;
  if (printer.atomicVariables.has(target.array) || printer.atomicVariables.has(value.array)) return undefined;
  if (printer.typeOfExpr(value) !== dtype) return undefined;
  // a buffer of a 16-bit float holds its bits; a temporary of one computed in float holds floats
  const stored = (name: string) => printer.narrowFloatBuffers.has(name);
  if (isNarrowFloat(dtype) && (!stored(target.array) || !stored(value.array))) return undefined;
  return { to: target.array, toIndex: target.indices[0], from: value.array, fromIndex: value.indices[0], dtype, async };
}

/** An element's bytes, where a copy of it moves as bytes (a bool is stored as the language decides). */
const bytesOf = (dtype: DType): number | undefined => (dtype === 'bool' ? undefined : byteSize(dtype));

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
 * The number of statements from `start` that one wide move replaces: as many copies as make 16
 * bytes where they are copies of consecutive elements from and to aligned places, else 0.
 */
export function wideCopyAt(statements: readonly Stmt[], start: number, printer: CExpressionPrinter): number {
  const first = plainCopy(statements[start], printer);
  const bytes = first && bytesOf(first.dtype);
  if (!first || !bytes || bytes >= WIDE_BYTES) return 0;
  // asynchronous copies merge into one of 16 bytes where the language issues such, others into a move
  const { asyncCopy, wideCopy } = printer.dialect;
  if (first.async ? !asyncCopy?.sizes.includes(WIDE_BYTES) : !wideCopy) return 0;
  const count = WIDE_BYTES / bytes;
  if (start + count > statements.length) return 0;
  const to = terms(first.toIndex);
  const from = terms(first.fromIndex);
  const aligned = (t: ReturnType<typeof terms>) =>
    t.constant % count === 0 && t.parts.every((p) => multipleOf(p, count));
  if (!aligned(to) || !aligned(from)) return 0;
  for (let k = 1; k < count; k++) {
    const next = plainCopy(statements[start + k], printer);
    if (!next || next.to !== first.to || next.from !== first.from || next.dtype !== first.dtype) return 0;
    if (next.async !== first.async) return 0;
    const t = terms(next.toIndex);
    const f = terms(next.fromIndex);
    if (!sameTerms(t.parts, to.parts) || !sameTerms(f.parts, from.parts)) return 0;
    if (t.constant !== to.constant + k || f.constant !== from.constant + k) return 0;
  }
  return count;
}

/** The wide move of the run that `wideCopyAt` found at `start`. */
export function printWideCopy(statements: readonly Stmt[], start: number, printer: CExpressionPrinter): string {
  const first = plainCopy(statements[start], printer)!;
  const toIndex = printer.print(first.toIndex, 'int32');
  const fromIndex = printer.print(first.fromIndex, 'int32');
  if (first.async) return printWideAsyncCopy(first.to, toIndex, first.from, fromIndex, first.dtype, printer);
  return printer.dialect.wideCopy!(first.to, toIndex, first.from, fromIndex);
}
