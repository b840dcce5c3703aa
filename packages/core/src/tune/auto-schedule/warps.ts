/**
 * The geometry of a GPU's memory transactions, for autoSchedule's cost model: the warps a
 * work-group is made of, and the 32-byte sectors (or 128-byte lines) one access of a warp or a
 * work-group touches, from its strides along the local axes.
 */

/** Work-items that run in lockstep: NVIDIA's warp (the model's unit of issue). */
export const WARP = 32;
/** Bytes of the smallest piece of global memory a cache moves. */
export const SECTOR = 32;
/** Bytes of a line of the L1 cache, as it looks a warp's load up. */
export const L1_LINE = 128;

/**
 * The shape of one warp in a work-group of shape `group`: WARP consecutive linear local ids, a
 * row of l.0 (or all of it when narrower), then as many rows along l.1, then l.2, as fill it. A
 * 8 x 8 work-group's warp is 8 x 4: a transpose reading 8 consecutive words a row touches 4
 * sectors a warp, not 4 rows counted as if each were a warp of its own.
 */
export function warpShape(group: readonly number[]): number[] {
  const shape: number[] = [];
  let left = WARP;
  for (const size of group) {
    const take = Math.max(1, Math.min(size, Math.floor(left)));
    shape.push(take);
    left /= take;
  }
  return shape;
}

/**
 * The 32-byte sectors one access of a whole work-group touches, its shape `group` (work-items per
 * local axis) and the access's stride along each (0: the same element; undefined: unknown, each
 * work-item its own sector). Along the axis of the smallest stride below a sector the work-items
 * share sectors, `ceil(L · stride · bytes / 32)` of them a line; every other axis that moves
 * multiplies the lines, up to one sector per distinct element. With `unit`, pieces of that many
 * bytes instead of sectors (128: the L1 cache's lines).
 */
export function groupSectors(
  group: readonly number[],
  strides: readonly (number | undefined)[],
  bytes: number,
  unit = SECTOR,
): number {
  const moving = group
    .map((size, axis) => ({ size, stride: strides[axis] }))
    .filter((a) => a.stride !== 0 && a.size > 1);
  const distinct = moving.reduce((n, a) => n * a.size, 1);
  const near = moving
    .filter((a): a is { size: number; stride: number } => a.stride !== undefined && a.stride * bytes < unit)
    .sort((a, b) => a.stride - b.stride)[0];
  if (!near) return distinct;
  const line = Math.ceil((near.size * near.stride * bytes) / unit);
  return Math.min(distinct, line * (distinct / near.size));
}

/** Banks of local memory, each a 4-byte word wide (NVIDIA's GPUs, and most others). */
export const BANKS = 32;

/**
 * How many times over local memory serves one access of a warp of shape `warp`, from the access's
 * strides (in elements) along the warp's axes: the most distinct words that fall in one bank
 * (work-items reading the same word share it), per word an element takes. 1: no conflict; a 16 x 2
 * warp reading two rows 64 floats apart, 2 (the rows meet in the same 16 banks); an access whose
 * strides are not known, 1 (not modelled).
 */
export function bankConflicts(
  warp: readonly number[],
  strides: readonly (number | undefined)[],
  bytes: number,
): number {
  if (warp.some((size, axis) => size > 1 && strides[axis] === undefined)) return 1;
  const words = Math.max(1, bytes / 4);
  const banks = new Map<number, Set<number>>();
  const [w0 = 1, w1 = 1, w2 = 1] = warp;
  const [s0 = 0, s1 = 0, s2 = 0] = strides.map((s) => s ?? 0);
  for (let z = 0; z < w2; z++)
    for (let y = 0; y < w1; y++)
      for (let x = 0; x < w0; x++) {
        const word = (x * s0 + y * s1 + z * s2) * words;
        const bank = word % BANKS;
        let inBank = banks.get(bank);
        if (!inBank) banks.set(bank, (inBank = new Set()));
        inBank.add(word);
      }
  let most = 1;
  for (const inBank of banks.values()) most = Math.max(most, inBank.size);
  return Math.max(1, most / words);
}
