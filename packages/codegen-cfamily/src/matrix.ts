/**
 * A tensor tile's matrix instructions (`MatrixOp`, @loom/core's codegen/matrix-tiles.ts) in a
 * C-family language that has them: the dialect spells the fragments and instructions (CUDA's
 * `wmma`), this module hands it each operand printed (a pointer to the tile's first element,
 * the distance between its lines, its layout and element type).
 */
import { unreachable, type Fragment, type MatrixOp, type MatrixOperand } from '@loom/core';
import type { CExpressionPrinter } from './expressions.ts';

/** A tile in memory, printed: where it starts, how far apart its lines are, which axis is contiguous. */
export interface PrintedTile {
  /** A pointer to its first element (`a + (256 * i_outer)`). */
  readonly pointer: string;
  /** Elements between its rows (`'row'`) or columns (`'col'`). */
  readonly leading: number;
  readonly layout: 'row' | 'col';
  /** Its element type, as the language spells it (`__half`). */
  readonly type: string;
}

/** How a C-family language spells matrix instructions (absent where it has none: core refuses them first). */
export interface MatrixSpelling {
  /** The declaration of an array of `count` accumulator fragments of `shape` and element type `type`. */
  fragments(name: string, shape: Fragment['shape'], type: string, count: number): string;
  /** Fragment `fragment` (printed: `acc[0]`) set to `value`. */
  fill(fragment: string, value: string): string[];
  /** `fragment += a * b` for tiles `a` (m×k) and `b` (k×n) in memory. */
  multiply(fragment: string, shape: Fragment['shape'], a: PrintedTile, b: PrintedTile): string[];
  /** Fragment `fragment` stored into tile `c`. */
  store(fragment: string, c: PrintedTile): string[];
  /** What aligns a local array for matrix loads, with its trailing space (`__align__(32) `). */
  readonly alignedLocal: string;
}

/** The lines of one matrix instruction. */
export function printMatrixOp(op: MatrixOp, printer: CExpressionPrinter, spelling: MatrixSpelling): string[] {
  printer.usesMatrix = true;
  const fragment = `${op.accumulator.name}[${printer.print(op.accumulator.index, 'int32')}]`;
  const tile = (t: MatrixOperand): PrintedTile => ({
    pointer: `${t.array} + (${printer.print(t.offset, 'int32')})`,
    leading: t.leading,
    layout: t.layout,
    type: printer.dialect.type(t.dtype),
  });
  switch (op.kind) {
    case 'fill':
      // a float16 accumulator is filled from a float (as the language converts it)
      return spelling.fill(
        fragment,
        printer.print(op.value, op.accumulator.dtype === 'float16' ? 'float32' : op.accumulator.dtype),
      );
    case 'multiply':
      return spelling.multiply(fragment, op.accumulator.shape, tile(op.a), tile(op.b));
    case 'store':
      return spelling.store(fragment, tile(op.c));
    default:
      return unreachable(op, 'matrix instruction');
  }
}
