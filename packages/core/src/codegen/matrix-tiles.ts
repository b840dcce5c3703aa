/**
 * A tensor tile's instructions (`tensorize`) as matrix instructions of the program AST: the
 * accumulator filled, a product of two tiles added to it, the accumulator stored. What only a
 * target knows is checked here, before any code is written: that it has matrix instructions of
 * the tile's shape and dtypes, that every tile in memory has one axis contiguous with the other
 * a constant, 16-byte multiple apart and starts aligned (what CUDA's `load_matrix_sync` needs),
 * that the domain does not cut a tile at an edge, and that whole subgroups run each instruction.
 * Factors that an instruction reads as core matrices (Hopper's `wgmma`) are found by matrix-cores.ts.
 */
import { byteSize, isFloat, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { int, type Expr, type Subscript } from '../expr/nodes.ts';
import { freeVariables, fromLinear, printExpr, substitute, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { substitute as substituteInConstraint } from '../sets/constraint.ts';
import { domainOf } from '../kernel/domains.ts';
import type { Instruction, LoopKernel, TensorAxis } from '../kernel/model.ts';
import { ilpRange } from '../preprocess/privatize-ilp.ts';
import type { Fragment, MatrixOp, MatrixOperand, Stmt } from './ast.ts';
import { constraintsToCondition, withDim } from './conditions.ts';
import { coreOperand } from './matrix-cores.ts';
import type { MatrixShape, MatrixSupport } from './target.ts';

/** Bytes between rows of a tile in memory must be a multiple of this, and a tile's start aligned to twice it. */
const ROW_ALIGNMENT = 16;
const TILE_ALIGNMENT = 32;

/** What the device kernel builder knows that a matrix instruction needs. */
export interface MatrixContext {
  readonly knl: LoopKernel;
  /** The target's matrix instructions, and its name for messages. */
  readonly support: MatrixSupport;
  readonly target: string;
  /** The dtype of every array and name. */
  readonly types: ReadonlyMap<string, DType>;
  /** An array element's flat index, as the builder writes it (`a[i, j]` → `a[n*i + j]`). */
  readonly flatten: (e: Expr) => Expr;
  /** Index arithmetic simplified as the builder simplifies it. */
  readonly simplify: (e: Expr) => Expr;
  /** The work-group's size on local axis 0. */
  readonly lanesAxisSize: Expr;
  /** Local temporaries a matrix instruction reads or writes whole (declared aligned, in their own dtype). */
  readonly operands: Set<string>;
}

/** The matrix instruction that tensor-tile instruction `insn` is, under the guard it needs. */
export function matrixStatement(ctx: MatrixContext, insn: Instruction, enforced: BasicSet): Stmt[] {
  const { knl, support } = ctx;
  const where = `instruction '${insn.id}' (a tensor tile: tensorize)`;
  if ('refused' in support) throw new LoomError(`${where} cannot run on the ${ctx.target} target: ${support.refused}`);
  const tile = tileInames(knl, insn);
  if (insn.predicates.length)
    throw new LoomError(`${where} has predicates; a matrix instruction runs in every lane of its subgroup or in none`);
  const op = matrixOp(ctx, insn, tile, where);
  const lanes = ctx.lanesAxisSize;
  const together = op.accumulator.lanes;
  if (lanes.kind !== 'int' || lanes.value % together !== 0)
    throw new LoomError(
      `${where}: the work-group's local axis 0 has ${printExpr(lanes)} work-items, which must be a multiple of ${together}, so that each matrix instruction runs in all ${together} work-items that share it`,
    );
  const stmt: Stmt = { kind: 'matrix', op, insnId: insn.id };
  const guard = tileGuard(knl, insn, tile, enforced, where);
  return [guard ? { kind: 'if', condition: guard, then: stmt } : stmt];
}

/** The tile's inames an instruction is inside, by axis, with their extents. */
type TileInames = Partial<Record<TensorAxis, { readonly iname: string; readonly extent: number }>>;

function tileInames(knl: LoopKernel, insn: Instruction): TileInames {
  const tile: Record<string, { iname: string; extent: number }> = {};
  for (const n of insn.withinInames) {
    const tag = knl.inameTags.get(n);
    if (tag?.kind !== 'tensor') continue;
    if (tile[tag.axis])
      throw new LoomError(
        `instruction '${insn.id}' is inside two tile inames of axis ${tag.axis}: '${tile[tag.axis].iname}' and '${n}'`,
      );
    const { lo, hi } = ilpRange(knl, n);
    if (lo !== 0) throw new LoomError(`tile iname '${n}' must start at 0`);
    tile[tag.axis] = { iname: n, extent: hi + 1 };
  }
  return tile;
}

/**
 * The guard of a tile instruction: the domain's conditions on the inames outside the tile. A
 * condition on a tile iname would cut the tile, which one instruction computes whole, unless it
 * holds for the whole tile or none of it wherever the tile is (a partial round of a pipeline's
 * steps, `96 r + 32 s + 16 t + k < 512` for a tile of 16 along k): then it is its value at the
 * tile's first point.
 */
function tileGuard(knl: LoopKernel, insn: Instruction, tile: TileInames, enforced: BasicSet, where: string) {
  const domain = domainOf(knl, insn.withinInames, false, false);
  let context = domain.dims.reduce((set, d) => withDim(set, d), enforced);
  for (const t of Object.values(tile)) {
    const v = Linear.variable(t.iname);
    context = context.addConstraints([
      { kind: 'ge', expr: v },
      { kind: 'ge', expr: Linear.constant(t.extent - 1).sub(v) },
    ]);
  }
  const gisted = domain.gist(context);
  const inTile = Object.values(tile).map((t) => t.iname);
  const atFirstPoint = (c: Constraint) => inTile.reduce((x, n) => substituteInConstraint(x, n, Linear.constant(0)), c);
  const constraints = gisted.constraints.map((c) => {
    if (!inTile.some((n) => c.expr.dependsOn(n))) return c;
    if (c.kind === 'ge' && wholeOrNone(context, c, inTile)) return atFirstPoint(c);
    throw new LoomError(
      `${where}: the domain cuts the tile (${c.expr.toString()} ${c.kind === 'eq' ? '=' : '>='} 0), which one matrix instruction computes whole; make the sizes multiples of the tile (fixParameters, or assumptions such as 'n mod 16 = 0')`,
    );
  });
  return constraintsToCondition(
    BasicSet.fromConstraints(gisted.params, gisted.dims, constraints, gisted.existentials),
    insn,
  );
}

/**
 * Whether `c` holds at every point of the tile or at none, for each value of the other inames in
 * `context`: no two points of one tile (the tile inames primed for the second) with `c` at one and
 * not at the other.
 */
function wholeOrNone(context: BasicSet, c: Constraint, inTile: readonly string[]): boolean {
  const primed = inTile.reduce((set, n) => set.renameVariable(n, `${n}'`), context);
  const both = inTile.reduce((set, n) => withDim(set, n), primed).intersect(context);
  const other = inTile.reduce((x, n) => substituteInConstraint(x, n, Linear.variable(`${n}'`)), c);
  return both.addConstraints([c, { kind: 'ge', expr: other.expr.negate().sub(1) }]).isEmpty();
}

/** Which of fill, multiply and store the instruction is. */
function matrixOp(ctx: MatrixContext, insn: Instruction, tile: TileInames, where: string): MatrixOp {
  const { knl } = ctx;
  const accumulatorOf = (e: Expr): Subscript | undefined =>
    e.kind === 'subscript' && knl.temporaries.get(e.array)?.matrixAccumulator === true ? e : undefined;
  const assignee = insn.assignees[0];
  const value = insn.expression;
  const form = (what: string): never => {
    throw new LoomError(
      `${where} is ${what}; a tensor tile's instructions are 'acc[m, n] = 0', 'acc[m, n] = acc[m, n] + a[.., m, .., k, ..] * b[.., k, .., n, ..]' and 'c[.., m, .., n, ..] = acc[m, n]'`,
      insn.span,
    );
  };
  if (insn.kind !== 'assign' || !assignee || !value) return form('no assignment');
  const m = tile.m ?? form('outside a tile iname of axis m');
  const n = tile.n ?? form('outside a tile iname of axis n');
  const written = accumulatorOf(assignee);
  if (written) {
    const accumulatorShape = (k: number) => fragment(ctx, written, m, n, k, where);
    if (value.kind === 'binary' && value.op === '+' && accumulatorOf(value.left)?.array === written.array) {
      const k = tile.k ?? form('a sum outside a tile iname of axis k');
      const product = value.right;
      if (product.kind !== 'binary' || product.op !== '*') return form(`'${printExpr(value)}'`);
      const factors = [product.left, product.right].map(
        (f) =>
          elementRead(f, ctx.types) ??
          form(`'${printExpr(value)}' (each factor an array element, converted only to a wider float)`),
      );
      // (an index in core matrices, `a_fetch[m // 8, m % 8, ..]`, is no affine one)
      const uses = (s: Subscript, i: string) =>
        s.indices.some((x) => toLinear(x)?.dependsOn(i) ?? freeVariables(x).has(i));
      const a = factors.find((f) => uses(f, m.iname) && !uses(f, n.iname));
      const b = factors.find((f) => uses(f, n.iname) && !uses(f, m.iname));
      if (!a || !b || a === b) return form(`'${printExpr(value)}'`);
      const acc = accumulatorShape(k.extent);
      const shape = supportedShape(ctx, acc, a, knl.temporaries.get(written.array)?.matrixPrecision, where);
      const factor = shape.factors === 'core-matrices' ? coreOperand : operand;
      const operandA = factor(ctx, a, m.iname, k.iname, shape.operand, where);
      const operandB = factor(ctx, b, k.iname, n.iname, shape.operand, where);
      if (shape.kMajor) kMajorFactors(operandA, operandB, where);
      const precision = knl.temporaries.get(written.array)?.matrixPrecision;
      return {
        kind: 'multiply',
        accumulator: acc,
        a: operandA,
        b: operandB,
        ...(precision ? { precision } : {}),
        ...(precision && shape.truncatesTf32 ? { truncates: true as const } : {}),
      };
    }
    if (tile.k) return form('a sum that is not the accumulator plus a product');
    let literal = value;
    while (literal.kind === 'cast') literal = literal.operand;
    if (literal.kind !== 'int' && literal.kind !== 'float')
      return form(`'${printExpr(value)}' (an accumulator is filled with a constant)`);
    return { kind: 'fill', accumulator: accumulatorShape(tileReduction(knl, written.array)), value: literal };
  }
  let stored = value;
  while (stored.kind === 'cast') stored = stored.operand;
  const read = accumulatorOf(stored);
  if (!read || tile.k) return form(`'${printExpr(value)}'`);
  if (assignee.kind !== 'subscript') return form(`'${printExpr(assignee)}' written whole`);
  const acc = fragment(ctx, read, m, n, tileReduction(knl, read.array), where);
  const dtype = ctx.types.get(assignee.array)!;
  // rounded as it is stored, where the instruction's work-items store their own registers
  const { m: rows, n: columns, k } = acc.shape;
  const rounds =
    !('refused' in ctx.support) &&
    ctx.support.shapes.some((s) => s.m === rows && s.n === columns && s.k === k && s.storedAs?.includes(dtype));
  if (dtype !== acc.dtype && !rounds)
    throw new LoomError(
      `${where} stores the ${acc.dtype} accumulator into '${assignee.array}' of ${dtype}; a matrix instruction of this shape stores the accumulator's own dtype (store it into an array of ${acc.dtype} and convert that)`,
      insn.span,
    );
  return { kind: 'store', accumulator: acc, c: operand(ctx, assignee, m.iname, n.iname, dtype, where) };
}

/** The `k` of the products an accumulator adds up: the extent of the tile iname of axis k where it is multiplied into. */
function tileReduction(knl: LoopKernel, accumulator: string): number {
  for (const insn of knl.instructions) {
    const a = insn.assignees[0];
    if (a?.kind !== 'subscript' || a.array !== accumulator) continue;
    const k = insn.withinInames.find((n) => {
      const tag = knl.inameTags.get(n);
      return tag?.kind === 'tensor' && tag.axis === 'k';
    });
    if (k) return ilpRange(knl, k).hi + 1;
  }
  throw new LoomError(`the accumulator '${accumulator}' of a tensor tile is never multiplied into`);
}

/** The fragment an access of the accumulator names: the tile's axes last, one fragment per index of the axes before. */
function fragment(
  ctx: MatrixContext,
  access: Subscript,
  m: { iname: string; extent: number },
  n: { iname: string; extent: number },
  k: number,
  where: string,
): Fragment {
  const count = access.indices.length;
  const last = access.indices.slice(count - 2);
  const names = last.map((x) => (x.kind === 'var' ? x.name : undefined));
  if (count < 2 || names[0] !== m.iname || names[1] !== n.iname)
    throw new LoomError(
      `${where}: the accumulator is read as ${printExpr(access)}; its last two indices must be the tile's inames '${m.iname}' and '${n.iname}'`,
    );
  // with the tile's axes last and row-major, the flat index at the tile's first element counts whole tiles
  const first = ctx.flatten({ ...access, indices: [...access.indices.slice(0, count - 2), int(0), int(0)] });
  const flat = first.kind === 'subscript' ? first.indices[0] : int(0);
  const elements = m.extent * n.extent;
  const linear = toLinear(flat);
  if (!linear || linear.constant % elements !== 0 || [...linear.coeffs.values()].some((c) => c % elements !== 0))
    throw new LoomError(`${where}: the accumulator's tiles do not lie ${elements} elements apart (${printExpr(flat)})`);
  const index = fromLinear(linear.scale(1 / elements));
  const shape = { m: m.extent, n: n.extent, k };
  return { name: access.array, index, shape, dtype: ctx.types.get(access.array)!, lanes: lanesOf(ctx.support, shape) };
}

/** The work-items that run the target's matrix instructions of a tile shape together. */
function lanesOf(support: MatrixSupport, { m, n, k }: Fragment['shape']): number {
  if ('refused' in support) return 1;
  const shape = support.shapes.find((s) => s.m === m && s.n === n && s.k === k);
  return shape?.lanes ?? support.lanes;
}

/**
 * A LoomError unless both factors lie with their lines along k (a's rows, b's columns), as an
 * instruction that reads no factor transposed needs (`MatrixShape.kMajor`: Hopper's TF32).
 */
function kMajorFactors(a: MatrixOperand, b: MatrixOperand, where: string): void {
  const across = [a.layout === 'row' ? undefined : a.array, b.layout === 'col' ? undefined : b.array].find(Boolean);
  if (across)
    throw new LoomError(
      `${where}: the matrix instruction reads ${a.dtype} factors only with their lines along k, but '${across}' is stored with its lines across k; store it transposed (tagArrayAxes(knl, '${across}', 'N0,N1') on a 2-D tile), its copies then write it so`,
    );
}

/** The target's matrix instruction for an accumulator and the dtype of a factor. */
function supportedShape(
  ctx: MatrixContext,
  acc: Fragment,
  factor: Subscript,
  precision: 'tf32' | undefined,
  where: string,
): MatrixShape {
  const support = ctx.support as Exclude<MatrixSupport, { refused: string }>;
  const operandType = ctx.types.get(factor.array)!;
  const { m, n, k } = acc.shape;
  const fits = support.shapes.filter((s) => s.m === m && s.n === n && s.k === k);
  const shape = fits.find(
    (s) => s.operand === operandType && s.accumulators.includes(acc.dtype) && s.precision === precision,
  );
  if (shape) return shape;
  const rounded = (p: 'tf32' | undefined) => (p ? ` rounded to ${p}` : '');
  const known = support.shapes
    .map((s) => `${s.m}x${s.n}x${s.k} of ${s.operand}${rounded(s.precision)} into ${s.accumulators.join(' or ')}`)
    .join('; ');
  throw new LoomError(
    `${where}: the ${ctx.target} target has no matrix instruction for a ${m}x${n}x${k} tile of ${operandType}${rounded(precision)} into ${acc.dtype} (it has: ${known})`,
  );
}

/**
 * The array element a factor reads, through conversions that keep its value (to a float dtype at
 * least as wide): a matrix instruction multiplies the element itself, so a conversion that could
 * change it (`int32(a[i, k])`, `float16(x)` of a float32) is no tile's factor.
 */
function elementRead(e: Expr, types: ReadonlyMap<string, DType>): Subscript | undefined {
  const casts: string[] = [];
  let x = e;
  while (x.kind === 'cast') {
    casts.push(x.dtype);
    x = x.operand;
  }
  if (x.kind !== 'subscript') return undefined;
  const bits = (t: string) => (isFloat(t as DType) ? 8 * byteSize(t as DType) : 0);
  const own = bits(types.get(x.array) ?? '');
  return casts.every((t) => bits(t) >= own && own > 0) ? x : undefined;
}

/**
 * A tile in memory, with rows along `row` and columns along `col`: where it starts, which of
 * its axes is contiguous, and how far apart the other's lines are.
 */
function operand(
  ctx: MatrixContext,
  access: Subscript,
  row: string,
  col: string,
  dtype: DType,
  where: string,
): MatrixOperand {
  const { knl } = ctx;
  const temporary = knl.temporaries.get(access.array);
  const arg = knl.arg(access.array);
  if (temporary ? temporary.addressSpace !== 'local' : arg?.kind !== 'global')
    throw new LoomError(
      `${where}: '${access.array}' is ${temporary ? `a ${temporary.addressSpace} temporary` : `a ${arg?.kind} argument`}; matrix instructions load and store tiles of global arrays and local temporaries`,
    );
  if (ctx.types.get(access.array) !== dtype)
    throw new LoomError(
      `${where}: '${access.array}' holds ${ctx.types.get(access.array)}, where the matrix instruction needs ${dtype}`,
    );
  if (temporary) ctx.operands.add(access.array);
  const flat = ctx.flatten(access);
  const index = flat.kind === 'subscript' ? flat.indices[0] : int(0);
  const at = (r: number, c: number) =>
    substitute(
      index,
      new Map([
        [row, int(r)],
        [col, int(c)],
      ]),
    );
  const linear = toLinear(index);
  const first = ctx.simplify(at(0, 0));
  const firstLinear = toLinear(first);
  if (!linear || !firstLinear)
    throw new LoomError(
      `${where}: the tile of '${access.array}' is at ${printExpr(index)}, which is not affine in the tile's inames with constant coefficients; its lines must lie a constant distance apart (fix the sizes: fixParameters)`,
    );
  const rowStride = linear.coeff(row);
  const colStride = linear.coeff(col);
  const layout = colStride === 1 ? 'row' : rowStride === 1 ? 'col' : undefined;
  if (!layout)
    throw new LoomError(
      `${where}: the tile of '${access.array}' has neither its rows nor its columns contiguous (${printExpr(index)}: ${rowStride} between rows, ${colStride} between columns)`,
    );
  const leading = layout === 'row' ? rowStride : colStride;
  const bytes = byteSize(dtype);
  if ((leading * bytes) % ROW_ALIGNMENT !== 0)
    throw new LoomError(
      `${where}: the lines of the tile of '${access.array}' lie ${leading} elements apart, which is not a multiple of ${ROW_ALIGNMENT} bytes (pad the array)`,
    );
  const aligned = TILE_ALIGNMENT / bytes;
  if (firstLinear.constant % aligned !== 0 || [...firstLinear.coeffs.values()].some((c) => c % aligned !== 0))
    throw new LoomError(
      `${where}: the tile of '${access.array}' starts at ${printExpr(first)}, which is not always a multiple of ${aligned} elements (${TILE_ALIGNMENT} bytes) as matrix loads and stores need`,
    );
  return { array: access.array, offset: first, leading, layout, dtype };
}
