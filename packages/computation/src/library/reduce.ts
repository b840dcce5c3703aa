/**
 * `reduce(arr, predicate, axes)`: the input combined over `axes` by an associative
 * operation (Reikna's Reduce); the output keeps the input's rank, with 1 in the reduced axes
 * (numpy's keepdims). Default: every axis.
 *
 * The passes see the input as a matrix of `rows` x `length` (the kept axes by the reduced
 * ones). An input that is not one already (reduced axes that are not the last, several
 * kept or reduced axes) is first gathered into a temporary of that shape. Then, until one
 * value per row is left:
 *
 *   tree pass   each work-group of W work-items takes W*C consecutive elements of a row
 *               (C grows with the input, so that about TARGET_GROUPS work-groups share it:
 *               enough to fill a large GPU, and few values left for the next pass); each
 *               work-item combines C of them, then the work-group combines its W values in
 *               local memory in log2(W) steps (barriers between them). One value per
 *               work-group goes to a temporary, the next pass's row, in the row's order.
 *
 *               How the elements meet depends on the predicate. A commutative one (sum,
 *               product, max, min) may combine them in any order: work-item l takes the
 *               elements W apart from l (neighbours read neighbours, coalesced), and the
 *               tree halves the active work-items, l with l + W/2. Any other keeps the
 *               order (as Scan does): work-item l combines its C consecutive elements in
 *               turn, and the tree combines neighbours, each value with the one after it
 *               (step s: 2^(s+1) l with 2^(s+1) l + 2^s), so every value stands for a run of
 *               consecutive elements combined left to right. A sum is written as core's
 *               `sum(l, acc)` instead, which core realizes by subgroup functions where the
 *               device has them (reduction/subgroup-tree.ts), else by the same tree.
 *   row pass    for rows no longer than a work-group (or too many rows to give each its
 *               work-groups): one work-item per row combines it in order.
 *
 * A tree pass whose work-groups leave several values a row needs a next pass to combine them,
 * a launch of its own, unless the last of its work-groups does (`combine: 'last-group'`, the
 * default where the device can, its work-items run side by side and the predicate is
 * commutative; PyTorch's sum does the same):
 * each work-group writes its value to a temporary, fences (`... gfence`), and one of its
 * work-items takes a ticket from the row's counter (`atomicAdd`), which it shares through local
 * memory. The work-group that takes the row's last ticket fences again, combines the row's values
 * as a tree pass of one work-group does (work-item l those l, l + W, ... apart, then the tree),
 * writes the row's result and sets the counter back to 0. Which work-group comes last changes
 * from launch to launch; the order it combines the values in does not, so a result is the same
 * to the bit every time. The counters are an array the computation keeps (`persistentArray`,
 * zero when compiled, zero after every call): calls of one compiled reduce must not overlap.
 *
 * Every kernel reads the input and writes the output with their own shapes, so that
 * transformations attached to them fuse in.
 */
import {
  LoomError,
  checkOptionKeys,
  optionKeys,
  globalArg,
  makeKernel,
  prioritizeLoops,
  splitIname,
  tagInames,
  temporaryVariable,
  isStructDType,
  type DType,
  type LoopKernel,
  type StructDType,
} from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import { fieldwise, type StructParams } from './fieldwise.ts';
import type { PlanArray } from '../computation/plan.ts';
import type { DeviceParameters } from '../computation/device-parameters.ts';
import { largestWorkGroup, powerOfTwoAtLeast, powerOfTwoAtMost, spreadOverGrid, workGroupSize } from './parallel.ts';
import { combine, emptyLiteral, type Predicate } from './predicates.ts';

type Params<D extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'i' },
];

/** Elements each work-item combines before the work-group's tree, at least. */
const PER_ITEM = 4;
/**
 * Work-groups a tree pass aims at over all rows: about as many as a large GPU keeps resident
 * (an H100's 132 multiprocessors take 8 of 256 work-items each); more would only add values
 * for the next pass, fewer would leave it idle. A long row gets more elements per work-item.
 */
const TARGET_GROUPS = 1024;
/** The largest work-group a tree pass over few rows takes, where the device allows it and runs work-items side by side. */
const LARGE_GROUP = 1024;
/** Work-groups along one grid axis that every device allows (WebGPU's limit). */
const MAX_GROUPS = 65535;

/**
 * How `reduce`'s passes are cut, for tuning on a device (by default they are sized from the
 * device's limits and the input, as described above).
 */
export interface ReduceOptions {
  /** Work-items per work-group of a tree pass, a power of two the device allows (default: up to 256; up to 1024 over long rows of few rows, where work-items run side by side). */
  readonly workGroupSize?: number;
  /** Elements each work-item combines before the work-group's tree (default: enough for about 1024 work-groups, at least 4). */
  readonly perItem?: number;
  /**
   * Who combines the values the work-groups of a tree pass leave (see the file's comment): the
   * last of those work-groups, in the same launch (`'last-group'`: a fence and an atomic ticket,
   * for a commutative predicate on a device that has both), or a next pass, a launch of its own
   * (`'next-pass'`). Default: `'last-group'` where it can be and the device runs work-items side
   * by side (a GPU, where a launch costs most), else `'next-pass'`; asking for `'last-group'`
   * where it cannot be is a LoomError saying why.
   */
  readonly combine?: 'last-group' | 'next-pass';
}

const REDUCE_OPTIONS = optionKeys<ReduceOptions>()(['workGroupSize', 'perItem', 'combine']);

/** Where a pass reads and writes: an array's shape and its element at (row, k). */
interface View {
  readonly shape: readonly number[];
  at(row: string, k: string): string;
}

/**
 * Reduces an array along axes with a predicate (Reikna's `Reduce`). An array of structs
 * (`structDType`) is reduced field by field, each real field by the predicate (fieldwise.ts);
 * its parameters are then the structs' bytes.
 * ```ts
 * const sums = reduce({ dtype: 'float32', shape: [100, 100] }, predicateSum(), [0]);
 * // cut for a device by hand: work-groups of 512, each work-item summing 64 elements first
 * const total = reduce({ dtype: 'float32', shape: [1 << 24] }, predicateSum(), undefined, { workGroupSize: 512, perItem: 64 });
 * // the work-groups' sums combined by a second launch, even where the last work-group could
 * const twice = reduce({ dtype: 'float32', shape: [1 << 24] }, predicateSum(), undefined, { combine: 'next-pass' });
 * ```
 */
export function reduce<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  predicate: Predicate,
  axes?: readonly number[],
  options?: ReduceOptions,
): Computation<Params<D>>;
export function reduce(
  arr: { readonly dtype: StructDType; readonly shape: readonly number[] },
  predicate: Predicate,
  axes?: readonly number[],
  options?: ReduceOptions,
): Computation<StructParams>;
export function reduce<D extends DType>(
  arr: { readonly dtype: D | StructDType; readonly shape: readonly number[] },
  predicate: Predicate,
  axes?: readonly number[],
  options: ReduceOptions = {},
): Computation<Params<D>> | Computation<StructParams> {
  checkOptionKeys('reduce', options, REDUCE_OPTIONS);
  const { perItem: givenPerItem, workGroupSize: givenW } = options;
  if (givenPerItem !== undefined && (!Number.isInteger(givenPerItem) || givenPerItem < 1))
    throw new LoomError(`reduce: perItem must be a positive integer, got ${givenPerItem}`);
  if (givenW !== undefined && (!Number.isInteger(givenW) || givenW < 1 || givenW & (givenW - 1)))
    throw new LoomError(`reduce: workGroupSize must be a power of two, got ${givenW}`);
  if (givenW === 1 && givenPerItem === 1)
    throw new LoomError('reduce: a work-group of 1 work-item combining 1 element each never shortens the input');
  const { combine: givenCombine } = options;
  if (givenCombine !== undefined && givenCombine !== 'last-group' && givenCombine !== 'next-pass')
    throw new LoomError(`reduce: combine is 'last-group' or 'next-pass', got ${JSON.stringify(givenCombine)}`);
  if (givenCombine === 'last-group' && !predicate.commutative)
    throw new LoomError(
      `reduce: combine 'last-group' needs a commutative predicate ('${predicate.operation}' is not declared one): the last work-group combines the others' values a work-group apart, not in their order`,
    );
  const { dtype: given, shape } = arr;
  if (isStructDType(given)) {
    const kept = reduce({ dtype: 'uint8', shape }, predicate, axes).signature[0].shape!;
    return fieldwise('reduce', given, shape, kept, (dtype) => reduce({ dtype, shape }, predicate, axes, options));
  }
  const dtype = given;
  const r = shape.length;
  const reduced = [...new Set(axes ?? shape.map((_, k) => k))].sort((a, b) => a - b);
  if (axes && reduced.length !== axes.length) throw new LoomError('reduce: cannot reduce twice over the same axis');
  if (reduced.some((a) => !Number.isInteger(a) || a < 0 || a >= r))
    throw new LoomError(`reduce: axes (${(axes ?? []).join(', ')}) are out of bounds for rank ${r}`);
  const kept = shape.map((_, k) => k).filter((k) => !reduced.includes(k));
  const outShape = shape.map((n, k) => (reduced.includes(k) ? 1 : n));
  const rows = kept.reduce((acc, k) => acc * shape[k], 1);
  const length = reduced.reduce((acc, k) => acc * shape[k], 1);

  // the input as a matrix without a copy: one reduced axis, the last, and at most one kept axis before it
  const direct = reduced.length === 1 && reduced[0] === r - 1 && kept.length <= 1;
  const inputView: View = { shape, at: (row, k) => `inp[${kept.length ? `${row}, ` : ''}${k}]` };
  // the output written by row: at most one kept axis, the others 1
  const outputView: View | undefined =
    kept.length <= 1
      ? { shape: outShape, at: (row) => `out[${outShape.map((_, a) => (kept.includes(a) ? row : '0')).join(', ')}]` }
      : undefined;
  const matrix = (n: number): View => ({ shape: [rows, n], at: (row, k) => `inp[${row}, ${k}]` });

  return computation<Params<D>>({
    name: 'reduce',
    params: [
      { name: 'output', dtype, shape: outShape, role: 'o' },
      { name: 'input', dtype, shape, role: 'i' },
    ],
    buildPlan(plan, device, output, input) {
      let source: PlanArray = input;
      let view: View = inputView;
      if (!direct) {
        source = plan.tempArray(dtype, [rows, length]);
        plan.kernelCall(gather(dtype, shape, kept, reduced, device), { out: source, inp: input });
        view = matrix(length);
      }
      if (givenW !== undefined && givenW > largestWorkGroup(device))
        throw new LoomError(
          `reduce: workGroupSize ${givenW} is more than the device allows (${largestWorkGroup(device)})`,
        );
      const lastGroup = lastGroupCombines(predicate, outputView !== undefined, dtype, device, givenCombine);
      for (let current = length; ; ) {
        const pass = cutPass(current, rows, device, options);
        const groups = pass.tree ? Math.ceil(current / (pass.w * pass.perItem)) : 1;
        // a tree pass over this input, writing where `output` says
        const cutInto = (tree: PassCut & { tree: true }, output: View): TreeCut => ({
          dtype,
          p: predicate,
          input: view,
          output,
          rows,
          length: current,
          groups,
          w: tree.w,
          perItem: tree.perItem,
          device,
        });
        if (pass.tree && groups > 1 && lastGroup && outputView) {
          // the work-groups' values combined by the last of them: one launch (see the file's comment)
          plan.kernelCall(lastGroupPass(cutInto(pass, outputView)), {
            out: output,
            inp: source,
            partial: plan.tempArray(dtype, [rows, groups]),
            counter: plan.persistentArray(new Int32Array(rows), [rows], 'int32'),
          });
          return;
        }
        const final = groups === 1;
        const target: PlanArray = final && outputView ? output : plan.tempArray(dtype, [rows, groups]);
        const targetView: View =
          final && outputView ? outputView : { shape: [rows, groups], at: (row, g) => `out[${row}, ${g}]` };
        const kernel = pass.tree
          ? treePass(cutInto(pass, targetView))
          : rowPass(dtype, predicate, view, targetView, rows, current, pass.w);
        plan.kernelCall(kernel, { out: target, inp: source });
        if (final) {
          if (target !== output) plan.kernelCall(scatter(dtype, outShape, kept, device), { out: output, inp: target });
          return;
        }
        source = target;
        view = matrix(groups);
        current = groups;
      }
    },
  });
}

/**
 * Whether the last work-group of a tree pass combines its work-groups' values (`combine`, see
 * the file's comment): asked for, or by default, where the predicate is commutative, the output
 * is written by row, the device fences and fetches int32 atomically, and its work-items run side
 * by side. An impossible request is a LoomError that says what is missing.
 */
function lastGroupCombines(
  p: Predicate,
  byRow: boolean,
  dtype: DType,
  device: DeviceParameters,
  given: ReduceOptions['combine'],
): boolean {
  if (given === 'next-pass') return false;
  const fetches = device.atomicFetches;
  const missing =
    device.globalFences !== true
      ? `the ${device.target} target has no device-wide fence: ${device.globalFences.refused}`
      : 'refused' in fetches
        ? `the ${device.target} target has no atomic fetches: ${fetches.refused}`
        : !fetches.dtypes.includes('int32')
          ? `the ${device.target} target fetches no int32 atomically`
          : !byRow
            ? `the output is not written by row (more than one kept axis: ${dtype} values go through a temporary)`
            : undefined;
  if (given === 'last-group' && missing !== undefined)
    throw new LoomError(`reduce: combine 'last-group' cannot be done: ${missing}`);
  if (given === 'last-group') return true;
  // by default where work-items run side by side (GPUs), which a launch of its own costs most:
  // where they run one after another (the CPU device, C), the last work-group's barriers cost
  // every work-group more than the next pass's launch (2x and 3.6x slower there, 2^18 float32)
  return missing === undefined && p.commutative && device.subgroupSize > 1;
}

/** How one pass is cut: a tree pass's work-groups of `w` work-items, `perItem` elements each; or a row pass's work-groups. */
type PassCut =
  | { readonly tree: true; readonly w: number; readonly perItem: number }
  | { readonly tree: false; readonly w: number };

/**
 * A pass over `rows` rows of `length`: a tree pass where a row is longer than an elementwise
 * work-group, or where the rows are too few to fill one (a work-item per row would leave the
 * device idle); a row pass otherwise. A tree pass's work-group holds about a quarter as many
 * work-items as the row has elements, at least a subgroup and at most an elementwise
 * work-group; where work-items run side by side and the rows are too few to fill the device,
 * up to 1024 (more loads in flight: a sum of 2^26 float32 read 4.2-4.3 TB/s in work-groups of
 * 1024 on the H200, 4.0-4.2 in groups of 256, through OpenCL, WebGPU and CUDA alike).
 */
function cutPass(length: number, rows: number, device: DeviceParameters, given: ReduceOptions): PassCut {
  const elementwise = workGroupSize(device);
  if (rows > MAX_GROUPS || (length <= elementwise && rows >= elementwise))
    return { tree: false, w: given.workGroupSize ?? elementwise };
  const largest = powerOfTwoAtMost(largestWorkGroup(device));
  const sideBySide = device.subgroupSize > 1;
  const most = sideBySide && rows < TARGET_GROUPS ? Math.min(largest, LARGE_GROUP) : elementwise;
  const least = Math.min(most, Math.max(1, device.subgroupSize));
  const w = given.workGroupSize ?? Math.max(least, Math.min(most, powerOfTwoAtLeast(Math.ceil(length / PER_ITEM))));
  const perItem =
    given.perItem ?? Math.max(PER_ITEM, Math.ceil(length / (w * Math.max(1, Math.ceil(TARGET_GROUPS / rows)))));
  return { tree: true, w, perItem };
}

function arrays(dtype: DType, input: View, output: View) {
  return [globalArg('inp', { dtype, shape: input.shape }), globalArg('out', { dtype, shape: output.shape })];
}

/** How a tree pass is cut: its rows of `length` elements, `groups` work-groups a row of `w` work-items, `perItem` elements each. */
interface TreeCut {
  readonly dtype: DType;
  readonly p: Predicate;
  readonly input: View;
  readonly output: View;
  readonly rows: number;
  readonly length: number;
  readonly groups: number;
  readonly w: number;
  readonly perItem: number;
  readonly device: Pick<DeviceParameters, 'unrollsConstantLoops'>;
}

/** A sum is core's reduction over l.0 (by subgroups where the device has them, else core's tree). */
const isSum = (p: Predicate) => p.operation === 'a + b' && p.empty === 0;

/**
 * Each work-item's `acc`: the empty value, then its `perItem` elements combined (instructions
 * `init` and `gather`). The element work-item l combines at step c lies W apart from its
 * neighbours' (coalesced) where the order may change, else in its own run; a row cut into whole
 * work-groups needs no bounds guard, every index being below its length.
 */
function gatherLines({ dtype, p, input, length, groups, w, perItem }: TreeCut): string[] {
  const empty = emptyLiteral(p, dtype);
  const k = p.commutative ? `(g * ${perItem} + c) * ${w} + l` : `(g * ${w} + l) * ${perItem} + c`;
  const element =
    groups * w * perItem === length ? input.at('row', k) : `if(${k} < ${length}, ${input.at('row', k)}, ${empty})`;
  return [
    `<${dtype}> acc = ${empty} {id=init, inames=row:g:l}`,
    `acc = ${combine(p, 'acc', element)} {id=gather, dep=init, inames=row:g:l:c}`,
  ];
}

/**
 * The work-group's W values (`value`, after `dep`) combined in the local array `tile` in log2(W)
 * steps; `last` is the last step's id, after which `tile[0]` holds them all. A commutative
 * predicate halves the active work-items (l with l + W/2, ...); any other combines neighbours,
 * each value with the one after it, so that every value stands for a run of consecutive ones.
 */
function workGroupTree(
  p: Predicate,
  w: number,
  tile: string,
  value: string,
  dep: string,
  indent = '',
): { lines: string[]; last: string } {
  const lines = [`${indent}${tile}[l] = ${value} {id=${tile}_fill, dep=${dep}, inames=row:g:l}`];
  let previous = `${tile}_fill`;
  for (let h = w / 2, s = 0; h >= 1; h /= 2, s++) {
    // step s: h work-items each combine two values, the first and the one `apart` after it
    const apart = w / (2 * h);
    const [into, other] = p.commutative ? ['l', `l + ${h}`] : [`${2 * apart} * l`, `${2 * apart} * l + ${apart}`];
    lines.push(
      `${indent}if l < ${h}`,
      `${indent}  ${tile}[${into}] = ${combine(p, `${tile}[${into}]`, `${tile}[${other}]`)} {id=${tile}_step${s}, dep=${previous}, inames=row:g:l}`,
      `${indent}end`,
    );
    previous = `${tile}_step${s}`;
  }
  return { lines, last: previous };
}

/**
 * The tree pass's loops on the grid: rows on g.1, work-groups on g.0, work-items on l.0, the
 * elements' loads unrolled where the target's compilers would not unroll them.
 */
function onGrid(knl: LoopKernel, { device, perItem }: TreeCut): LoopKernel {
  return tagInames(device.unrollsConstantLoops ? knl : unrollLoads(knl, perItem), { row: 'g.1', g: 'g.0', l: 'l.0' });
}

/**
 * The tree pass (see the file's comment): each work-group's value into `out[row, g]`.
 * The tile is declared with its W values: the indices of the ordered tree reach past W for the
 * work-items its guards leave out, which a shape found from the accesses would count.
 */
function treePass(cut: TreeCut): LoopKernel {
  const { dtype, p, input, output, rows, groups, w, perItem } = cut;
  const domain = `{ [row, g, l, c]: 0 <= row < ${rows} and 0 <= g < ${groups} and 0 <= l < ${w} and 0 <= c < ${perItem} }`;
  const lines = gatherLines(cut);
  if (isSum(p)) {
    lines.push(`${output.at('row', 'g')} = sum(l, acc) {id=store, dep=gather, inames=row:g}`);
    return onGrid(makeKernel(domain, lines.join('\n'), arrays(dtype, input, output), { name: 'reduce_tree' }), cut);
  }
  const tree = workGroupTree(p, w, 'tile', 'acc', 'gather');
  // one work-item stores the work-group's value (the others are guarded out: no race)
  lines.push(
    ...tree.lines,
    'if l == 0',
    `  ${output.at('row', 'g')} = tile[0] {id=store, dep=${tree.last}, inames=row:g:l}`,
    'end',
  );
  const tile = temporaryVariable('tile', { dtype, shape: [w], addressSpace: 'local' });
  const knl = makeKernel(domain, lines.join('\n'), [...arrays(dtype, input, output), tile], {
    name: 'reduce_tree',
    silencedWarnings: ['write_race(store)'],
  });
  return onGrid(knl, cut);
}

/**
 * A tree pass whose last work-group combines the work-groups' values (see the file's comment):
 * `partial[row, g]` holds work-group g's value, `counter[row]` the row's tickets, `last[0]`
 * tells the work-group's work-items whether theirs was the row's last.
 */
function lastGroupPass(cut: TreeCut): LoopKernel {
  const { dtype, p, input, output, rows, groups, w, perItem } = cut;
  const empty = emptyLiteral(p, dtype);
  // the values work-item l combines in the last work-group: the row's l, l + W, ...
  const rounds = Math.ceil(groups / w);
  const partial = `partial[row, q * ${w} + l]`;
  const value = groups === rounds * w ? partial : `if(q * ${w} + l < ${groups}, ${partial}, ${empty})`;
  const sum = isSum(p);
  // a work-group's W values into one: core's sum(l, ...) for a sum, else the tree pass's tree
  const own = sum ? undefined : workGroupTree(p, w, 'tile', 'acc', 'gather');
  const theirs = sum ? undefined : workGroupTree(p, w, 'tile_last', 'total', 'gather_last', '  ');
  const lines = [
    ...gatherLines(cut),
    ...(own ? own.lines : [`<${dtype}> mine = sum(l, acc) {id=mine, dep=gather, inames=row:g}`]),
    'if l == 0',
    `  partial[row, g] = ${own ? 'tile[0]' : 'mine'} {id=store, dep=${own ? own.last : 'mine'}, inames=row:g:l}`,
    // what the work-group wrote is there for every work-group before its ticket is taken
    '  ... gfence {id=release, dep=store, inames=row:g:l}',
    '  <int32> ticket = atomicAdd(counter[row], 1) {id=ticket, dep=release, inames=row:g:l}',
    `  last[0] = if(ticket == ${groups - 1}, 1, 0) {id=last, dep=ticket, inames=row:g:l}`,
    // and the last work-group reads what the others wrote before their tickets
    '  ... gfence {id=acquire, dep=ticket, inames=row:g:l}',
    'end',
    'if last[0] == 1',
    `  <${dtype}> total = ${empty} {id=init_last, dep=last, inames=row:g:l}`,
    // the tickets order these reads after the other work-groups' stores: no barrier between them
    `  total = ${combine(p, 'total', value)} {id=gather_last, dep=init_last:acquire, inames=row:g:l:q, nosync=store@global}`,
    ...(theirs
      ? [
          ...theirs.lines,
          '  if l == 0',
          `    ${output.at('row', '0')} = tile_last[0] {id=result, dep=${theirs.last}, inames=row:g:l}`,
          '  end',
        ]
      : [`  ${output.at('row', '0')} = sum(l, total) {id=result, dep=gather_last, inames=row:g}`]),
    '  if l == 0',
    // every work-group took its ticket before the last one did: nothing else touches the counter
    '    counter[row] = 0 {id=reset, dep=result, nosync=ticket@global, inames=row:g:l}',
    '  end',
    'end',
  ];
  const domain = `{ [row, g, l, c, q]: 0 <= row < ${rows} and 0 <= g < ${groups} and 0 <= l < ${w} and 0 <= c < ${perItem} and 0 <= q < ${rounds} }`;
  const temporaries = [
    temporaryVariable('last', { dtype: 'int32', shape: [1], addressSpace: 'local' }),
    ...(sum
      ? []
      : ['tile', 'tile_last'].map((t) => temporaryVariable(t, { dtype, shape: [w], addressSpace: 'local' }))),
  ];
  const knl = makeKernel(
    domain,
    lines.join('\n'),
    [
      ...arrays(dtype, input, output),
      globalArg('partial', { dtype, shape: [rows, groups] }),
      globalArg('counter', { dtype: 'int32', shape: [rows], forAtomic: true }),
      ...temporaries,
    ],
    // one work-group of a row gets through the predicates on `last`: no race
    { name: 'reduce_last_group', silencedWarnings: ['write_race(result)', 'write_race(reset)'] },
  );
  return onGrid(knl, cut);
}

/**
 * A work-item's loop over its elements (`c`) unrolled by up to 8, for targets whose compilers
 * keep constant loops: the loads of each 8 then issue together rather than one memory latency
 * after another (a sum of 2^26 float32 through WebGPU on the H200: 4.1 TB/s, 3.6-3.9 rolled).
 */
function unrollLoads(knl: LoopKernel, perItem: number): LoopKernel {
  if (perItem <= 8) return tagInames(knl, { c: 'unr' });
  // a factor that divides the count leaves no guarded remainder
  const by = [8, 4, 2].find((f) => perItem % f === 0) ?? 8;
  return prioritizeLoops(splitIname(knl, 'c', by, { innerTag: 'unr' }), ['c_outer', 'c_inner']);
}

function rowPass(
  dtype: DType,
  p: Predicate,
  input: View,
  output: View,
  rows: number,
  length: number,
  w: number,
): LoopKernel {
  const lines = [
    `<${dtype}> acc = ${emptyLiteral(p, dtype)} {id=init, inames=row}`,
    `acc = ${combine(p, 'acc', input.at('row', 'k'))} {id=fold, dep=init, inames=row:k}`,
    `${output.at('row', '0')} = acc {id=store, dep=fold, inames=row}`,
  ];
  const knl = makeKernel(
    `{ [row, k]: 0 <= row < ${rows} and 0 <= k < ${length} }`,
    lines.join('\n'),
    arrays(dtype, input, output),
    { name: 'reduce_rows' },
  );
  return rows <= w ? tagInames(knl, { row: 'l.0' }) : splitIname(knl, 'row', w, { outerTag: 'g.0', innerTag: 'l.0' });
}

/** `tmp[row, k] = input[...]`: the kept axes flattened into the row, the reduced into k (both row-major). */
function gather(
  dtype: DType,
  shape: readonly number[],
  kept: readonly number[],
  reduced: readonly number[],
  device: Parameters<typeof spreadOverGrid>[3],
): LoopKernel {
  const idx = shape.map((_, k) => `i${k}`);
  const flat = (axes: readonly number[]) =>
    axes.length
      ? axes.map((a, j) => [idx[a], ...axes.slice(j + 1).map((b) => String(shape[b]))].join('*')).join(' + ')
      : '0';
  const rows = kept.reduce((a, k) => a * shape[k], 1);
  const length = reduced.reduce((a, k) => a * shape[k], 1);
  const knl = makeKernel(
    domainOf(idx, shape),
    `out[${flat(kept)}, ${flat(reduced)}] = inp[${idx.join(', ')}]`,
    [globalArg('inp', { dtype, shape }), globalArg('out', { dtype, shape: [rows, length] })],
    { name: 'reduce_gather' },
  );
  return spreadOverGrid(knl, idx, shape, device);
}

/** `output[...] = tmp[row, 0]`: the rows back into the kept axes of the output. */
function scatter(
  dtype: DType,
  outShape: readonly number[],
  kept: readonly number[],
  device: Parameters<typeof spreadOverGrid>[3],
): LoopKernel {
  const idx = outShape.map((_, k) => `i${k}`);
  const row = kept.map((a, j) => [idx[a], ...kept.slice(j + 1).map((b) => String(outShape[b]))].join('*')).join(' + ');
  const rows = kept.reduce((a, k) => a * outShape[k], 1);
  const knl = makeKernel(
    domainOf(idx, outShape),
    `out[${idx.join(', ')}] = inp[${row}, 0]`,
    [globalArg('inp', { dtype, shape: [rows, 1] }), globalArg('out', { dtype, shape: outShape })],
    { name: 'reduce_scatter' },
  );
  return spreadOverGrid(knl, idx, outShape, device);
}

export function domainOf(idx: readonly string[], shape: readonly number[]): string {
  return `{ [${idx.join(', ')}]: ${idx.map((i, k) => `0 <= ${i} < ${shape[k]}`).join(' and ')} }`;
}
