/**
 * Subgroup functions: operations among the work-items of one subgroup (a warp, a SIMD group),
 * which run in lockstep. Their table is apart from the math functions' (math-functions.ts): a
 * subgroup function is no function of its arguments alone (its value depends on the other
 * work-items' arguments, or on which work-item asks), so no constant folding, derivative or
 * elementwise translation may treat one as such.
 *
 * Loom's subgroups are made of consecutive linear local ids (`lid(0) + size0 * (lid(1) + ...)`),
 * `subgroupSize()` of them (the last one of a work-group may be partial where the target allows
 * it), and every work-item of a subgroup must reach a call together: code generation refuses a
 * call under a condition or in a loop that depends on the local ids (codegen/subgroup-uses.ts);
 * a condition on data that differs between work-items is the user's responsibility, as in CUDA
 * and WGSL.
 */

/** One subgroup function: its arity and what it computes. */
export interface SubgroupFunction {
  /** How many arguments it takes. */
  readonly arity: number;
  /**
   * `'reduce'`: every work-item gets the operation over the subgroup's values; `'scan'`: over the
   * values of the lanes up to its own (inclusive) or before it (exclusive, the identity at lane 0);
   * `'shuffle'`: the value of the lane its second argument names; `'shuffle-xor'`: of its own lane
   * xor the second argument; `'broadcast'`: a shuffle whose lane is the same for all;
   * `'id'`: an int32 about the subgroup (no argument).
   */
  readonly kind: 'reduce' | 'scan' | 'shuffle' | 'shuffle-xor' | 'broadcast' | 'id';
  /** The operation of a reduction or scan. */
  readonly op?: 'add' | 'min' | 'max';
  /** A scan's lane included in its own result. */
  readonly inclusive?: boolean;
}

/** The subgroup functions (see the file's comment). */
export const SUBGROUP_FUNCTIONS = Object.freeze({
  subgroupAdd: { arity: 1, kind: 'reduce', op: 'add' },
  subgroupMin: { arity: 1, kind: 'reduce', op: 'min' },
  subgroupMax: { arity: 1, kind: 'reduce', op: 'max' },
  subgroupInclusiveAdd: { arity: 1, kind: 'scan', op: 'add', inclusive: true },
  subgroupExclusiveAdd: { arity: 1, kind: 'scan', op: 'add', inclusive: false },
  subgroupShuffle: { arity: 2, kind: 'shuffle' },
  subgroupShuffleXor: { arity: 2, kind: 'shuffle-xor' },
  subgroupBroadcast: { arity: 2, kind: 'broadcast' },
  // the work-item's lane in its subgroup, the subgroup's width, and its index in the work-group
  subgroupLocalId: { arity: 0, kind: 'id' },
  subgroupSize: { arity: 0, kind: 'id' },
  subgroupId: { arity: 0, kind: 'id' },
} satisfies Record<string, SubgroupFunction>);

/** The name of a subgroup function. */
export type SubgroupFunctionName = keyof typeof SUBGROUP_FUNCTIONS;

/** Whether `name` is a subgroup function. */
export const isSubgroupFunction = (name: string): name is SubgroupFunctionName =>
  Object.hasOwn(SUBGROUP_FUNCTIONS, name);

/** The entry of a subgroup function. */
export const subgroupFunction = (name: SubgroupFunctionName): SubgroupFunction => SUBGROUP_FUNCTIONS[name];
