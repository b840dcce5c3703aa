/**
 * Atomic fetches: read-modify-write operations on one element of an array that return the
 * element's value from before the operation (CUDA's `atomicAdd`, OpenCL's `atomic_add`, WGSL's
 * `atomicAdd`, C's `__atomic_fetch_add`). Where an `{atomic}` instruction updates an element and
 * nobody learns what it held, a fetch tells the one work-item that made it:
 *
 *   <int32> ticket = atomicAdd(counter[0], 1)         # each work-item a different ticket
 *   <int32> seen = atomicCompareExchange(lock[0], 0, 1)   # 0: this work-item took the lock
 *
 * Their table is apart from the math functions' (math-functions.ts), as the subgroup functions'
 * is (subgroup-functions.ts): a fetch is no function of its arguments (it writes memory, and what
 * it returns depends on every other work-item's fetches), so no folding, derivative, hoisting or
 * elementwise translation may treat one as such. A fetch is the whole right-hand side of an
 * assignment to a private temporary, never part of a larger expression, and its first argument
 * is an element of an array declared `forAtomic` (global, or local); the front end refuses
 * anything else (check/atomic-fetches.ts), so every later pass meets a fetch only there.
 */

/** One atomic fetch: what it stores at the element, given the element's old value. */
export interface AtomicFunction {
  /** Its arguments: the element, then the operand (and for compare-exchange the expected value first). */
  readonly arity: number;
  /**
   * `'add'`/`'sub'`: old ± operand; `'min'`/`'max'`: the smaller or larger of the two (a NaN
   * propagates, as Loom's min and max do everywhere); `'exchange'`: the operand;
   * `'compare-exchange'`: the operand where old equals the expected value, else old.
   */
  readonly op: 'add' | 'sub' | 'min' | 'max' | 'exchange' | 'compare-exchange';
}

/** The atomic fetches (see the file's comment), named as the subgroup functions are. */
export const ATOMIC_FUNCTIONS = Object.freeze({
  atomicAdd: { arity: 2, op: 'add' },
  atomicSub: { arity: 2, op: 'sub' },
  atomicMin: { arity: 2, op: 'min' },
  atomicMax: { arity: 2, op: 'max' },
  atomicExchange: { arity: 2, op: 'exchange' },
  // (element, expected, desired): desired is stored only where the element held expected
  atomicCompareExchange: { arity: 3, op: 'compare-exchange' },
} satisfies Record<string, AtomicFunction>);

/** The name of an atomic fetch. */
export type AtomicFunctionName = keyof typeof ATOMIC_FUNCTIONS;

/**
 * Whether `name` is an atomic fetch.
 * ```ts
 * isAtomicFunction('atomicAdd');   // true
 * isAtomicFunction('subgroupAdd'); // false
 * ```
 */
export const isAtomicFunction = (name: string): name is AtomicFunctionName => Object.hasOwn(ATOMIC_FUNCTIONS, name);

/**
 * The entry of an atomic fetch: its arity and the operation it makes on the element.
 * ```ts
 * atomicFunction('atomicCompareExchange'); // { arity: 3, op: 'compare-exchange' }
 * ```
 */
export const atomicFunction = (name: AtomicFunctionName): AtomicFunction => ATOMIC_FUNCTIONS[name];
