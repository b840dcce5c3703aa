/**
 * A tensor tile's matrix instructions (`MatrixOp`, @loom/core's codegen/matrix-tiles.ts) in a
 * C-family language that has them: the dialect spells the fragments and instructions (CUDA's
 * `wmma`), this module hands it each operand printed (a pointer to the tile's first element,
 * the distance between its lines, its layout and element type).
 */
import { InternalError, unreachable, type Expr, type Fragment, type MatrixOp, type MatrixOperand } from '@loom/core';
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
  /** Elements between its 8 x 8 core matrices down its rows and across its columns (`MatrixOperand.cores`); absent: a tile in lines. */
  readonly cores?: { readonly rows: number; readonly columns: number };
  /** A tile of a swizzled array: its span in bytes and the elements between its blocks of lines (`MatrixOperand.swizzle`). */
  readonly swizzle?: { readonly span: number; readonly blocks: number };
  /**
   * Every pair of elements (2e, 2e + 1) of a line starts at a multiple of two elements' bytes (the array
   * starts aligned, the tile at an even element, its lines an even number apart): such a pair is one store.
   */
  readonly evenPairs?: boolean;
}

/** One product of a run: the fragment it adds to (printed: `acc[0]`) and its tiles' indices in the run's lists. */
export interface PrintedProduct {
  readonly fragment: string;
  readonly a: number;
  readonly b: number;
}

/** How a C-family language spells matrix instructions (absent where it has none: core refuses them first). */
export interface MatrixSpelling {
  /** The declaration of an array of `count` accumulator fragments of `shape` (held by `lanes` work-items) and element type `type`. */
  fragments(name: string, shape: Fragment['shape'] & { readonly lanes: number }, type: string, count: number): string;
  /** Fragment `fragment` (printed: `acc[0]`) of `accumulator` set to `value`. */
  fill(fragment: string, value: string, accumulator: Fragment): string[];
  /**
   * A run of products `fragment += a * b`, each of tiles `a` (m×k) and `b` (k×n) in memory from
   * the lists `as` and `bs`, which hold each distinct tile once: it is loaded once.
   */
  multiply(
    shape: Fragment['shape'],
    as: readonly PrintedTile[],
    bs: readonly PrintedTile[],
    products: readonly PrintedProduct[],
    precision: 'tf32' | undefined,
    use: (helper: { readonly name: string; readonly definition: string }) => void,
  ): string[];
  /** Fragment `fragment` of `accumulator` stored into tile `c`. */
  store(fragment: string, c: PrintedTile, accumulator: Fragment): string[];
  /** What aligns a local array for matrix loads, with its trailing space (`__align__(32) `). */
  readonly alignedLocal: string;
  /**
   * The statements printed before every barrier of a program whose products read core matrices
   * (CUDA's `wgmma`): the wait for the products still in flight, which read local memory the
   * barrier lets others overwrite, but for the latest `groups` runs of them (products-in-flight.ts:
   * a pipeline's products that read buffers nothing refills before the next barrier), and the
   * fence that makes what ordinary stores wrote visible to the instructions, which read it through
   * another path (`fence.proxy.async`); absent where none is needed.
   */
  factorsFence?(groups: number): readonly string[];
}

/** The lines of one matrix instruction, or of a run of products (all `multiply`, of one shape). */
export function printMatrixOp(
  ops: readonly MatrixOp[],
  printer: CExpressionPrinter,
  spelling: MatrixSpelling,
): string[] {
  printer.usesMatrix = true;
  const fragmentOf = (op: MatrixOp) => `${op.accumulator.name}[${printer.print(op.accumulator.index, 'int32')}]`;
  const tile = (t: MatrixOperand): PrintedTile => ({
    pointer: `${t.array} + (${printer.print(t.offset, 'int32')})`,
    leading: t.leading,
    layout: t.layout,
    type: printer.dialect.type(t.dtype),
    ...(t.cores ? { cores: t.cores } : {}),
    ...(t.swizzle ? { swizzle: t.swizzle } : {}),
    ...(evenPairs(t, printer) ? { evenPairs: true } : {}),
  });
  const op = ops[0];
  if (ops.length > 1 && ops.some((o) => o.kind !== 'multiply'))
    throw new InternalError('only products of tiles are printed as a run');
  switch (op.kind) {
    case 'fill':
      // a float16 accumulator is filled from a float (as the language converts it)
      return spelling.fill(
        fragmentOf(op),
        printer.print(op.value, op.accumulator.dtype === 'float16' ? 'float32' : op.accumulator.dtype),
        op.accumulator,
      );
    case 'multiply': {
      const as: PrintedTile[] = [];
      const bs: PrintedTile[] = [];
      const indexIn = (list: PrintedTile[], t: PrintedTile) => {
        const found = list.findIndex(
          (x) => x.pointer === t.pointer && x.leading === t.leading && x.layout === t.layout,
        );
        return found >= 0 ? found : list.push(t) - 1;
      };
      const products = (ops as Extract<MatrixOp, { kind: 'multiply' }>[]).map((o) => {
        const [x, y] = [o.accumulator.shape, op.accumulator.shape];
        if (x.m !== y.m || x.n !== y.n || x.k !== y.k)
          throw new InternalError('a run of products of tiles of different shapes');
        if (o.precision !== op.precision) throw new InternalError('a run of products of different precisions');
        return { fragment: fragmentOf(o), a: indexIn(as, tile(o.a)), b: indexIn(bs, tile(o.b)) };
      });
      return spelling.multiply(op.accumulator.shape, as, bs, products, op.precision, (helper) =>
        printer.useHelper(helper),
      );
    }
    case 'store':
      return spelling.store(fragmentOf(op), tile(op.c), op.accumulator);
    default:
      return unreachable(op, 'matrix instruction');
  }
}

/** Whether tile `t` starts at an even element of an aligned array, its lines an even number of elements apart. */
function evenPairs(t: MatrixOperand, printer: CExpressionPrinter): boolean {
  return printer.alignedArrays.has(t.array) && t.leading % 2 === 0 && even(t.offset);
}

/** Whether `e` is even whatever its names' values (a sum of even terms; a product with an even factor). */
function even(e: Expr): boolean {
  if (e.kind === 'int') return e.value % 2 === 0;
  if (e.kind === 'neg') return even(e.operand);
  if (e.kind !== 'binary') return false;
  if (e.op === '+' || e.op === '-') return even(e.left) && even(e.right);
  return e.op === '*' && (even(e.left) || even(e.right));
}
