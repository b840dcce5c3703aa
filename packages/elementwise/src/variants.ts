/**
 * Which shape of kernel a pointwise call gets, and the Loom transformations that give
 * it that shape. Every variant computes the same elements the same way (kernel.ts
 * builds the instructions); they differ in how the task space maps onto work-items:
 *
 *   flat      one flat task index t, `blockSize` work-items per group, four elements
 *             per work-item a work-group apart (loads stay coalesced, several in flight).
 *             Any rank, any strides, any device.
 *   vector4   every operand steps by one element along the innermost task axis, and
 *             every offset, outer stride and the innermost extent are multiples of 4:
 *             each work-item handles four consecutive elements as one vector (the
 *             storages are `vec`-tagged arrays: OpenCL's `float4 *`, WGSL's
 *             `array<vec4<f32>>`). The lanes are read as components (OpenCL's `.s2`),
 *             or, where the target prefers vector statements (WGSL), the lane iname is
 *             tagged `vec`, so that a payload without conversions or calls is one vec4
 *             load per input and one store per output. Only dtypes the target holds as
 *             vectors (WGSL: the 32-bit ones); where it binds a storage whole, as
 *             vectors (WGSL), its length must be whole vectors too.
 *   tiled     a rank-2 task in which some input moves fastest along the task's *outer*
 *             axis (`x + y.T`) while the outputs move fastest along the inner one:
 *             32 x 32 tiles, each such input read into local memory along its own rows
 *             (coalesced) and used along its columns, the tile padded to 33 a row so the
 *             column reads do not share a memory bank. Reads of the other operands and
 *             every write stay coalesced. Targets whose work-items run side by side.
 *
 * What the choice asks of the target is what it states (`targetFacts`: whether its
 * work-items run one after another, which dtypes it holds as vectors of four, ...), never
 * which target it is. It depends only on the call's metadata (target, task space, dtypes, storage
 * sharing), so the same kind of call always gets the same variant; `plan(...).variant`
 * names it and `plan(...).reason` says why.
 */
import {
  addPrefetch,
  holdsVectors,
  splitIname,
  tagArrayAxes,
  tagInames,
  type LoopKernel,
  type TargetFacts,
} from '@loom/core';
import { isComplex, type TensorDType } from './dtypes.ts';
import type { TaskSpace } from './layout.ts';

export type VariantName = 'flat' | 'vector4' | 'tiled';

/** Elements per work-item of the flat variant (unrolled, a work-group apart). */
const ELEMENTS_PER_ITEM = 4;
/** Lanes of the vector variant. */
export const VECTOR_LANES = 4;
/** The tiled variant's tile edge, and its padded row length in local memory. */
export const TILE = 32;
const PADDED_ROW = TILE + 1;

/** What the choice looks at, per tensor operand (inputs first, then outputs, as the task numbers them). */
export interface OperandFacts {
  readonly dtype: TensorDType;
  readonly offset: number;
  /** How many operands (this one included) view this operand's storage. */
  readonly storageUsers: number;
  readonly isInput: boolean;
  /** The length, in numbers, of the storage it views. */
  readonly storageLength: number;
}

export interface VariantChoice {
  readonly name: VariantName;
  /** Why, in a sentence (shown by `plan(...).reason`). */
  readonly reason: string;
  /** Tiled: which tensor operands (by task number) go through local tiles. */
  readonly tiledOperands: ReadonlySet<number>;
  /** vector4: the lanes are a `vec` loop (vector statements, WGSL) rather than unrolled components (OpenCL): `preferVectorStatements`. */
  readonly vectorStatements: boolean;
}

/** The variant for a call on a target with these facts: its name, why, and what its schedule needs. */
export function chooseVariant(
  target: TargetFacts,
  task: TaskSpace,
  operands: readonly OperandFacts[],
  blockSize: number,
): VariantChoice {
  const none = new Set<number>();
  const flat = (reason: string): VariantChoice => ({
    name: 'flat',
    reason,
    tiledOperands: none,
    vectorStatements: false,
  });
  if (target.sequentialWorkItems) return flat('the target runs work-items one after another: nothing to coalesce');
  const rank = task.shape.length;
  if (rank === 0 || operands.length === 0) return flat('a single element');

  const tiled = tiledOperands(task, operands);
  if (tiled.size > 0) {
    if (blockSize % TILE !== 0 || TILE % (blockSize / TILE) !== 0)
      return flat(
        `an input is transposed, but blockSize ${blockSize} does not split a ${TILE} x ${TILE} tile into rows`,
      );
    const which = [...tiled].map((k) => `operand ${k}`).join(', ');
    return {
      name: 'tiled',
      reason: `${which} moves fastest along the outer task axis while the outputs move along the inner one: ${TILE} x ${TILE} tiles through local memory`,
      tiledOperands: tiled,
      vectorStatements: false,
    };
  }

  const inner = rank - 1;
  const reasons: string[] = [];
  if (task.shape[inner] % VECTOR_LANES !== 0)
    reasons.push(`the innermost extent ${task.shape[inner]} is not a multiple of ${VECTOR_LANES}`);
  operands.forEach((o, k) => {
    const strides = task.strides[k];
    if (strides[inner] !== 1) reasons.push(`operand ${k} has stride ${strides[inner]} along the innermost axis`);
    else if (strides.some((s, d) => d < inner && s % VECTOR_LANES !== 0))
      reasons.push(`an outer stride of operand ${k} is not a multiple of ${VECTOR_LANES}`);
    else if (o.offset % VECTOR_LANES !== 0)
      reasons.push(`operand ${k} starts at offset ${o.offset}, not a multiple of ${VECTOR_LANES}`);
    if (!holdsVectors(target, o.dtype, VECTOR_LANES)) reasons.push(`operand ${k} is ${o.dtype}`);
    // a storage bound whole, as vectors: a partial last vector could not be bound
    else if (target.wholeVectorStorage && o.storageLength % VECTOR_LANES !== 0)
      reasons.push(`operand ${k}'s storage has ${o.storageLength} elements, not a multiple of ${VECTOR_LANES}`);
  });
  if (reasons.length === 0) {
    const reason = `every operand is unit-stride and aligned to ${VECTOR_LANES} elements`;
    return { name: 'vector4', reason, tiledOperands: none, vectorStatements: target.preferVectorStatements };
  }
  return flat(`no vectors: ${reasons[0]}`);
}

/**
 * The inputs a rank-2 task should read through tiles: stride 1 along the outer axis and
 * a positive stride along the inner one, real dtype, sole user of their storage (the tile
 * reads the storage as a 2-D array of its own); only when every output is unit-stride
 * along the inner axis, so that the writes are coalesced without a tile.
 */
function tiledOperands(task: TaskSpace, operands: readonly OperandFacts[]): Set<number> {
  const tiled = new Set<number>();
  if (task.shape.length !== 2) return tiled;
  const outputsInner = operands.every((o, k) => o.isInput || task.strides[k][1] === 1);
  if (!outputsInner) return tiled;
  operands.forEach((o, k) => {
    const [outer, inner] = task.strides[k];
    if (o.isInput && outer === 1 && inner > 1 && !isComplex(o.dtype) && o.storageUsers === 1) tiled.add(k);
  });
  return tiled;
}

/**
 * The variant's schedule on the kernel kernel.ts built: `flat` and `vector4` over the
 * task index t (and the lane k), `tiled` over (i0, i1) with each tiled storage prefetched.
 */
export function scheduleVariant(
  kernel: LoopKernel,
  name: VariantName,
  blockSize: number,
  tiledStorages: readonly string[],
  vectorStatements = false,
): LoopKernel {
  switch (name) {
    case 'flat':
      // t = G*g + B*u + l: each work-item's ELEMENTS_PER_ITEM elements a work-group apart
      kernel = splitIname(kernel, 't', blockSize * ELEMENTS_PER_ITEM, { outerTag: 'g.0' });
      return splitIname(kernel, 't_inner', blockSize, { outerTag: 'ilp', innerTag: 'l.0' });
    case 'vector4':
      // one vector per work-item; its lanes unrolled (each a constant `.sK`), all loads before the
      // stores, or (vectorStatements) a vec loop: each instruction one vector statement where it can be
      kernel = tagInames(kernel, { k: vectorStatements ? 'vec' : 'ilp' });
      return splitIname(kernel, 't', blockSize, { outerTag: 'g.0', innerTag: 'l.0' });
    case 'tiled': {
      const rowsPerPass = blockSize / TILE;
      // i1 (the outputs' fast axis) on l.0: coalesced writes; i0 in passes of rowsPerPass rows, the
      // passes `ilp` rather than unrolled: each instruction is repeated for every pass, so all the
      // untiled loads are issued before the tile's barrier and the stores (unrolled, each load sat
      // between two guarded stores and a work-item had one load in flight: half the bandwidth of
      // the hand-transformed kernel on the H200)
      kernel = splitIname(kernel, 'i0', TILE, { outerTag: 'g.1' });
      kernel = splitIname(kernel, 'i0_inner', rowsPerPass, { outerTag: 'ilp', innerTag: 'l.1' });
      kernel = splitIname(kernel, 'i1', TILE, { outerTag: 'g.0', innerTag: 'l.0' });
      for (const storage of tiledStorages) {
        const tile = `${storage}_tile`;
        // the tile is read along the storage's own rows (its axis 1 is the task's i0): coalesced
        kernel = addPrefetch(kernel, storage, ['i1_inner', 'i0_inner_outer', 'i0_inner_inner'], {
          temporaryAddressSpace: 'local',
          temporaryName: tile,
          dimArgNames: [`${storage}_row`, `${storage}_col`],
        });
        kernel = tagInames(kernel, { [`${storage}_col`]: 'l.0' });
        kernel = splitIname(kernel, `${storage}_row`, rowsPerPass, { outerTag: 'unr', innerTag: 'l.1' });
        kernel = tagArrayAxes(kernel, tile, `stride:${PADDED_ROW},stride:1`);
      }
      return kernel;
    }
  }
}
