/**
 * A condition in an instruction or an expression (`if i < 80`, `if(l >= d, a[l - d], 0)`)
 * as integer constraints, for the analyses that ask where an access happens (the bounds
 * check before a launch, the check that local memory is written before it is read).
 *
 * Only conjunctions of affine comparisons become constraints: `complete` says whether every
 * part did. A caller that may weaken a condition (an access that happens under `c` also
 * happens somewhere in the larger set) uses what there is; one that must be exact asks for
 * `complete`.
 */
import type { Expr } from '../expr/nodes.ts';
import { toLinear } from '../expr/index.ts';
import type { Constraint } from '../sets/index.ts';

export function conditionConstraints(e: Expr): { readonly constraints: Constraint[]; readonly complete: boolean } {
  if (e.kind === 'logical' && e.op === 'and') {
    const l = conditionConstraints(e.left);
    const r = conditionConstraints(e.right);
    return { constraints: [...l.constraints, ...r.constraints], complete: l.complete && r.complete };
  }
  if (e.kind === 'not' && e.operand.kind === 'compare' && e.operand.op !== '==') {
    const negated = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '!=': '==' } as const;
    return conditionConstraints({ ...e.operand, op: negated[e.operand.op] });
  }
  const none = { constraints: [], complete: false };
  if (e.kind !== 'compare') return none;
  const left = toLinear(e.left);
  const right = left && toLinear(e.right);
  if (!left || !right) return none;
  switch (e.op) {
    case '<':
      return { constraints: [{ kind: 'ge', expr: right.sub(left).sub(1) }], complete: true };
    case '<=':
      return { constraints: [{ kind: 'ge', expr: right.sub(left) }], complete: true };
    case '>':
      return { constraints: [{ kind: 'ge', expr: left.sub(right).sub(1) }], complete: true };
    case '>=':
      return { constraints: [{ kind: 'ge', expr: left.sub(right) }], complete: true };
    case '==':
      return { constraints: [{ kind: 'eq', expr: left.sub(right) }], complete: true };
    case '!=':
      return none;
  }
}
