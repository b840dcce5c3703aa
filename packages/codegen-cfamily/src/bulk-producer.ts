/**
 * Warp specialisation of a kernel's bulk copies (the kernel option `warpSpecialized`): the requests
 * are made by a work-item of their own, on one more row of the work-group, while the work-items of
 * the kernel (the consumers) only wait for what lands and compute. Without it the first work-item
 * makes the requests between its own products, and waits there for the others' arrivals; with it,
 * no consumer ever waits for a request to be made (CUTLASS's warp-specialised Hopper kernels):
 *
 *     if (tIdx(y) == 2)                    the producer's row: one more along the last axis
 *     {
 *       if (tIdx(x) == 0)                  its first work-item runs the loops around the requests:
 *       { ...each request after the latest release, each barrier an arrival... }
 *       return;
 *     }
 *     ...the kernel as it was, but for the requests...
 *
 * The producer runs the loops and guards around the requests, the commits and the barriers, and
 * nothing else: their bounds and conditions must depend on no work-item's id and on no value the
 * kernel computes (a LoomError says which does). It arrives at each release as the consumers do,
 * so that a release's barrier object is never reused before the producer has waited for it. The
 * barriers must all be releases: a barrier of the whole group would wait for the producer's row,
 * which has left.
 */
import {
  expr as E,
  LoomError,
  someStmt,
  statementsOf,
  statementsOfKind,
  subStatements,
  type Expr,
  type KernelFunction,
  type Stmt,
} from '@loom/core';

/** Where the producer is: its row of the work-group, and the work-group it makes. */
export interface ProducerPlan {
  /** The local axis the producer's row extends (the last of several work-items). */
  readonly axis: number;
  /** The producer's index along it: the work-group's size along it before. */
  readonly index: number;
  /** The work-group's size with the producer's row: what the kernel is launched with. */
  readonly localSize: readonly number[];
}

/** What a kernel's statements are printed for: everyone (no producer), the producer, or the consumers. */
export type BulkRole = 'all' | 'producer' | 'consumer';

/** The statements of a kernel with a producer, by what they are to it. */
export interface ProducerStatements {
  /** The requests, by their nests' first statements. */
  readonly issues: { has(s: Stmt): boolean };
  /** The statements a group of copies is closed after. */
  readonly commitAfter: { has(s: Stmt): boolean };
}

/**
 * The producer of kernel `k` (undefined where it asks for none), with the work-items of its group
 * (`localSize`, constants); a LoomError where its barriers are not all releases (`releaseProblem`)
 * or what the producer would run depends on the work-item or on computed values.
 */
export function producerPlan(
  k: KernelFunction,
  localSize: readonly number[],
  releaseProblem: string | undefined,
  statements: ProducerStatements,
): ProducerPlan | undefined {
  if (!k.warpSpecialized) return undefined;
  const refuse = (why: string) =>
    new LoomError(`kernel '${k.name}' is warpSpecialized, but ${why}; set warpSpecialized to false here`);
  if (k.bulkRelease === 'barriers') throw refuse("its barriers are the work-group's (bulkRelease 'barriers')");
  if (releaseProblem) throw refuse(`${releaseProblem}, which only a barrier of the work-group orders`);
  const global = statementsOfKind(k.body, 'barrier').find((b) => b.scope === 'global');
  if (global) throw refuse('it has a barrier across global memory, which the producer would never reach');
  const nested = nestedLocalDeclaration(k.body);
  if (nested) throw refuse(`its local array '${nested}' is declared within a loop or guard`);
  checkProducerControl(k, statements);
  const used = localSize.map((n, axis) => (n > 1 ? axis : -1)).filter((axis) => axis >= 0);
  const axis = used.length ? used[used.length - 1] : 0;
  const grown = [...localSize];
  while (grown.length <= axis) grown.push(1);
  grown[axis] += 1;
  return { axis, index: localSize[axis] ?? 1, localSize: grown };
}

/**
 * Whether statement `s` is printed for `role`: the producer runs the requests, the barriers and the
 * loops and guards around them; the consumers everything but the requests. Both run the loops and
 * guards around a group's close, which each counts (a commit after a statement is printed for both,
 * whether the statement is or not).
 */
export function runsIn(s: Stmt, role: BulkRole, statements: ProducerStatements): boolean {
  if (role === 'all') return true;
  if (statements.issues.has(s)) return role === 'producer';
  switch (s.kind) {
    // both count the groups closed within
    case 'block':
    case 'for':
    case 'if':
      return subStatements(s).some(
        (c) => runsIn(c, role, statements) || someStmt(c, (x) => statements.commitAfter.has(x)),
      );
    case 'barrier':
      return true;
    default:
      return role === 'consumer';
  }
}

/** A local array declared below the kernel's outermost statements (which the producer could not see); undefined where none. */
function nestedLocalDeclaration(body: Stmt): string | undefined {
  const outermost = new Set(statementsOf(body));
  return statementsOfKind(body, 'declare').find((d) => d.addressSpace === 'local' && !outermost.has(d))?.name;
}

/**
 * A LoomError where a loop bound or guard the producer runs reads a work-item's id or a name that
 * is neither a value argument nor the counter of a loop around it (a value the consumers compute).
 */
function checkProducerControl(k: KernelFunction, statements: ProducerStatements): void {
  const values = new Set(k.params.filter((p) => p.kind === 'value').map((p) => p.name));
  const check = (e: Expr, where: string, counters: readonly string[]) => {
    if (E.someExpr(e, (x) => x.kind === 'call' && x.fn === 'lid'))
      throw new LoomError(
        `kernel '${k.name}' is warpSpecialized, but ${where} depends on the work-item's id, which the producer does not share; set warpSpecialized to false here`,
      );
    const foreign = [...E.freeVariables(e)].find((name) => !values.has(name) && !counters.includes(name));
    if (foreign !== undefined)
      throw new LoomError(
        `kernel '${k.name}' is warpSpecialized, but ${where} reads '${foreign}', which the producer does not compute; set warpSpecialized to false here`,
      );
  };
  const walk = (s: Stmt, counters: readonly string[]): void => {
    if (!runsIn(s, 'producer', statements) || statements.issues.has(s)) return;
    if (s.kind === 'block') for (const c of s.body) walk(c, counters);
    else if (s.kind === 'for') {
      check(s.lower, `the loop '${s.iname}' around its bulk copies`, counters);
      check(s.upper, `the loop '${s.iname}' around its bulk copies`, counters);
      walk(s.body, [...counters, s.iname]);
    } else if (s.kind === 'if') {
      check(s.condition, 'a guard around its bulk copies', counters);
      walk(s.then, counters);
    }
  };
  walk(k.body, []);
}
