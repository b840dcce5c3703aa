/**
 * `collectCommonFactorsOnIncrement` (loopy's `collect_common_factors_on_increment`): when
 * every update of an accumulator multiplies its increment by the same factors
 * (`acc = acc + alpha[i]*a[i,j]*b[j]`), the factors leave the updates and go to where the
 * accumulator is read (`out[i] = alpha[i]*acc`): one multiplication per result instead of
 * one per term.
 */
import { LoomError } from '../errors.ts';
import { binary, int, type Expr } from '../expr/nodes.ts';
import { arraysAccessed, exprEquals, freeVariables, mapExpr } from '../expr/index.ts';
import { assigneeName } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { expandSubst } from './substitutions.ts';

/**
 * Moves the factors common to every increment of `name` out of its updates and into its
 * reads. Only loopy's default, `vary_by_axes=()`, is supported (one set of factors for the
 * whole array); a factor that depends on an iname a read of `name` is not inside is refused,
 * as it would have no value there.
 *
 *   knl = collectCommonFactorsOnIncrement(knl, 'out_tmp');
 */
export function collectCommonFactorsOnIncrement(
  knl: LoopKernel,
  name: string,
  varyByAxes: string | readonly (string | number)[] = [],
): LoopKernel {
  const what = `collectCommonFactorsOnIncrement(${name})`;
  if (!knl.temporaries.has(name) && !knl.arg(name))
    throw new LoomError(`${what}: '${name}' is not an array or temporary of the kernel`);
  if (varyByAxes.length > 0)
    throw new LoomError(
      `${what}: varyByAxes (factors per element along some axes) is not supported; leave it out for factors common to the whole array`,
    );
  if (knl.substitutions.size > 0) knl = expandSubst(knl);
  const writes = (insn: Instruction) => insn.assignees.some((a) => assigneeName(a) === name);

  let common: Expr[] | undefined;
  for (const insn of knl.instructions.filter(writes)) {
    if (insn.kind !== 'assign' || insn.assignees.length !== 1 || insn.expression === undefined)
      throw new LoomError(`${what}: '${name}' is modified by '${insn.id}', which is not a single assignment`);
    if (isZero(insn.expression)) continue;
    for (const term of increments(insn)) {
      const parts = factors(term);
      if (parts.some((p) => mentions(p, name)))
        throw new LoomError(`${what}: instruction '${insn.id}' reads '${name}' in a term of its increment`);
      common = (common ?? parts).filter((c) => parts.some((p) => exprEquals(p, c)));
    }
  }
  if (!common?.length) throw new LoomError(`${what}: no common factors found`);
  const shared = common;

  for (const reader of knl.instructions.filter((insn) => !writes(insn))) {
    for (const factor of shared)
      for (const v of freeVariables(factor))
        if (knl.inames.includes(v) && !reader.withinInames.includes(v) && readsName(reader, name))
          throw new LoomError(
            `${what}: the common factor depends on '${v}', and '${reader.id}' reads '${name}' outside loop '${v}': the factor has no value there`,
          );
  }

  const instructions = knl.instructions.map((insn) => {
    if (writes(insn)) {
      if (isZero(insn.expression!)) return insn;
      const lhs = insn.assignees[0];
      const terms = sumTerms(insn.expression!).map((term) =>
        exprEquals(term, lhs) ? term : product(factors(term).filter((p) => !shared.some((c) => exprEquals(p, c)))),
      );
      return { ...insn, expression: terms.reduce((a, b) => binary('+', a, b)) };
    }
    const scaled = (e: Expr) =>
      mapExpr(e, (x) =>
        (x.kind === 'var' && x.name === name) || (x.kind === 'subscript' && x.array === name)
          ? product([...shared, x])
          : x,
      );
    return {
      ...insn,
      expression: insn.expression && scaled(insn.expression),
      predicates: insn.predicates.map(scaled),
    };
  });
  return knl.with({ instructions });
}

const isZero = (e: Expr) => (e.kind === 'int' || e.kind === 'float') && e.value === 0;

/** The terms of `insn`'s right-hand side other than the accumulator itself. */
function increments(insn: Instruction): Expr[] {
  return sumTerms(insn.expression!).filter((t) => !exprEquals(t, insn.assignees[0]));
}

/** `a + b + c` as [a, b, c]. */
function sumTerms(e: Expr): Expr[] {
  return e.kind === 'binary' && e.op === '+' ? [...sumTerms(e.left), ...sumTerms(e.right)] : [e];
}

/** `a * b * c` as [a, b, c]. */
function factors(e: Expr): Expr[] {
  return e.kind === 'binary' && e.op === '*' ? [...factors(e.left), ...factors(e.right)] : [e];
}

const product = (parts: readonly Expr[]): Expr => (parts.length ? parts.reduce((a, b) => binary('*', a, b)) : int(1));

/** Whether `e` reads `name`, as a scalar or as an array. */
const mentions = (e: Expr, name: string) => freeVariables(e).has(name) || arraysAccessed(e).has(name);

function readsName(insn: Instruction, name: string): boolean {
  return [insn.expression, ...insn.predicates].some((e) => e !== undefined && mentions(e, name));
}
