/**
 * `getMemAccessMap(knl, options)`: the loads and stores of global and local memory a
 * kernel performs, as loopy's `get_mem_access_map` counts them (on the preprocessed
 * kernel; private memory is not counted):
 *
 *  - a global access is counted per work-item when neighbouring work-items along local
 *    axis 0 access different elements (its lid stride 0 is known and not 0), otherwise
 *    once per sub-group (a broadcast: the sub-group reads one element);
 *  - a local access is counted once per sub-group;
 *  - accesses in the index of an access count too, in the direction of the access;
 *  - an atomic fetch (`old = atomicAdd(c[i], 1)`) loads and stores its element, as the
 *    `{atomic}` update `c[i] = c[i] + 1` does.
 */
import { compiledKernel } from '../program/resolve.ts';
import type { Program } from '../program/program.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import type { Expr } from '../expr/nodes.ts';
import { walk } from '../expr/visit.ts';
import { preprocess } from '../preprocess/pipeline.ts';
import type { DType } from '../dtypes.ts';
import type { DimTag, Instruction, LoopKernel } from '../kernel/model.ts';
import { ToCountMap } from './count-map.ts';
import type { GuardedPwQPolynomial } from './guarded.ts';
import { InstructionCounts, type InstructionCountOptions } from './instruction-counts.ts';
import { MemAccess, type MemAccessFields } from './keys.ts';
import { countedInstructions, expressionTyper, type WithinOption } from './kernel-view.ts';
import { accessStrides } from './strides.ts';
import { atomicFetchOf, soleAssignee } from '../kernel/accesses.ts';

/** The options getMemAccessMap reads; any other key is an error. */
const GET_MEM_ACCESS_MAP_OPTIONS = optionKeys<MemAccessMapOptions>()(['countRedundantWork', 'subgroupSize', 'within']);

/** Memory access counts by `MemAccess` (loopy's `get_mem_access_map`). */
export type MemAccessMap = ToCountMap<MemAccess, MemAccessFields>;

/** Options of `getMemAccessMap`. */
export interface MemAccessMapOptions extends InstructionCountOptions, WithinOption {}

/** The kind of key maps of memory accesses have. */
export const MEM_ACCESS_KEYS = { fields: MemAccess.fields, make: (f: MemAccessFields) => new MemAccess(f) };

/** Counts a kernel's memory accesses (loopy's `get_mem_access_map`). */
export function getMemAccessMap(program: LoopKernel | Program, options: MemAccessMapOptions = {}): MemAccessMap {
  const knl = compiledKernel(program);
  checkOptionKeys('getMemAccessMap', options, GET_MEM_ACCESS_MAP_OPTIONS);
  const prepared = preprocess(knl);
  return memAccessMapOf(new InstructionCounts(prepared, options, 'getMemAccessMap'), options);
}

/** The memory access map of the preprocessed kernel `counts` counts runs of. */
export function memAccessMapOf(counts: InstructionCounts, options: MemAccessMapOptions): MemAccessMap {
  const prepared = counts.knl;
  counts.requireSubgroupSize();
  const typeOf = expressionTyper(prepared);
  const entries: [MemAccess, GuardedPwQPolynomial][] = [];
  for (const insn of countedInstructions(prepared, options.within)) {
    for (const a of accessesOf(prepared, insn, typeOf)) entries.push([a, counts.runs(insn, a.countGranularity!)]);
  }
  return new ToCountMap(MEM_ACCESS_KEYS, entries, counts.zero);
}

/** The global and local memory accesses one run of `insn` (of the preprocessed `knl`) makes. */
export function accessesOf(knl: LoopKernel, insn: Instruction, typeOf: (e: Expr) => DType): MemAccess[] {
  const accesses: MemAccess[] = [];
  const visit = (root: Expr, direction: 'load' | 'store') =>
    walk(root, (x) => {
      const access = accessAt(knl, x, typeOf);
      if (access) accesses.push(new MemAccess({ ...access, direction }));
    });
  visit(insn.expression!, 'load');
  visit(soleAssignee(insn), 'store');
  // an atomic fetch loads its element (above, in the value) and stores it: as an `{atomic}` update is counted
  const fetched = atomicFetchOf(insn)?.element;
  const store = fetched && accessAt(knl, fetched, typeOf);
  if (store) accesses.push(new MemAccess({ ...store, direction: 'store' }));
  return accesses;
}

/** The global or local memory `x` accesses itself (not in its indices), if any. */
function accessAt(
  knl: LoopKernel,
  x: Expr,
  typeOf: (e: Expr) => MemAccessFields['dtype'],
): MemAccessFields | undefined {
  if (x.kind !== 'var' && x.kind !== 'subscript') return undefined;
  const name = x.kind === 'var' ? x.name : x.array;
  const arg = knl.arg(name);
  const temp = knl.temporaries.get(name);
  const space = arg ? (arg.kind === 'value' ? undefined : 'global') : temp?.addressSpace;
  if (space !== 'global' && space !== 'local') return undefined;
  const common = { mtype: space, dtype: typeOf(x), kernelName: knl.name } as const;
  if (x.kind === 'var') {
    // loopy's quirks kept: a whole global array is counted per work-item, a local
    // scalar per sub-group and without its name
    return space === 'global'
      ? { ...common, lidStrides: {}, gidStrides: {}, variable: name, countGranularity: 'workitem' }
      : { ...common, countGranularity: 'subgroup' };
  }
  const shape = (arg ? arg.shape : temp!.shape) ?? [];
  const dimTags: readonly DimTag[] | undefined = arg ? arg.dimTags : temp!.dimTags;
  const { lid, gid } = accessStrides(knl, shape, dimTags, x.indices);
  // neighbouring work-items along l.0 reading different words: counted per work-item
  const spread = space === 'global' && 0 in lid && lid[0] !== 0;
  return {
    ...common,
    lidStrides: lid,
    gidStrides: gid,
    variable: name,
    countGranularity: spread ? 'workitem' : 'subgroup',
  };
}
