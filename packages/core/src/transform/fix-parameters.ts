/**
 * `fixParameters(knl, { n: 128 })`: the kernel is specialized to one value of a
 * parameter. The value replaces the name in the domains, the assumptions, the array
 * shapes, the instructions and the substitution rules, and the value argument goes
 * away: the caller no longer passes it, and loop bounds, grid sizes and guards become
 * constants that code generation can use (a constant loop can be unrolled, a
 * constant-size array can live in a temporary).
 */
import { LoomError } from '../errors.ts';
import { int, type Expr } from '../expr/nodes.ts';
import { simplify, substitute } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet } from '../sets/index.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** The kernel with domain parameters fixed to values (loopy's `fix_parameters`). */
export function fixParameters(knl: LoopKernel, values: Readonly<Record<string, number>>): LoopKernel {
  const fixed = new Map(Object.entries(values));
  if (fixed.size === 0) return knl;
  checkParameters(knl, fixed);

  const domains = knl.domains.map((d) => fixInSet(d, fixed));
  const assumptions = fixInSet(knl.assumptions, fixed);
  if (assumptions.isEmpty()) {
    const given = [...fixed].map(([n, v]) => `${n} = ${v}`).join(', ');
    throw new LoomError(`fixParameters: ${given} contradicts the kernel's assumptions ${knl.assumptions.toString()}`);
  }

  const literals = new Map([...fixed].map(([n, v]) => [n, int(v)] as const));
  // a shape becomes a constant where it can: a constant-size array can be a temporary
  const shapes = (s: Expr) => simplify(substitute(s, literals), { integer: true });
  const rewritten = mapKernelExpressions(knl, (e) => substitute(e, literals), { what: 'fixParameters', shapes });
  const args = rewritten.args.filter((a) => !(a.kind === 'value' && fixed.has(a.name)));
  return rewritten.with({ domains, assumptions, args });
}

/** Only integer parameters can be fixed: names the domains, assumptions or value arguments use. */
function checkParameters(knl: LoopKernel, fixed: ReadonlyMap<string, number>): void {
  const inames = new Set(knl.inames);
  const parameters = new Set([
    ...knl.domains.flatMap((d) => d.params).filter((p) => !inames.has(p)),
    ...knl.assumptions.params,
    ...knl.args.filter((a) => a.kind === 'value').map((a) => a.name),
  ]);
  for (const [name, value] of fixed) {
    if (inames.has(name)) throw new LoomError(`fixParameters: '${name}' is an iname, not a parameter`);
    const arg = knl.arg(name);
    if (arg && arg.kind !== 'value')
      throw new LoomError(`fixParameters: '${name}' is an array argument, not a parameter`);
    if (!parameters.has(name)) {
      throw new LoomError(
        `fixParameters: the kernel has no parameter '${name}' (parameters: ${[...parameters].join(', ') || 'none'})`,
      );
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new LoomError(`fixParameters: '${name}' must be fixed to an integer, got ${String(value)}`);
    }
    if (arg?.dtype !== undefined && !/int/.test(arg.dtype)) {
      throw new LoomError(`fixParameters: '${name}' is a ${arg.dtype} value; only integer parameters can be fixed`);
    }
  }
}

/** The set with each fixed parameter replaced by its value (and no longer a parameter). */
function fixInSet(set: BasicSet, fixed: ReadonlyMap<string, number>): BasicSet {
  const names = set.params.filter((p) => fixed.has(p));
  if (names.length === 0) return set;
  const constraints = set.constraints.map((c) => ({
    kind: c.kind,
    expr: names.reduce((e, n) => e.substitute(n, Linear.constant(fixed.get(n)!)), c.expr),
  }));
  return BasicSet.fromConstraints(
    set.params.filter((p) => !fixed.has(p)),
    set.dims,
    constraints,
    set.existentials,
  );
}
