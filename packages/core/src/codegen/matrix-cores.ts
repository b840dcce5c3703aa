/**
 * Factors in core matrices: how matrix instructions that read their factors from local memory
 * through a descriptor (Hopper's warpgroup instructions, `wgmma`: `MatrixShape.factors`) find a
 * tile. Such an instruction does not take a tile's lines at some distance apart, as WMMA's loads
 * do, but 8 x 8 blocks of 16-bit elements, each 128 contiguous bytes (8 lines of 16 bytes, the
 * "core matrices"), the blocks a constant distance apart along each axis of the tile. Loom lays a
 * local array out so with its own transformations: an axis split by 8 each way and the four axes
 * nested as the blocks need,
 *
 *     splitArrayAxis(knl, 'a_fetch', 0, 8)              a_fetch[r, c] -> a_fetch[r // 8, r % 8, c]
 *     splitArrayAxis(knl, 'a_fetch', 2, 8)              -> a_fetch[r // 8, r % 8, c // 8, c % 8]
 *     tagArrayAxes(knl, 'a_fetch', 'N3,N1,N2,N0')       blocks row after row, each block's 64 elements together
 *
 * and this module reads the tile's layout back from the flat index an access becomes: a sum of
 * terms, each the tile's row or column iname `t` (or `t // 8`, `t % 8`, of `t` plus a multiple of 8)
 * times a constant, plus terms that do not depend on the tile. Nothing is assumed: a layout that is
 * not core matrices is refused, with the transformations that make it one.
 */
import { byteSize, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { int, type Expr, type Subscript } from '../expr/nodes.ts';
import { freeVariables, printExpr, substitute, toLinear } from '../expr/index.ts';
import type { MatrixOperand } from './ast.ts';
import type { MatrixContext } from './matrix-tiles.ts';
import { unswizzleIndex } from './swizzle.ts';

/** Elements along each side of a core matrix of 16-bit elements (8 lines of 16 bytes). */
const CORE = 8;
/** The largest distance between core matrices a descriptor holds: 14 bits of 16-byte units. */
const MOST_BYTES = (2 ** 14 - 1) * 16;

/** How one of the tile's inames moves the flat index: by itself, through `// 8` and through `% 8`. */
interface Moves {
  linear: number;
  blocks: number;
  within: number;
}

/**
 * The tile an access of a local array reads, in core matrices: rows along `row`, columns along
 * `col` (`a[m, k]`: m and k; `b[k, n]`: k and n), each core matrix's lines along the contiguous
 * axis (`layout`), and the elements between neighbouring core matrices down the rows and across
 * the columns (`cores`).
 */
export function coreOperand(
  ctx: MatrixContext,
  access: Subscript,
  row: string,
  col: string,
  dtype: DType,
  where: string,
): MatrixOperand {
  const temporary = ctx.knl.temporaries.get(access.array);
  if (temporary?.addressSpace !== 'local')
    throw new LoomError(
      `${where}: '${access.array}' is ${temporary ? `a ${temporary.addressSpace} temporary` : 'an argument'}; the ${ctx.target} target's matrix instructions of this shape read their factors from local memory (prefetch them into local temporaries)`,
    );
  if (ctx.types.get(access.array) !== dtype || ![2, 4].includes(byteSize(dtype)))
    throw new LoomError(
      `${where}: '${access.array}' holds ${ctx.types.get(access.array)}, where the matrix instruction needs ${dtype} in core matrices of 16-bit or 32-bit elements`,
    );
  ctx.operands.add(access.array);
  const flat = ctx.flatten(access);
  const stored = flat.kind === 'subscript' ? flat.indices[0] : int(0);
  const swizzled = unswizzleIndex(stored, byteSize(dtype));
  if (swizzled) return swizzledOperand(ctx, access.array, swizzled.index, swizzled.span, row, col, dtype, where);
  // core matrices of 32-bit elements are 8 lines of 4: Loom reads them only as swizzled lines
  if (byteSize(dtype) !== 2)
    throw new LoomError(
      `${where}: the tile of '${access.array}' (${dtype}) must be stored swizzled for the matrix instruction to read it: swizzleArray(knl, '${access.array}', 128), its rows lines of 32 elements`,
    );
  const index = stored;
  const refuse = (why: string): never => {
    throw new LoomError(
      `${where}: the tile of '${access.array}' (at ${printExpr(index)}) is not laid out in core matrices: ${why}. The matrix instruction reads 8 x 8 blocks of 128 contiguous bytes; lay the array out so: splitArrayAxis(knl, '${access.array}', 0, 8); splitArrayAxis(knl, '${access.array}', 2, 8); tagArrayAxes(knl, '${access.array}', 'N3,N1,N2,N0')`,
    );
  };
  const moves = new Map<string, Moves>([
    [row, { linear: 0, blocks: 0, within: 0 }],
    [col, { linear: 0, blocks: 0, within: 0 }],
  ]);
  const why = collectMoves(index, 1, moves);
  if (why) refuse(why);
  // t itself is 8 * (t // 8) + t % 8
  const [r, c] = [row, col].map((n) => {
    const m = moves.get(n)!;
    return { blocks: m.blocks + CORE * m.linear, within: m.within + m.linear };
  });
  const layout = c.within === 1 && r.within === CORE ? 'row' : r.within === 1 && c.within === CORE ? 'col' : undefined;
  if (!layout)
    refuse(
      `one axis must be contiguous and the other ${CORE} elements a step within a block (here ${r.within} a row and ${c.within} a column)`,
    );
  for (const [axis, step] of [
    ['rows', r.blocks],
    ['columns', c.blocks],
  ] as const) {
    const bytes = step * byteSize(dtype);
    if (step <= 0 || step % (CORE * CORE) !== 0 || bytes > MOST_BYTES)
      refuse(
        `its blocks lie ${step} elements apart down the ${axis}, which must be a positive multiple of ${CORE * CORE} (whole blocks) and at most ${MOST_BYTES} bytes`,
      );
  }
  const first = tileStart(ctx, index, row, col);
  const start = toLinear(first);
  if (!start || start.constant % CORE !== 0 || [...start.coeffs.values()].some((k) => k % CORE !== 0))
    refuse(`it starts at ${printExpr(first)}, which must be a multiple of ${CORE} elements (16 bytes)`);
  return {
    array: access.array,
    offset: first,
    leading: CORE,
    layout: layout!,
    dtype,
    cores: { rows: r.blocks, columns: c.blocks },
  };
}

/**
 * Adds to `moves` how `e` (times `scale`) moves with the tile's inames; returns why it cannot be
 * read so, or undefined. Terms without the tile's inames are the tile's start, found apart.
 */
function collectMoves(e: Expr, scale: number, moves: Map<string, Moves>, unit = CORE): string | undefined {
  const tile = [...moves.keys()];
  const mentions = (x: Expr) => tile.some((n) => freeVariables(x).has(n));
  if (!mentions(e)) return undefined;
  switch (e.kind) {
    case 'var':
      moves.get(e.name)!.linear += scale;
      return undefined;
    case 'neg':
      return collectMoves(e.operand, -scale, moves, unit);
    case 'binary': {
      const constant = (x: Expr) => (x.kind === 'int' ? x.value : undefined);
      switch (e.op) {
        case '+':
          return collectMoves(e.left, scale, moves, unit) ?? collectMoves(e.right, scale, moves, unit);
        case '-':
          return collectMoves(e.left, scale, moves, unit) ?? collectMoves(e.right, -scale, moves, unit);
        case '*': {
          const [k, x] = constant(e.left) !== undefined ? [constant(e.left)!, e.right] : [constant(e.right), e.left];
          return k === undefined ? `${printExpr(e)} is no constant multiple` : collectMoves(x, scale * k, moves, unit);
        }
        case '//':
        case '%': {
          if (constant(e.right) !== unit) return `${printExpr(e)} splits by ${printExpr(e.right)}, not ${unit}`;
          // (t + 8y) // 8 is t // 8 + y, and (t + 8y) % 8 is t % 8, for any integer y
          const linear = toLinear(e.left);
          const inames = tile.filter((n) => linear?.dependsOn(n));
          if (!linear || inames.length !== 1 || linear.coeff(inames[0]) !== 1)
            return `${printExpr(e)} is not one tile iname plus a multiple of ${unit}`;
          const others = [...linear.coeffs].filter(([n]) => n !== inames[0]).map(([, k]) => k);
          if (linear.constant % unit !== 0 || others.some((k) => k % unit !== 0))
            return `${printExpr(e)} is not one tile iname plus a multiple of ${unit}`;
          const m = moves.get(inames[0])!;
          if (e.op === '//') m.blocks += scale;
          else m.within += scale;
          return undefined;
        }
        default:
          return `${printExpr(e)} is no sum of the tile's inames`;
      }
    }
    default:
      return `${printExpr(e)} is no sum of the tile's inames`;
  }
}

/**
 * A tile of a swizzled array (`swizzleArray`): lines of `span` bytes (P elements), one a row along the
 * axis that is not contiguous, the contiguous axis within a line (and, past P, in blocks of lines
 * `blocks` elements apart): the canonical layouts Hopper's descriptors read with swizzling, 8 lines
 * (`8 * span` bytes) to a repeat. The tile must start at a line that begins a repeat; a start within
 * a line moves along the contiguous axis by whole 16-element steps (a product's k), which the
 * hardware adds before it swizzles, as it does for the lines. The tile stays within its line: a row
 * of the tile is one line of the array, and the accesses are within the array's axes (a contiguous
 * axis longer than a line is in blocks, which the start reaches through `//` and `%`, refused here).
 */
function swizzledOperand(
  ctx: MatrixContext,
  array: string,
  index: Expr,
  span: number,
  row: string,
  col: string,
  dtype: DType,
  where: string,
): MatrixOperand {
  const line = span / byteSize(dtype);
  const refuse = (why: string): never => {
    throw new LoomError(
      `${where}: the tile of '${array}' (at ${printExpr(index)}, swizzled over ${span} bytes) is not laid out as the matrix instruction reads a swizzled tile: ${why}. Lay it out in lines of ${line} elements, one a row of the tile (for a factor whose contiguous axis is longer, split it by ${line} and put the blocks outermost: splitArrayAxis(knl, '${array}', 1, ${line}); tagArrayAxes(knl, '${array}', 'N1,N2,N0'))`,
    );
  };
  const moves = new Map<string, Moves>([
    [row, { linear: 0, blocks: 0, within: 0 }],
    [col, { linear: 0, blocks: 0, within: 0 }],
  ]);
  const why = collectMoves(index, 1, moves, line);
  if (why) refuse(why);
  const [r, c] = [moves.get(row)!, moves.get(col)!];
  const contiguous = (m: Moves) => m.linear + m.within === 1 && (m.linear === 0 || m.within === 0);
  const lines = (m: Moves) => m.linear === line && m.blocks === 0 && m.within === 0;
  const layout = contiguous(c) && lines(r) ? 'row' : contiguous(r) && lines(c) ? 'col' : undefined;
  if (!layout)
    refuse(
      `one axis must be contiguous and the other a line (${line} elements) a step (here ${r.linear || r.within} a row and ${c.linear || c.within} a column)`,
    );
  const blocks = layout === 'row' ? c.blocks : r.blocks;
  const first = tileStart(ctx, index, row, col);
  const start = toLinear(first);
  const repeat = 8 * line;
  const inLine = (k: number) => ((k % repeat) + repeat) % repeat;
  // a step of an instruction's k along a line: 32 bytes (16 halves, 8 floats)
  const step = 32 / byteSize(dtype);
  if (
    !start ||
    [start.constant, ...start.coeffs.values()].some(
      (k) => inLine(k) % step !== 0 || (inLine(k) >= line && k % repeat !== 0),
    )
  )
    refuse(
      `it starts at ${printExpr(first)}, which must be whole repeats of 8 lines (${repeat} elements) plus whole steps of ${step} elements along a line`,
    );
  return {
    array,
    offset: first,
    leading: line,
    layout: layout!,
    dtype,
    swizzle: { span, blocks },
  };
}

/** The flat index of a tile's first element: `index` at row and column 0. */
function tileStart(ctx: MatrixContext, index: Expr, row: string, col: string): Expr {
  return ctx.simplify(
    substitute(
      index,
      new Map([
        [row, int(0)],
        [col, int(0)],
      ]),
    ),
  );
}
