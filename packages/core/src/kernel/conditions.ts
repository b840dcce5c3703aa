/**
 * A condition in an instruction or an expression (`if i < 80`, `if(l >= d, a[l - d], 0)`)
 * as integer constraints, for the analyses that ask where an access happens (the bounds
 * check before a launch, the check that local memory is written before it is read).
 *
 * Only conjunctions of affine comparisons become constraints: `complete` says whether every
 * part did. A caller that may weaken a condition (an access that happens under `c` also
 * happens somewhere in the larger set) uses what there is; one that must be exact asks for
 * `complete`. A condition that is a constant (`if 0`, loopy's way of switching a branch off)
 * is exact too: false is the empty set, true no constraint at all.
 *
 * `nonzero` holds the affine expressions the condition says are not 0 (`x != y`, or an
 * integer used as a truth value, `a[i-1] if i else 0`). Not being 0 is a union of two sets,
 * which no conjunction states; a caller that knows the domain can often keep the one half
 * that is not empty (`restrictToNonzero`), and one that cannot leaves it out.
 */
import type { Expr } from '../expr/nodes.ts';
import { toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import type { BasicSet, Constraint } from '../sets/index.ts';

export interface ConditionConstraints {
  readonly constraints: Constraint[];
  readonly nonzero: Linear[];
  readonly complete: boolean;
}

const NONE: ConditionConstraints = { constraints: [], nonzero: [], complete: false };
const FALSE: Constraint = { kind: 'ge', expr: Linear.constant(-1) };

export function conditionConstraints(e: Expr): ConditionConstraints {
  if (e.kind === 'logical' && e.op === 'and') {
    const l = conditionConstraints(e.left);
    const r = conditionConstraints(e.right);
    return {
      constraints: [...l.constraints, ...r.constraints],
      nonzero: [...l.nonzero, ...r.nonzero],
      complete: l.complete && r.complete,
    };
  }
  if (e.kind === 'not') {
    const inner = e.operand;
    if (inner.kind === 'compare') {
      if (inner.op === '==') return notEqual(inner.left, inner.right);
      const negated = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '!=': '==' } as const;
      return conditionConstraints({ ...inner, op: negated[inner.op] });
    }
    // not(k): an integer is false exactly where it is 0
    const value = inner.kind === 'logical' || inner.kind === 'not' ? undefined : toLinear(inner);
    return value ? { constraints: [{ kind: 'eq', expr: value }], nonzero: [], complete: true } : NONE;
  }
  if (e.kind !== 'compare') {
    const value = e.kind === 'logical' ? undefined : toLinear(e);
    if (!value) return NONE;
    if (value.isConstant) return { constraints: value.constant === 0 ? [FALSE] : [], nonzero: [], complete: true };
    return { constraints: [], nonzero: [value], complete: false };
  }
  const left = toLinear(e.left);
  const right = left && toLinear(e.right);
  if (!left || !right) return NONE;
  const constraint = (c: Constraint): ConditionConstraints => ({ constraints: [c], nonzero: [], complete: true });
  switch (e.op) {
    case '<':
      return constraint({ kind: 'ge', expr: right.sub(left).sub(1) });
    case '<=':
      return constraint({ kind: 'ge', expr: right.sub(left) });
    case '>':
      return constraint({ kind: 'ge', expr: left.sub(right).sub(1) });
    case '>=':
      return constraint({ kind: 'ge', expr: left.sub(right) });
    case '==':
      return constraint({ kind: 'eq', expr: left.sub(right) });
    case '!=':
      return notEqual(e.left, e.right);
  }
}

function notEqual(a: Expr, b: Expr): ConditionConstraints {
  const left = toLinear(a);
  const right = left && toLinear(b);
  if (!left || !right) return NONE;
  const difference = left.sub(right);
  if (difference.isConstant)
    return { constraints: difference.constant === 0 ? [FALSE] : [], nonzero: [], complete: true };
  return { constraints: [], nonzero: [difference], complete: false };
}

/**
 * `set` where `value` is not 0, when one side of 0 is empty there (`i != 0` over `0 <= i`
 * is `i >= 1`); else `set` itself, the larger set, which only a caller that may weaken a
 * condition can take.
 */
export function restrictToNonzero(set: BasicSet, value: Linear): BasicSet {
  const below = set.addConstraints([{ kind: 'ge', expr: value.negate().sub(1) }]);
  const above = set.addConstraints([{ kind: 'ge', expr: value.sub(1) }]);
  if (below.isEmpty()) return above;
  if (above.isEmpty()) return below;
  return set;
}
