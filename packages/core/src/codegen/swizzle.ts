/**
 * Swizzled local arrays (`TemporaryVariable.swizzle`, transform/swizzle-array.ts): the flat index
 * of an access moved within its line as the hardware that reads such tiles expects. In bytes,
 * offset `o` lies at `o ^ (((o >> 7) % (span / 16)) << 4)`: the 16-byte units of each 128-byte line
 * are exchanged by the line's index (Swizzle<B, 4, 3> in CUTLASS's terms, B = log2(span / 16)), so
 * that 8 consecutive lines' units of one column fall in 8 different banks. The exchange is its own
 * inverse and never leaves the `span` bytes it starts in.
 */
import { binary, int, type Expr } from '../expr/nodes.ts';
import { exprEquals } from '../expr/analysis.ts';

/** The flat index `flat` of an array of `elementBytes` elements swizzled over `span` bytes. */
export function swizzleIndex(flat: Expr, span: number, elementBytes: number): Expr {
  const line = binary('//', flat, int(128 / elementBytes));
  const unit = binary('*', binary('%', line, int(span / 16)), int(16 / elementBytes));
  return binary('^', flat, unit);
}

/**
 * The index `swizzleIndex` swizzled, and its span, where `e` is one (the printers and the matrix
 * and copy analyses read a swizzled array's layout from it); undefined otherwise.
 */
export function unswizzleIndex(
  e: Expr,
  elementBytes: number,
): { readonly index: Expr; readonly span: number } | undefined {
  if (e.kind !== 'binary' || e.op !== '^') return undefined;
  const unit = e.right;
  if (unit.kind !== 'binary' || unit.op !== '*' || unit.right.kind !== 'int' || unit.right.value !== 16 / elementBytes)
    return undefined;
  const mod = unit.left;
  if (mod.kind !== 'binary' || mod.op !== '%' || mod.right.kind !== 'int') return undefined;
  const line = mod.left;
  if (
    line.kind !== 'binary' ||
    line.op !== '//' ||
    line.right.kind !== 'int' ||
    line.right.value !== 128 / elementBytes ||
    !exprEquals(line.left, e.left)
  )
    return undefined;
  return { index: e.left, span: mod.right.value * 16 };
}
