/**
 * Reduction operations (loopy's `ReductionOperation`): what `sum(k, e)`, `argmax(i, v, i)`
 * or `reduce(segmented(sum), j, x[j], flag[j])` compute, told by a neutral element and a
 * combining rule, both written as expressions so that every target runs them alike.
 *
 * An operation reduces tuples of `arity` values (1 for `sum`; 2 for `argmax`: a value and
 * its index) into a tuple of as many results. Realizing a reduction (realize-reductions.ts)
 * starts from the neutral element and folds each point's values in with `combine`;
 * a parallel reduction also combines partial results with each other, in a tree, which
 * needs `combine` to be associative, and commutative unless the operation says it is not.
 *
 * The registry holds the built-ins (builtins.ts) and what users add with `registerReduction`
 * (register.ts). It only grows: a name means one operation for the life of the process, so
 * no kernel, cached code or parsed text can see two meanings of it.
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';

export interface ReductionOperation {
  /** How it is written: `sum`, `argmax`, `segmented(sum)`, or a registered name. */
  readonly name: string;
  /** Values per point, and results: 1, or 2 for `argmax` (value, index). */
  readonly arity: number;
  /**
   * Whether partial results may be combined in any order. An operation that is only
   * associative (`segmented(sum)`: a flag restarts the sum) reduces sequentially, in the
   * order of its iname's values; a parallel (local) reduction of it is refused.
   */
  readonly commutative: boolean;
  /** The dtypes of the results, from those of the operands (one per value). */
  resultDtypes(operands: readonly DType[]): readonly DType[];
  /** The neutral element for results of these dtypes: what a reduction over nothing yields. */
  neutral(dtypes: readonly DType[]): readonly Expr[];
  /**
   * One point's values as a partial result (`any` turns a number into a truth value);
   * omitted, the values are the partial result as they are.
   */
  lift?(values: readonly Expr[], operandDtypes: readonly DType[]): readonly Expr[];
  /** `a ⊕ b`, one expression per result: `a` is what came first, `b` what follows. */
  combine(a: readonly Expr[], b: readonly Expr[], dtypes: readonly DType[]): readonly Expr[];
  /**
   * For an operation whose result is always one of its two tuples whole (`argmax`): the
   * condition under which it is `b`. Realization then decides once per step instead of
   * once per result; `combine` must agree with it.
   */
  select?(a: readonly Expr[], b: readonly Expr[], dtypes: readonly DType[]): Expr;
}

const registry = new Map<string, ReductionOperation>();
/** How many operations have been registered: what was parsed before a registration may read differently after it. */
let registrations = 0;

/** Changes whenever an operation is registered (parse caches key on it: `max(k, e)` may become a reduction). */
export function reductionRegistryVersion(): number {
  return registrations;
}

/** Words that cannot name a reduction: they already mean something in an expression. */
const RESERVED = new Set(['reduce', 'simul_reduce', 'if', 'segmented', 'and', 'or', 'not', 'true', 'false']);

/** Adds `op` to the registry (the built-ins and `registerReduction` come through here). */
export function addReductionOperation(op: ReductionOperation): void {
  if (registry.has(op.name)) throw new LoomError(`a reduction named '${op.name}' is already registered`);
  if (RESERVED.has(op.name))
    throw new LoomError(`'${op.name}' cannot name a reduction: it is a word of the expression language`);
  if (!Number.isInteger(op.arity) || op.arity < 1 || op.arity > 8)
    throw new LoomError(`reduction '${op.name}': arity must be an integer from 1 to 8, got ${op.arity}`);
  registry.set(op.name, Object.freeze({ ...op }));
  registrations++;
}

/** The operation named `name`, or undefined. */
export function findReductionOperation(name: string): ReductionOperation | undefined {
  return registry.get(name);
}

/** The operation named `name`; a LoomError naming the known ones otherwise. */
export function reductionOperation(name: string): ReductionOperation {
  const op = registry.get(name);
  if (!op)
    throw new LoomError(
      `unknown reduction '${name}' (known: ${reductionNames().join(', ')}; add one with registerReduction)`,
    );
  return op;
}

/** The names of the registered operations. */
export function reductionNames(): string[] {
  return [...registry.keys()];
}

/** Whether `name` written as a call (`name(i, e)`) is a reduction. */
export function isReductionName(name: string): boolean {
  return registry.has(name);
}
