/**
 * `tensorize(knl, { m, n, k })`: a tile of a matrix product computed by the target's matrix
 * instructions (tensor cores), in the spirit of TVM's `tensorize`. The reduction
 *
 *     c[i, j] = sum((k_outer, k_t), a[i, k] * b[k, j])        i = 16*i_outer + i_t, ...
 *
 * with the inames `i_t`, `j_t`, `k_t` of a 16x16x16 tile becomes three instructions on an
 * accumulator tile `acc[i_t, j_t]` that the lanes of a subgroup (a warp) hold together in their
 * registers:
 *
 *     acc[i_t, j_t] = 0                                          (ID_init)
 *     acc[i_t, j_t] = acc[i_t, j_t] + a[i, k] * b[k, j]          (ID_update, inside k_outer)
 *     c[i, j] = acc[i_t, j_t]                                    (ID)
 *
 * and the tile's inames are tagged `tensor.m`, `tensor.n` and `tensor.k`: they are no loops, and
 * each instruction is one matrix instruction (CUDA's `wmma::fill_fragment`, `mma_sync` with its
 * two tile loads, `store_matrix_sync`). Every lane of a subgroup runs each of them: they run
 * inside a new iname (`lane`, 32 values on local axis 0) that they are not indexed by, since
 * each lane holds a part of the tile. The product must be inside no other iname of local axis
 * 0; other local axes (`l.1`) tell a work-group's subgroups apart.
 *
 * What the instructions compute is what they say, element by element; the matrix instruction
 * multiplies exactly and adds in the accumulator's dtype, in its own order. Code generation
 * checks what only a target knows: that it has the tile's shape and dtypes, that the tiles are
 * laid out as its loads need (one axis contiguous, rows a multiple of 16 bytes apart, aligned),
 * and that the domain does not cut the tile at an edge. Targets without matrix instructions
 * refuse the kernel; the CPU device, the reference, writes each instruction out as its loops.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { binary, int, subscript, variable, type Expr, type Subscript } from '../expr/nodes.ts';
import { freeVariables, printExpr } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, staticMax, staticMin } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import { expandSubstitutions } from '../kernel/accesses.ts';
import {
  tagToString,
  type InameTag,
  type Instruction,
  type LoopKernel,
  type TemporaryVariable,
} from '../kernel/model.ts';
import { kernelNamer } from '../kernel/rename.ts';
import { instructionsWithin, type Within } from './match.ts';

/** The options tensorize reads; any other key is an error. */
const TENSORIZE_OPTIONS = optionKeys<TensorizeOptions>()(['within', 'accumulator', 'lanes', 'laneIname', 'precision']);

/** The inames of one tile of a product: its rows, its columns and the reduction between them. */
export interface TensorTile {
  /** Rows of the product (of `c` and `a`). */
  readonly m: string;
  /** Columns of the product (of `c` and `b`). */
  readonly n: string;
  /** The reduction (columns of `a`, rows of `b`). */
  readonly k: string;
}

/** Options of `tensorize`. */
export interface TensorizeOptions {
  /** Which instruction to tensorize, where more than one reduces over `k` (a match expression). */
  readonly within?: Within;
  /** The accumulator temporary's name (default `acc`, made unique). */
  readonly accumulator?: string;
  /** How many work-items run a matrix instruction together: the subgroup's width (default 32, a warp). */
  readonly lanes?: number;
  /** The name of the lane iname made when no iname runs on local axis 0 (default `lane`, made unique). */
  readonly laneIname?: string;
  /**
   * `'tf32'`: float32 factors taken as TF32 (a 10-bit mantissa, as NVIDIA's tensor cores take
   * float32) before they are multiplied, exactly, and added in float32: faster, and no longer the
   * products the kernel writes, so only where asked. Warp tiles round them to nearest (Loom converts
   * them as it loads them); Hopper's warpgroup tiles (`lanes: 128`) drop their 13 low bits, as the
   * instruction reads floats from local memory; every device computes the same. Default: the
   * factors as they are.
   */
  readonly precision?: 'tf32';
}

/**
 * Computes a tile of a sum of products with matrix instructions (see the file's comment).
 * ```ts
 * knl = splitIname(knl, 'i', 16, { outerTag: 'g.1' });   // i_inner: the tile's rows
 * knl = splitIname(knl, 'j', 16, { outerTag: 'g.0' });   // j_inner: its columns
 * knl = splitIname(knl, 'k', 16);                        // k_inner: its reduction
 * knl = tensorize(knl, { m: 'i_inner', n: 'j_inner', k: 'k_inner' });
 * ```
 */
export function tensorize(knl: LoopKernel, tile: TensorTile, options: TensorizeOptions = {}): LoopKernel {
  checkOptionKeys('tensorize', options, TENSORIZE_OPTIONS);
  if (options.precision !== undefined && options.precision !== 'tf32')
    throw new LoomError(`tensorize: precision must be 'tf32' or absent, got ${JSON.stringify(options.precision)}`);
  const axes = ['m', 'n', 'k'] as const;
  for (const axis of axes) {
    const name = tile?.[axis];
    if (typeof name !== 'string')
      throw new LoomError(`tensorize: the tile needs an iname for '${axis}' ({ m, n, k }), got ${String(name)}`);
    if (!knl.inames.includes(name))
      throw new LoomError(`tensorize: unknown iname '${name}' for '${axis}' (inames: ${knl.inames.join(', ')})`);
    const tag = knl.inameTags.get(name);
    if (tag && tag.kind !== 'for')
      throw new LoomError(
        `tensorize: iname '${name}' is tagged ${tagToString(tag)}; the tile's inames must be plain loops`,
      );
  }
  if (new Set(axes.map((a) => tile[a])).size !== 3)
    throw new LoomError('tensorize: the tile needs three different inames');
  const extents = Object.fromEntries(axes.map((a) => [a, tileExtent(knl, tile[a], a)])) as Record<
    (typeof axes)[number],
    number
  >;
  const lanes = options.lanes ?? 32;
  if (!Number.isInteger(lanes) || lanes < 1)
    throw new LoomError(`tensorize: lanes must be a positive integer, got ${lanes}`);

  const insn = tiledReduction(knl, tile, options.within);
  // the tile's inames stop being loops: nothing else may run in them
  const sharing = knl.instructions.find(
    (i) => i.id !== insn.id && axes.some((axis) => i.withinInames.includes(tile[axis])),
  );
  if (sharing)
    throw new LoomError(
      `tensorize: instruction '${sharing.id}' also runs inside the tile's inames (${axes.map((a) => tile[a]).join(', ')}), which become one matrix instruction of '${insn.id}'; give it inames of its own first (duplicateInames)`,
      sharing.span,
    );
  const { product, reduced } = matchProduct(knl, insn, tile);
  const namer = kernelNamer(knl);
  const accName = options.accumulator ?? namer.fresh('acc');
  if (options.accumulator !== undefined) {
    checkName(accName, 'tensorize: accumulator');
    if (namer.taken.has(accName)) throw new LoomError(`tensorize: the accumulator name '${accName}' is taken`);
    namer.taken.add(accName);
  }
  const accumulator: TemporaryVariable = {
    name: accName,
    dtype: undefined,
    shape: [int(extents.m), int(extents.n)],
    addressSpace: 'private',
    matrixAccumulator: true,
    ...(options.precision ? { matrixPrecision: options.precision } : {}),
  };
  const tileOfAcc = subscript(accName, [variable(tile.m), variable(tile.n)]);
  const initId = namer.fresh(`${insn.id}_init`);
  const updateId = namer.fresh(`${insn.id}_update`);
  const init: Instruction = {
    ...insn,
    id: initId,
    assignees: [tileOfAcc],
    expression: int(0),
    // a constant, written before anything the product reads (fetches inside its loops) is ready
    dependsOn: [],
  };
  const update: Instruction = {
    ...insn,
    id: updateId,
    assignees: [tileOfAcc],
    expression: binary('+', tileOfAcc, product),
    withinInames: [...insn.withinInames, ...reduced.filter((r) => !insn.withinInames.includes(r))],
    dependsOn: [...insn.dependsOn, initId],
  };
  const store: Instruction = { ...insn, expression: tileOfAcc, dependsOn: [updateId] };

  const inameTags = new Map<string, InameTag>(knl.inameTags);
  for (const axis of axes) inameTags.set(tile[axis], { kind: 'tensor', axis });
  const inLocalZero = insn.withinInames.filter((n) => {
    const t = knl.inameTags.get(n);
    return t?.kind === 'local' && t.axis === 0;
  });
  if (inLocalZero.length)
    throw new LoomError(
      `tensorize: instruction '${insn.id}' runs inside '${inLocalZero[0]}' (l.0), but local axis 0 is the lanes of the subgroups that run the matrix instructions together; put the subgroups of a work-group on l.1 or l.2`,
      insn.span,
    );
  const lane = options.laneIname ?? namer.fresh('lane');
  if (options.laneIname !== undefined) {
    checkName(lane, 'tensorize: laneIname');
    if (namer.taken.has(lane)) throw new LoomError(`tensorize: the lane iname '${lane}' is taken`);
  }
  inameTags.set(lane, { kind: 'local', axis: 0 });
  const domains = [...knl.domains, laneDomain(lane, lanes)];
  const inLanes = (i: Instruction): Instruction => ({ ...i, withinInames: [...i.withinInames, lane] });
  const instructions = knl.instructions.flatMap((i) => (i.id === insn.id ? [init, update, store].map(inLanes) : [i]));
  const temporaries = new Map(knl.temporaries).set(accName, accumulator);
  return knl.with({ instructions, inameTags, temporaries, domains });
}

/** `{ [lane] : 0 <= lane < lanes }`. */
function laneDomain(lane: string, lanes: number): BasicSet {
  const v = Linear.variable(lane);
  return BasicSet.fromConstraints(
    [],
    [lane],
    [
      { kind: 'ge', expr: v },
      { kind: 'ge', expr: Linear.constant(lanes - 1).sub(v) },
    ],
  );
}

/** The number of values of a tile iname, which must run over constants from 0. */
function tileExtent(knl: LoopKernel, iname: string, axis: string): number {
  const term = [{ set: domainOf(knl, [iname]), expr: Linear.variable(iname) }];
  const lo = staticMin(term, knl.assumptions);
  const hi = staticMax(term, knl.assumptions);
  if (!lo.isConstant || !hi.isConstant || lo.constant !== 0)
    throw new LoomError(
      `tensorize: the tile's '${axis}' iname '${iname}' runs from ${lo.toString()} to ${hi.toString()}; it must run over constants from 0 (split the loop by the tile's size)`,
    );
  return hi.constant + 1;
}

/** The one instruction inside `m` and `n` that reduces over `k`. */
function tiledReduction(knl: LoopKernel, tile: TensorTile, within: Within): Instruction {
  const chosen = within === undefined ? undefined : instructionsWithin(knl, within, 'tensorize: option within', true);
  const candidates = knl.instructions.filter((i) => {
    if (chosen && !chosen.has(i.id)) return false;
    if (i.kind !== 'assign' || !i.expression) return false;
    const e = expandSubstitutions(i.expression, knl.substitutions);
    return e.kind === 'reduce' && e.inames.includes(tile.k);
  });
  if (candidates.length === 0)
    throw new LoomError(
      `tensorize: no instruction${within === undefined ? '' : ` matching '${[within].flat().join("', '")}'`} is a reduction over '${tile.k}'`,
    );
  if (candidates.length > 1)
    throw new LoomError(
      `tensorize: instructions ${candidates.map((c) => `'${c.id}'`).join(', ')} all reduce over '${tile.k}'; say which with the option within`,
    );
  const insn = candidates[0];
  for (const n of [tile.m, tile.n])
    if (!insn.withinInames.includes(n))
      throw new LoomError(`tensorize: instruction '${insn.id}' is not inside the tile's iname '${n}'`, insn.span);
  if (insn.atomic) throw new LoomError(`tensorize: instruction '${insn.id}' is atomic`, insn.span);
  return insn;
}

/**
 * The product a tile reduction sums, `a[.., m, .., k, ..] * b[.., k, .., n, ..]` (either order,
 * each factor possibly converted), and the inames it reduces over.
 */
function matchProduct(knl: LoopKernel, insn: Instruction, tile: TensorTile): { product: Expr; reduced: string[] } {
  const e = expandSubstitutions(insn.expression!, knl.substitutions);
  if (e.kind !== 'reduce') throw new LoomError(`tensorize: '${insn.id}' is no reduction`, insn.span);
  const refuse = (why: string): never => {
    throw new LoomError(
      `tensorize: instruction '${insn.id}' (${printExpr(e)}) is not a sum of products of two tiles: ${why}`,
      insn.span,
    );
  };
  if (e.op !== 'sum') refuse(`it is a '${e.op}' reduction`);
  const body = e.operands[0];
  if (body.kind !== 'binary' || body.op !== '*') refuse('its body is no product');
  const product = body as Extract<Expr, { kind: 'binary' }>;
  const reads = [product.left, product.right].map((f) => readOf(f) ?? refuse(`'${printExpr(f)}' is no array element`));
  const uses = (s: Subscript, n: string) => s.indices.some((x) => freeVariables(x).has(n));
  const isA = (s: Subscript) => uses(s, tile.m) && uses(s, tile.k) && !uses(s, tile.n);
  const isB = (s: Subscript) => uses(s, tile.k) && uses(s, tile.n) && !uses(s, tile.m);
  if (!(isA(reads[0]) && isB(reads[1])) && !(isB(reads[0]) && isA(reads[1])))
    refuse(
      `one factor must be indexed by '${tile.m}' and '${tile.k}' (not '${tile.n}'), the other by '${tile.k}' and '${tile.n}' (not '${tile.m}')`,
    );
  const assignee = insn.assignees[0];
  if (assignee.kind !== 'subscript' || !uses(assignee, tile.m) || !uses(assignee, tile.n))
    refuse(`what it writes (${printExpr(assignee)}) must be indexed by '${tile.m}' and '${tile.n}'`);
  const inner = e.inames.filter((n) => n !== tile.k);
  return { product, reduced: [...inner, tile.k] };
}

/** The array element a factor reads, through conversions. */
function readOf(e: Expr): Subscript | undefined {
  let x = e;
  while (x.kind === 'cast') x = x.operand;
  return x.kind === 'subscript' ? x : undefined;
}
