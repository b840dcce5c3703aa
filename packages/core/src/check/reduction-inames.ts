/**
 * A reduction runs its own loop over its inames. Reducing over an iname the
 * instruction already sits in (`a[i] = sum(i, 2)`, or `sum(i, sum(i, ...))`) would
 * reuse the outer loop's variable for the inner loop: loopy's realize_reduction
 * refuses with "reduction used within loop(s) that it was supposed to reduce over".
 */
import type { Expr } from '../expr/nodes.ts';
import { walkScoped } from '../expr/index.ts';
import { expandSubstitutions } from '../kernel/accesses.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { fail, quoted } from './check-error.ts';

export function checkReductionInamesNotSurrounding(knl: LoopKernel): void {
  for (const insn of knl.instructions) {
    // what surrounds a reduction: the instruction's loops and the reductions around it
    const visit = (e: Expr, surrounding: readonly string[]): void => {
      if (e.kind === 'reduce') {
        const bad = e.inames.filter((n) => surrounding.includes(n));
        if (bad.length) {
          const within = bad.filter((n) => insn.withinInames.includes(n));
          fail(knl, insn, {
            check: 'reduction_within_its_inames',
            inames: bad,
            problem:
              `uses a reduction within loop(s) that it was supposed to reduce over: ${quoted(bad)} ` +
              (within.length
                ? '(the instruction already runs inside them)'
                : '(an enclosing reduction already runs over them)'),
            fix: `Reduce over a fresh iname with the same range (add it to the domain, e.g. duplicate the iname), or take ${quoted(bad)} out of the instruction.`,
          });
        }
      }
    };
    const exprs = [insn.expression, ...insn.predicates].filter((e): e is Expr => e !== undefined);
    for (const e of exprs) walkScoped(expandSubstitutions(e, knl.substitutions), visit, insn.withinInames);
  }
}

/**
 * A `vec` iname's lanes run at once, so a reduction cannot loop over one (its accumulator
 * would be one vector lane per value, combined by nothing). Tag it `unr` or leave it a loop.
 */
export function checkNoReductionOverVecInames(knl: LoopKernel): void {
  for (const insn of knl.instructions) {
    const visit = (e: Expr): void => {
      if (e.kind !== 'reduce') return;
      const vec = e.inames.filter((n) => knl.inameTags.get(n)?.kind === 'vec');
      if (vec.length) {
        fail(knl, insn, {
          check: 'reduction_over_vec_iname',
          inames: vec,
          problem: `reduces over the vec iname(s) ${quoted(vec)}, whose lanes run at once`,
          fix: `Tag ${quoted(vec)} 'unr' (or leave it a loop) to reduce over it; a vec iname is for lanes that are written apart.`,
        });
      }
    };
    const exprs = [insn.expression, ...insn.predicates].filter((e): e is Expr => e !== undefined);
    for (const e of exprs) walkScoped(expandSubstitutions(e, knl.substitutions), visit, insn.withinInames);
  }
}
