/**
 * Reshaping arrays (loopy's concatenate_arrays, split_array_axis, find_padding_multiple,
 * add_padding, add_padding_to_avoid_bank_conflicts): every access follows the new shape.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { nameList } from '../names.ts';
import { byteSize } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { add, binary, int, subscript, type Expr } from '../expr/nodes.ts';
import { mapExpr, printExpr, simplify } from '../expr/index.ts';
import type { DimTag, KernelArg, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { arrayLayout } from '../kernel/strides.ts';

/** The options addPaddingToAvoidBankConflicts reads; any other key is an error. */
const ADD_PADDING_TO_AVOID_BANK_CONFLICTS_OPTIONS = optionKeys<{
  readonly banks?: number;
  readonly bankWidthBytes?: number;
}>()(['bankWidthBytes', 'banks']);

type ArrayOf =
  | { readonly kind: 'arg'; readonly arg: KernelArg }
  | { readonly kind: 'temporary'; readonly temp: TemporaryVariable };

function arrayOf(knl: LoopKernel, name: string, what: string): ArrayOf {
  const arg = knl.arg(name);
  if (arg && arg.kind !== 'value') return { kind: 'arg', arg };
  const temp = knl.temporaries.get(name);
  if (temp && temp.shape.length) return { kind: 'temporary', temp };
  throw new LoomError(`${what}: '${name}' is not an array of the kernel`);
}

const shapeOf = (a: ArrayOf) => (a.kind === 'arg' ? (a.arg.shape ?? []) : a.temp.shape);
const constant = (e: Expr) => simplify(e, { integer: true });

/**
 * `concatenateArrays(knl, ['a', 'b'], 'c')`: the arrays (all temporaries or all arguments,
 * alike but for their length along `axis`) become one, `c`, each access offset by the
 * lengths of the arrays before it.
 */
export function concatenateArrays(knl: LoopKernel, names: readonly string[], newName?: string, axis = 0): LoopKernel {
  const what = 'concatenateArrays';
  if (names.length < 2) throw new LoomError(`${what}: give at least two arrays`);
  const arrays = names.map((n) => arrayOf(knl, n, what));
  if (arrays.some((a) => a.kind !== arrays[0].kind))
    throw new LoomError(`${what}: the arrays must all be temporaries or all arguments`);
  const shapes = arrays.map(shapeOf);
  if (shapes.some((s) => s.length !== shapes[0].length) || axis < 0 || axis >= shapes[0].length)
    throw new LoomError(`${what}: the arrays have different ranks, or no axis ${axis}`);
  const describe = (a: ArrayOf) => {
    const { name: _, shape, ...rest } = a.kind === 'arg' ? a.arg : a.temp;
    return JSON.stringify({
      ...rest,
      dimTags: undefined,
      shape: shape?.map((s, k) => (k === axis ? '*' : printExpr(s))),
    });
  };
  const different = arrays.find((a) => describe(a) !== describe(arrays[0]));
  if (different)
    throw new LoomError(
      `${what}: the arrays must be alike (dtype, address space, the other axes); '${names[arrays.indexOf(different)]}' differs from '${names[0]}'`,
    );
  if (arrays.some((a) => (a.kind === 'arg' ? a.arg.dimTags : a.temp.dimTags)))
    throw new LoomError(`${what}: arrays with a layout of their own (tagArrayAxes) cannot be concatenated`);
  const offsets: number[] = [];
  let total = 0;
  shapes.forEach((s, k) => {
    const len = constant(s[axis]);
    if (len.kind !== 'int')
      throw new LoomError(
        `${what}: '${names[k]}' has the non-constant length ${printExpr(s[axis])} along axis ${axis}`,
      );
    offsets.push(total);
    total += len.value;
  });
  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
  ]);
  const name = newName ?? uniqueName('concatenated_array', taken);
  if (taken.has(name) && !names.includes(name)) throw new LoomError(`${what}: the name '${name}' is already used`);
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind !== 'subscript' || !names.includes(x.array)) return x;
      const offset = offsets[names.indexOf(x.array)];
      return subscript(
        name,
        x.indices.map((ix, d) => (d === axis && offset ? constant(add(ix, int(offset))) : ix)),
      );
    });
  const rewritten = mapKernelExpressions(knl, rewrite, { what, assignee: 'whole' });
  const newShape = shapes[0].map((s, d) => (d === axis ? int(total) : s));
  if (arrays[0].kind === 'temporary') {
    const temporaries = new Map([...rewritten.temporaries].filter(([n]) => !names.includes(n)));
    temporaries.set(name, { ...arrays[0].temp, name, shape: newShape });
    return rewritten.with({ temporaries });
  }
  const first = arrays[0].arg;
  const merged: KernelArg = {
    ...first,
    name,
    shape: newShape,
    isInput: arrays.some((a) => a.kind === 'arg' && a.arg.isInput),
    isOutput: arrays.some((a) => a.kind === 'arg' && a.arg.isOutput),
  };
  const at = rewritten.args.findIndex((a) => names.includes(a.name));
  const args = rewritten.args.filter((a) => !names.includes(a.name));
  args.splice(at, 0, merged);
  return rewritten.with({ args });
}

/**
 * `splitArrayAxis(knl, 'a', 0, 4)`: axis 0 of `a` (length n) becomes two, `ceil(n/4)` and
 * 4, and `a[i]` becomes `a[i // 4, i % 4]` (`order: 'F'` swaps the two: `a[i % 4, i // 4]`).
 * For an argument that is a different shape for the caller's data.
 */
export function splitArrayAxis(
  knl: LoopKernel,
  names: string | readonly string[],
  axis: number,
  count: number,
  order: 'C' | 'F' = 'C',
): LoopKernel {
  const what = 'splitArrayAxis';
  if (!Number.isInteger(count) || count < 1)
    throw new LoomError(`${what}: the count must be a positive integer, got ${count}`);
  if (order !== 'C' && order !== 'F') throw new LoomError(`${what}: order must be 'C' or 'F', got '${String(order)}'`);
  let result = knl;
  for (const name of nameList(names)) {
    const array = arrayOf(result, name, what);
    const shape = shapeOf(array);
    if (!Number.isInteger(axis) || axis < 0 || axis >= shape.length)
      throw new LoomError(`${what}: '${name}' has no axis ${axis}`);
    if (array.kind === 'arg' ? array.arg.dimTags : array.temp.dimTags)
      throw new LoomError(`${what}: '${name}' has a layout of its own (tagArrayAxes); split before laying it out`);
    const outerLen = constant(binary('//', add(shape[axis], int(count - 1)), int(count)));
    const halves = (ix: Expr) => [constant(binary('//', ix, int(count))), constant(binary('%', ix, int(count)))];
    const pair = (a: Expr, b: Expr) => (order === 'C' ? [a, b] : [b, a]);
    const newShape = shape.flatMap((s, d) => (d === axis ? pair(outerLen, int(count)) : [s]));
    const rewrite = (e: Expr) =>
      mapExpr(e, (x) => {
        if (x.kind !== 'subscript' || x.array !== name) return x;
        return subscript(
          name,
          x.indices.flatMap((ix, d) => (d === axis ? pair(...(halves(ix) as [Expr, Expr])) : [ix])),
        );
      });
    result = mapKernelExpressions(result, rewrite, { what, assignee: 'whole' });
    // named axes: the split one becomes <name>_outer and <name>_inner
    const named = (array.kind === 'arg' ? array.arg : array.temp).dimNames;
    const dimNames = named?.flatMap((n, d) =>
      d !== axis ? [n] : order === 'C' ? [`${n}_outer`, `${n}_inner`] : [`${n}_inner`, `${n}_outer`],
    );
    if (array.kind === 'arg')
      result = result.with({
        args: result.args.map((a) => (a.name === name ? { ...a, shape: newShape, dimNames } : a)),
      });
    else
      result = result.with({
        temporaries: new Map(
          [...result.temporaries].map(([n, t]) => [n, n === name ? { ...t, shape: newShape, dimNames } : t]),
        ),
      });
  }
  return result;
}

/**
 * The stride of an argument's axis, in elements, with its dtype's size: a fixed stride
 * (`stride:N`), or the one a `c`/`f` layout computes, when that is a known integer (loopy
 * turns computed strides into fixed ones when the kernel is made, so both are padded alike).
 */
function fixedStride(
  knl: LoopKernel,
  name: string,
  axis: number,
  what: string,
): { arg: KernelArg; stride: number; itemSize: number } {
  const arg = knl.arg(name);
  if (!arg || arg.kind === 'value') throw new LoomError(`${what}: '${name}' is not an array argument`);
  if (!Number.isInteger(axis) || axis < 0 || axis >= arg.shape!.length)
    throw new LoomError(`${what}: '${name}' has no axis ${axis} (it has ${arg.shape!.length})`);
  const layout = arrayLayout(arg.shape!, arg.dimTags)[axis];
  if (layout.kind !== 'stride')
    throw new LoomError(`${what}: axis ${axis} of '${name}' is a '${layout.kind}' axis, which has no stride`);
  const stride = constant(layout.stride);
  if (stride.kind !== 'int')
    throw new LoomError(
      `${what}: the stride of axis ${axis} of '${name}' (${printExpr(layout.stride)}) is not a known integer`,
    );
  if (arg.dtype === undefined) throw new LoomError(`${what}: the dtype of '${name}' is not known (addDtypes)`);
  return { arg, stride: stride.value, itemSize: byteSize(arg.dtype) };
}

/**
 * The smallest number of rows (of stride `axis`) whose bytes, rounded up to `alignBytes`,
 * waste at most `allowedWaste` of the row's size (loopy's find_padding_multiple).
 */
export function findPaddingMultiple(
  knl: LoopKernel,
  name: string,
  axis: number,
  alignBytes: number,
  allowedWaste = 0.1,
): number {
  const { stride, itemSize } = fixedStride(knl, name, axis, 'findPaddingMultiple');
  if (!Number.isInteger(alignBytes) || alignBytes < 1)
    throw new LoomError(`findPaddingMultiple: alignBytes must be a positive integer, got ${alignBytes}`);
  const bytes = stride * itemSize;
  for (let multiple = 1; ; multiple++) {
    const size = multiple * bytes;
    if ((Math.ceil(size / alignBytes) * alignBytes - size) / size <= allowedWaste) return multiple;
  }
}

/** `addPadding(knl, 'a', 0, 64)`: the fixed stride of axis 0 grows to a multiple of 64 bytes (loopy's add_padding). */
export function addPadding(knl: LoopKernel, name: string, axis: number, alignBytes: number): LoopKernel {
  const { arg, stride, itemSize } = fixedStride(knl, name, axis, 'addPadding');
  if (!Number.isInteger(alignBytes) || alignBytes < 1 || alignBytes % itemSize !== 0) {
    throw new LoomError(
      `addPadding: alignBytes (${alignBytes}) must be a positive multiple of the element size of '${name}' (${itemSize} bytes)`,
    );
  }
  const padded = (Math.ceil((stride * itemSize) / alignBytes) * alignBytes) / itemSize;
  return knl.with({
    args: knl.args.map((a) => (a.name === name ? { ...a, dimTags: paddedTags(arg, axis, padded) } : a)),
  });
}

/**
 * The tags of `arg` with axis `axis` at stride `padded`. Every axis becomes a fixed stride, as
 * loopy's are once a kernel is made: an axis nested outside the padded one moves by the padded
 * rows (its stride scaled with them), so no two elements ever share memory.
 */
function paddedTags(arg: KernelArg, axis: number, padded: number): DimTag[] {
  const layout = arrayLayout(arg.shape!, arg.dimTags);
  const own = layout[axis];
  const level = own.kind === 'stride' ? own.level : undefined;
  return layout.map((l, d): DimTag => {
    if (d === axis) return { kind: 'stride', stride: int(padded) };
    if (l.kind === 'sep' || l.kind === 'vec') return { kind: l.kind };
    const outside = level !== undefined && l.level !== undefined && l.level > level;
    const stride =
      outside && own.kind === 'stride'
        ? simplify(binary('//', binary('*', l.stride, int(padded)), own.stride))
        : l.stride;
    return { kind: 'stride', stride };
  });
}

/**
 * Local temporaries read down a column (one row per work-item) whose rows map onto few memory
 * banks get their rows lengthened by the fewest elements that spread such a read over the most
 * banks (loopy's add_padding_to_avoid_bank_conflicts; the bank layout, which loopy reads from the
 * OpenCL device, is given here). A 16 x 16 float32 tile on 32 banks gets rows of 17: rows of 16
 * words put a column in 2 banks, 8 work-items in each. A temporary whose address space is still
 * `'auto'` is left alone, as loopy leaves it: it may not end up in local memory.
 *
 * ```ts
 * knl = addPrefetch(knl, 'a', ['i_inner', 'j_inner'], { temporaryAddressSpace: 'local' });
 * knl = addPaddingToAvoidBankConflicts(knl, { banks: 32 });
 * ```
 * @param options.banks memory banks (default 32)
 * @param options.bankWidthBytes bytes per bank word (default 4)
 */
export function addPaddingToAvoidBankConflicts(
  knl: LoopKernel,
  options: { readonly banks?: number; readonly bankWidthBytes?: number } = {},
): LoopKernel {
  checkOptionKeys('addPaddingToAvoidBankConflicts', options, ADD_PADDING_TO_AVOID_BANK_CONFLICTS_OPTIONS);
  const banks = options.banks ?? 32;
  const width = options.bankWidthBytes ?? 4;
  for (const [what, v] of [
    ['banks', banks],
    ['bankWidthBytes', width],
  ] as const) {
    if (!Number.isInteger(v) || v < 1)
      throw new LoomError(`addPaddingToAvoidBankConflicts: ${what} must be a positive integer, got ${v}`);
  }
  const temporaries = new Map(knl.temporaries);
  for (const t of knl.temporaries.values()) {
    if (t.addressSpace !== 'local' || t.shape.length < 2 || t.dtype === undefined || t.dimTags) continue;
    const shape = t.shape.map(constant);
    if (shape.some((s) => s.kind !== 'int')) continue;
    const itemSize = byteSize(t.dtype);
    const lengths = shape.map((s) => (s as { value: number }).value);
    const row = lengths[lengths.length - 1];
    // loopy tries increments below half a row and keeps the first with the fewest conflicts
    let best = 0;
    let fewest = columnConflicts(row * itemSize, itemSize, banks, width);
    for (let inc = 1; inc < Math.floor(row / 2) && fewest > 1; inc++) {
      const conflicts = columnConflicts((row + inc) * itemSize, itemSize, banks, width);
      if (conflicts < fewest) [best, fewest] = [inc, conflicts];
    }
    if (best === 0) continue;
    const strides: number[] = [];
    let stride = 1;
    for (let d = lengths.length - 1; d >= 0; d--) {
      strides[d] = stride;
      stride *= d === lengths.length - 1 ? lengths[d] + best : lengths[d];
    }
    temporaries.set(t.name, { ...t, dimTags: strides.map((s) => ({ kind: 'stride', stride: int(s) })) });
  }
  return knl.with({ temporaries });
}

/**
 * How many different words the busiest bank serves when `banks` work-items each read the first
 * element of their own row (rows `rowBytes` apart): 1 is conflict-free.
 */
function columnConflicts(rowBytes: number, itemSize: number, banks: number, width: number): number {
  const wordsPerBank = new Map<number, Set<number>>();
  for (let r = 0; r < banks; r++) {
    const first = Math.floor((r * rowBytes) / width);
    const last = Math.floor((r * rowBytes + itemSize - 1) / width);
    for (let word = first; word <= last; word++) {
      const words = wordsPerBank.get(word % banks) ?? new Set<number>();
      words.add(word);
      wordsPerBank.set(word % banks, words);
    }
  }
  return Math.max(...[...wordsPerBank.values()].map((w) => w.size));
}
