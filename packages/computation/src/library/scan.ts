/**
 * `scan(arr, predicate, { axes, exclusive })`: running combinations along `axes` (Reikna's
 * Scan; numpy.cumsum for the sum): the axes are flattened in the order given (default:
 * all) and scanned as one. Inclusive, or exclusive (the empty value first).
 *
 * The passes see the input as `rows` x `length` (gathered into a temporary when it is not
 * one already, as Reduce does). Each row is cut into blocks of W*C elements. Every pass
 * stages a block in local memory (CUB's block load transpose): the work-group loads it with
 * coalesced reads (element c*W + l by work-item l at step c), and after a barrier each
 * work-item takes its C consecutive elements from the tile, so that every element is
 * combined in order (any associative operation, commutative or not). Then the work-group
 * scans its W work-items' totals in local memory (Hillis and Steele: log2(W) steps, two
 * buffers in turn, barriers between steps; a sum, where the device has subgroup functions and
 * W suits its subgroups, by subgroupInclusiveAdd within each subgroup and one exclusive scan of
 * the subgroups' totals: one barrier), each work-item scans its elements in the tile
 * from its prefix, and after a barrier the tile goes out as it came in, coalesced.
 *
 * Many rows, or a row of a few blocks: one work-group per row scans its blocks in turn,
 * carrying the total so far from one block to the next (one kernel, the input read once).
 * Otherwise the blocks of a row run in parallel, one per work-group, by reduce-then-scan
 * (the input read twice, the output written once; scan-then-add, Reikna's way, also writes
 * and reads back a scanned temporary):
 *
 *   totals pass  each work-group combines its block: the last of the W totals' scan (of a
 *                commutative predicate, each work-item combines what it loads, unstaged)
 *   offsets      the block totals, scanned (exclusive) by this same computation, nested
 *                (a few blocks' totals take one work-group)
 *   block pass   each block scanned from its offset
 *
 * Rows cut into whole blocks are read and written without bounds guards; otherwise each
 * load and store is guarded (the empty value stands for what lies past the row).
 */
import {
  LoomError,
  byteSize,
  checkOptionKeys,
  globalArg,
  optionKeys,
  makeKernel,
  prioritizeLoops,
  tagInames,
  temporaryVariable,
  isStructDType,
  type DType,
  type LoopKernel,
  type StructDType,
  type SubgroupSupport,
} from '@loom/core';
import { fieldwise, type StructParams } from './fieldwise.ts';
import { computation, type Computation } from '../computation/computation.ts';
import type { DeviceParameters } from '../computation/device-parameters.ts';
import type { PlanArray } from '../computation/plan.ts';
import { largestWorkGroup, powerOfTwoAtMost, spreadOverGrid } from './parallel.ts';
import { combine, emptyLiteral, type Predicate } from './predicates.ts';
import { domainOf } from './reduce.ts';

/**
 * Elements each work-item scans, by default: many, so that the work-group's scan and barriers
 * are paid once per many elements; and odd, because the work-items read their elements side by
 * side in the local tile (work-item l at l*C + i): an odd stride C meets each of the 32 banks of
 * local memory once in 32 work-items, where 16 would meet 2 banks, each 16 times.
 */
const PER_ITEM = 21;
/** Work-items per work-group by default (at most), and the fewest elements each before a smaller group is tried. */
const WORK_ITEMS = 256;
const FEWEST_PER_ITEM = 11;
/** The most elements a work-item's loops are unrolled over, where Loom unrolls them (WGSL's 80 live values, less the rest). */
const MOST_UNROLLED = 32;

/**
 * When one work-group scans a whole row, its blocks in turn (one kernel; the input read once,
 * not twice): a row of a few blocks (the block totals of a long row), or rows enough to fill
 * a large GPU with work-groups on their own (an H100 keeps about 1000 resident: Reduce's
 * TARGET_GROUPS). Otherwise the blocks of a row run in parallel, by reduce-then-scan.
 */
const BLOCKS_IN_TURN = 8;
const ROWS_IN_PARALLEL = 1024;

type Params<D extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'i' },
];

/** Options of `scan`. */
export interface ScanOptions {
  /** The axes scanned, flattened in this order; default all. */
  readonly axes?: readonly number[];
  /** Each output is the combination of the elements before it, the first the predicate's `empty` (default: inclusive, up to and including it). */
  readonly exclusive?: boolean;
  /** Elements each work-item scans in order (default 21, fewer where local memory is short; odd avoids bank conflicts). */
  readonly perItem?: number;
  /** Work-items per work-group, a power of two (default: up to 256, as the device allows). */
  readonly workGroupSize?: number;
}

/** Where a pass reads and writes: an array's shape and its element at (row, k). */
interface View {
  readonly shape: readonly number[];
  at(row: string, k: string): string;
}

const SCAN_OPTIONS = optionKeys<ScanOptions>()(['axes', 'exclusive', 'perItem', 'workGroupSize']);

/**
 * A prefix scan of an array along axes with a predicate (Reikna's `Scan`). An array of
 * structs (`structDType`) is scanned field by field, each real field by the predicate
 * (fieldwise.ts); its parameters are then the structs' bytes.
 * ```ts
 * const cumsum = scan({ dtype: 'int32', shape: [1000] }, predicateSum(), { exclusive: true });
 * ```
 */
export function scan<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  predicate: Predicate,
  options?: ScanOptions,
): Computation<Params<D>>;
export function scan(
  arr: { readonly dtype: StructDType; readonly shape: readonly number[] },
  predicate: Predicate,
  options?: ScanOptions,
): Computation<StructParams>;
export function scan<D extends DType>(
  arr: { readonly dtype: D | StructDType; readonly shape: readonly number[] },
  predicate: Predicate,
  options: ScanOptions = {},
): Computation<Params<D>> | Computation<StructParams> {
  checkOptionKeys('scan', options, SCAN_OPTIONS);
  const { dtype: given, shape } = arr;
  if (isStructDType(given))
    return fieldwise('scan', given, shape, shape, (dtype) => scan({ dtype, shape }, predicate, options));
  const dtype = given;
  const r = shape.length;
  const axes = options.axes ?? shape.map((_, k) => k);
  if (new Set(axes).size !== axes.length) throw new LoomError('scan: cannot scan twice over the same axis');
  if (axes.some((a) => !Number.isInteger(a) || a < 0 || a >= r))
    throw new LoomError(`scan: axes (${axes.join(', ')}) are out of bounds for rank ${r}`);
  if (options.perItem !== undefined && (!Number.isInteger(options.perItem) || options.perItem < 1))
    throw new LoomError(`scan: perItem must be a positive integer, got ${options.perItem}`);
  const kept = shape.map((_, k) => k).filter((k) => !axes.includes(k));
  const rows = kept.reduce((a, k) => a * shape[k], 1);
  const length = axes.reduce((a, k) => a * shape[k], 1);
  const exclusive = options.exclusive ?? false;
  // the input as a matrix without a copy: the scanned axis is the last, alone, after at most one kept axis
  const direct = axes.length === 1 && axes[0] === r - 1 && kept.length <= 1;
  const view = (n: number): View => ({ shape: [rows, n], at: (row, k) => `%[${row}, ${k}]` });
  const own: View = { shape, at: (row, k) => `%[${kept.length ? `${row}, ` : ''}${k}]` };

  return computation<Params<D>>({
    name: 'scan',
    params: [
      { name: 'output', dtype, shape, role: 'o' },
      { name: 'input', dtype, shape, role: 'i' },
    ],
    buildPlan(plan, device, output, input) {
      const { w, perItem } = blockSize(dtype, length, device, options);
      const blocks = Math.ceil(length / (w * perItem));
      let source: PlanArray = input;
      let sourceView = own;
      if (!direct) {
        source = plan.tempArray(dtype, [rows, length]);
        plan.kernelCall(regroup(dtype, shape, kept, axes, 'gather', device), { out: source, inp: input });
        sourceView = view(length);
      }
      const needsScatter = !direct;
      const finalTarget: PlanArray = needsScatter ? plan.tempArray(dtype, [rows, length]) : output;
      const finalView = needsScatter ? view(length) : own;
      const pass = (mode: BlockMode, into: View) =>
        blockPass(dtype, predicate, sourceView, into, { rows, length, blocks, w, perItem }, exclusive, mode, device);
      if (blocks <= BLOCKS_IN_TURN || rows >= ROWS_IN_PARALLEL) {
        plan.kernelCall(pass('rows', finalView), { inp: source, out: finalTarget });
      } else {
        const totals = plan.tempArray(dtype, [rows, blocks]);
        plan.kernelCall(pass('totals', view(blocks)), { inp: source, out: totals });
        const offsets = plan.tempArray(dtype, [rows, blocks]);
        plan.computationCall(
          scan({ dtype, shape: [rows, blocks] }, predicate, {
            axes: [1],
            exclusive: true,
            perItem: options.perItem,
            workGroupSize: options.workGroupSize,
          }),
          offsets,
          totals,
        );
        plan.kernelCall(pass('offsets', finalView), { inp: source, offsets, out: finalTarget });
      }
      if (needsScatter)
        plan.kernelCall(regroup(dtype, shape, kept, axes, 'scatter', device), { out: output, inp: finalTarget });
    },
  });
}

/**
 * Work-items per work-group (W) and elements per work-item (C), as given or by default: 256
 * work-items (or the device's largest power of two below) of 21 elements (the fastest of
 * 128-512 x 15-31 for a cumsum of 2^26 float32 on the H100; on the H200, 256 x 21 ran the
 * cumsum 3-14% faster than 512 x 21 through OpenCL, CUDA and WebGPU, and the running sums along
 * 8192 rows 1-3% slower through OpenCL and CUDA, 24% faster through WebGPU). Where
 * the block's tile and the scan's two buffers do not fit the device's local memory, first
 * fewer elements (down to 11, odd), then fewer work-items; a size given is never changed. For
 * a row shorter than a block (the block offsets of long rows), fewer work-items, down to a
 * subgroup: no more than the row takes.
 */
function blockSize(
  dtype: DType,
  length: number,
  device: DeviceParameters,
  options: ScanOptions,
): { w: number; perItem: number } {
  let w = options.workGroupSize ?? powerOfTwoAtMost(Math.min(WORK_ITEMS, largestWorkGroup(device)));
  if (w & (w - 1) || w < 1 || w > device.maxWorkGroupSize)
    throw new LoomError(
      `scan: workGroupSize ${w} must be a power of two the device allows (at most ${device.maxWorkGroupSize})`,
    );
  const bytes = (c: number) => byteSize(dtype) * (w * c + 2 * w);
  let perItem = options.perItem ?? PER_ITEM;
  const chooseC = options.perItem === undefined;
  const chooseW = options.workGroupSize === undefined;
  while (bytes(perItem) > device.localMemoryBytes) {
    if (chooseC && perItem > FEWEST_PER_ITEM) perItem -= 2;
    else if (chooseW && w > Math.max(1, device.subgroupSize)) w /= 2;
    else if (chooseC && perItem > 1) perItem -= 2;
    else break;
  }
  if (bytes(perItem) > device.localMemoryBytes)
    throw new LoomError(
      `scan: a block of ${w} work-items x ${perItem} elements takes ${bytes(perItem)} bytes of local memory, more than the device's ${device.localMemoryBytes}; choose a smaller perItem or workGroupSize`,
    );
  if (options.workGroupSize === undefined) while (w > device.subgroupSize && (w / 2) * perItem >= length) w /= 2;
  return { w, perItem };
}

const at = (v: View, array: string, row: string, k: string) => v.at(row, k).replace('%', array);

/**
 * What a block pass does: `rows` scans each row in one work-group, its blocks in turn (the
 * total so far carried from one to the next); `totals` writes each block's total (out is
 * rows x groups); `offsets` scans each block from its offset (one work-group per block).
 */
type BlockMode = 'rows' | 'totals' | 'offsets';

/** How a block pass is cut: rows of `length`, in `blocks` blocks of W work-items x C elements. */
interface BlockShape {
  readonly rows: number;
  readonly length: number;
  readonly blocks: number;
  readonly w: number;
  readonly perItem: number;
}

/**
 * The subgroup sizes to scan a work-group of `w` by subgroup functions, where that scans what
 * Hillis and Steele's steps do: a sum of a dtype the device's subgroups take, the work-group a
 * whole number of the largest subgroups and no more than the smallest one's square (the
 * subgroups' totals are scanned by one subgroup). Undefined elsewhere.
 */
function subgroupScan(
  dtype: DType,
  p: Predicate,
  w: number,
  subgroups: SubgroupSupport | undefined,
): { readonly min: number; readonly max: number } | undefined {
  if (!subgroups || 'refused' in subgroups || p.operation !== 'a + b' || p.empty !== 0) return undefined;
  if (!subgroups.dtypes.includes(dtype)) return undefined;
  const sizes = typeof subgroups.size === 'number' ? { min: subgroups.size, max: subgroups.size } : subgroups.size;
  return w % sizes.max === 0 && w <= sizes.min * sizes.min ? sizes : undefined;
}

function blockPass(
  dtype: DType,
  p: Predicate,
  input: View,
  output: View,
  s: BlockShape,
  exclusive: boolean,
  mode: BlockMode,
  device: Pick<DeviceParameters, 'subgroups' | 'unrollsConstantLoops'>,
): LoopKernel {
  const { subgroups } = device;
  const { rows, length, blocks, w, perItem } = s;
  const block = w * perItem;
  const empty = emptyLiteral(p, dtype);
  // the block: a work-group's own (g, in parallel), or the work-group's next (t, in turn)
  const b = mode === 'rows' ? 't' : 'g';
  const within = (...inames: string[]) => `inames=${['row', b, 'l', ...inames].join(':')}`;
  // rows cut into whole blocks need no bounds guard: every index is below the length
  const guarded = length % block !== 0;
  // the global index of the block's element c*W + l: neighbouring work-items, neighbouring elements
  const global = (c: string) => `${b} * ${block} + ${c} * ${w} + l`;
  const load = guarded
    ? `if(${global('c')} < ${length}, ${at(input, 'inp', 'row', global('c'))}, ${empty})`
    : at(input, 'inp', 'row', global('c'));
  // a work-item's own C elements, consecutive in the block
  const mine = (i: string) => `tile[l * ${perItem} + ${i}]`;
  // where the target's compilers leave a work-item's loops over its C elements as loops, Loom
  // unrolls them (the local loads of each step then issue together, not one latency at a time)
  // and keeps the elements in registers between its two passes over them (a local load fewer);
  // not for more elements than the compilers keep in registers
  const unrolled = !device.unrollsConstantLoops && perItem <= MOST_UNROLLED;
  const kept = unrolled && mode !== 'totals';
  // a block's total alone, of a commutative operation: each work-item combines the elements it
  // loads, coalesced, in whatever order (no staging)
  const direct = mode === 'totals' && p.commutative;
  const lines = [
    ...(mode === 'rows' ? [`carried = ${empty} {id=start, inames=row}`] : []),
    `<${dtype}> total = ${empty} {id=init, ${within()}}`,
    ...(direct
      ? [`total = ${combine(p, 'total', load)} {id=sum, dep=init, ${within('c')}}`]
      : [
          // the block staged in local memory by coalesced loads (CUB's block load transpose)
          `tile[c * ${w} + l] = ${load} {id=load, ${within('c')}}`,
          ...(kept
            ? [
                `xs[i] = ${mine('i')} {id=keep, dep=load, ${within('i')}}`,
                `total = ${combine(p, 'total', 'xs[i]')} {id=sum, dep=keep:init, ${within('i')}}`,
              ]
            : [`total = ${combine(p, 'total', mine('i'))} {id=sum, dep=load:init, ${within('i')}}`]),
        ]),
    `s0[l] = total {id=step0, dep=sum, ${within()}}`,
  ];
  // Hillis and Steele over the W totals: s(j+1)[l] = s(j)[l - d] op s(j)[l] where l >= d; or,
  // for a sum where the device has subgroups, their scans (one barrier)
  const bySubgroups = subgroupScan(dtype, p, w, subgroups);
  const steps = bySubgroups ? 1 : Math.log2(w);
  if (bySubgroups) {
    lines.pop();
    lines.push(
      `<${dtype}> incl = subgroupInclusiveAdd(total) {id=step0, dep=sum, ${within()}}`,
      // the last lane of each subgroup holds the subgroup's total
      'if subgroupLocalId() == subgroupSize() - 1',
      `  part[subgroupId()] = incl {id=partial, dep=step0, ${within()}}`,
      'end',
      `<${dtype}> before = subgroupExclusiveAdd(if(subgroupLocalId() * subgroupSize() < ${w}, part[subgroupLocalId()], ${empty})) {id=across, dep=partial, ${within()}}`,
      `s1[l] = incl + subgroupShuffle(before, subgroupId()) {id=step1, dep=across, ${within()}}`,
    );
  } else {
    for (let j = 0, d = 1; j < steps; j++, d *= 2) {
      lines.push(
        `s${j + 1}[l] = if(l >= ${d}, ${combine(p, `s${j}[l - ${d}]`, `s${j}[l]`)}, s${j}[l]) {id=step${j + 1}, dep=step${j}, ${within()}}`,
      );
    }
  }
  const last = `s${steps}`;
  if (mode === 'totals') {
    // one work-item stores the block's total (the others are guarded out: no race)
    lines.push(
      'if l == 0',
      `  ${at(output, 'out', 'row', 'g')} = ${last}[${w - 1}] {id=store, dep=step${steps}, ${within()}}`,
      'end',
    );
  } else {
    const before = `if(l > 0, ${last}[l - 1], ${empty})`;
    const from = mode === 'offsets' ? 'offsets[row, g]' : 'carried';
    lines.push(
      `<${dtype}> running = ${combine(p, from, before)} {id=prefix, dep=step${steps}${mode === 'rows' ? ':start' : ''}, ${within()}}`,
      // each work-item scans its elements in place from its prefix (the value before it, when exclusive)
      `<${dtype}> x = ${kept ? 'xs[e]' : mine('e')} {id=take, dep=prefix, ${within('e')}}`,
      ...(exclusive
        ? [
            `${mine('e')} = running {id=put, dep=take, ${within('e')}}`,
            `running = ${combine(p, 'running', 'x')} {id=again, dep=put, ${within('e')}}`,
          ]
        : [
            `running = ${combine(p, 'running', 'x')} {id=again, dep=take, ${within('e')}}`,
            `${mine('e')} = running {id=put, dep=again, ${within('e')}}`,
          ]),
      // and the scanned block goes out as it came in, coalesced
      ...(guarded ? [`if ${global('k')} < ${length}`] : []),
      `${at(output, 'out', 'row', global('k'))} = tile[k * ${w} + l] {id=store, dep=put, ${within('k')}}`,
      ...(guarded ? ['end'] : []),
      // the next block starts where this one ends
      ...(mode === 'rows'
        ? [`carried = ${combine(p, 'carried', `${last}[${w - 1}]`)} {id=carry, dep=prefix, ${within()}}`]
        : []),
    );
  }
  const local = (name: string, shape: number, baseStorage?: string) =>
    temporaryVariable(name, { dtype, shape: [shape], addressSpace: 'local', ...(baseStorage ? { baseStorage } : {}) });
  const args = [
    globalArg('inp', { dtype, shape: input.shape }),
    globalArg('out', { dtype, shape: output.shape }),
    ...(direct ? [] : [local('tile', block)]),
    // the scan's steps in two buffers in turn: step j+1 reads one and writes the other
    ...(bySubgroups
      ? [local('s1', w), local('part', w / bySubgroups.min)]
      : Array.from({ length: steps + 1 }, (_, j) => local(`s${j}`, w, steps > 0 ? `scan${j % 2}` : undefined))),
  ];
  // each work-item carries its own copy of the total so far (all equal)
  if (mode === 'rows') args.push(temporaryVariable('carried', { dtype, addressSpace: 'private' }));
  if (kept) args.push(temporaryVariable('xs', { dtype, shape: [perItem], addressSpace: 'private' }));
  if (mode === 'offsets') args.push(globalArg('offsets', { dtype, shape: [rows, blocks] }));
  const loops = direct ? ['c'] : mode === 'totals' ? ['c', 'i'] : ['c', 'i', 'e', 'k'];
  const domain = `{ [row, ${b}, l, ${loops.join(', ')}]: 0 <= row < ${rows} and 0 <= ${b} < ${blocks} and 0 <= l < ${w} and ${loops.map((i) => `0 <= ${i} < ${perItem}`).join(' and ')} }`;
  const name = mode === 'totals' ? 'scan_totals' : mode === 'rows' ? 'scan_rows' : 'scan_block';
  let knl = makeKernel(domain, lines.join('\n'), args, {
    name,
    silencedWarnings: mode === 'totals' ? ['write_race(store)'] : [],
  });
  if (unrolled) knl = tagInames(knl, Object.fromEntries(loops.map((i) => [i, 'unr'])));
  if (mode !== 'rows') return tagInames(knl, { row: 'g.1', g: 'g.0', l: 'l.0' });
  // the blocks in turn, each with its loops inside
  return loops.reduce((k, i) => prioritizeLoops(k, ['t', i]), tagInames(knl, { row: 'g.0', l: 'l.0' }));
}

/** Between the input's shape and rows x length: `gather` into the matrix, `scatter` back (the scanned axes in their order). */
function regroup(
  dtype: DType,
  shape: readonly number[],
  kept: readonly number[],
  axes: readonly number[],
  way: 'gather' | 'scatter',
  device: DeviceParameters,
): LoopKernel {
  const idx = shape.map((_, k) => `i${k}`);
  const flat = (list: readonly number[]) =>
    list.length
      ? list.map((a, j) => [idx[a], ...list.slice(j + 1).map((b) => String(shape[b]))].join('*')).join(' + ')
      : '0';
  const rows = kept.reduce((a, k) => a * shape[k], 1);
  const length = axes.reduce((a, k) => a * shape[k], 1);
  const matrix = `[${flat(kept)}, ${flat(axes)}]`;
  const own = `[${idx.join(', ')}]`;
  const text = way === 'gather' ? `out${matrix} = inp${own}` : `out${own} = inp${matrix}`;
  const knl = makeKernel(
    domainOf(idx, shape),
    text,
    [
      globalArg('inp', { dtype, shape: way === 'gather' ? shape : [rows, length] }),
      globalArg('out', { dtype, shape: way === 'gather' ? [rows, length] : shape }),
    ],
    { name: `scan_${way}` },
  );
  return spreadOverGrid(knl, idx, shape, device);
}
