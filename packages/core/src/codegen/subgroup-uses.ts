/**
 * The checks on calls of subgroup functions (expr/subgroup-functions.ts), once the statements
 * exist: the target has them, for the value's dtype; a work-group of a known size is whole
 * subgroups where the target's shuffles need every lane; and no call is reached by only some
 * work-items of a subgroup, which would compute a wrong value (WGSL, OpenCL) or hang (a CUDA
 * warp shuffle with a full mask). The last is checked where the program shows it: under an `if`,
 * a `for` or a `cond ? a : b` whose condition or bounds depend on the local ids (a guard that
 * keeps a parametric domain within the work-group is one). A condition on data that differs
 * between work-items is the user's responsibility, as it is in CUDA and WGSL.
 *
 * A subgroup is consecutive linear local ids; where a kernel's work-group is a constant whole
 * number of the target's widest subgroups along `l.0`, every subgroup lies in one row of the other
 * axes, so a condition on `lid(1)` or `lid(2)` (rows side by side, the last group partly past them)
 * is the same for all its work-items.
 */
import { LoomError } from '../errors.ts';
import type { DType } from '../dtypes.ts';
import type { Expr } from '../expr/nodes.ts';
import { children, printExpr } from '../expr/index.ts';
import { isSubgroupFunction, subgroupFunction, type SubgroupFunctionName } from '../expr/subgroup-functions.ts';
import { exprTypes } from '../kernel/type-inference.ts';
import type { DeviceFunction, KernelFunction, Stmt } from './ast.ts';
import { ownExpressions, subStatements, walkStmts } from './stmt-visit.ts';
import type { TargetFacts } from './target-facts.ts';

type Fn = KernelFunction | DeviceFunction;

/** Refuses what the file's comment says; `facts` undefined (no target yet) checks only the control flow. */
export function checkSubgroupUses(
  program: { readonly kernels: readonly KernelFunction[]; readonly deviceFunctions?: readonly DeviceFunction[] },
  facts: TargetFacts | undefined,
  targetName: string | undefined,
): void {
  const functions = program.deviceFunctions ?? [];
  const calling = new Set(functions.filter((f) => firstSubgroupCall(f.body) !== undefined).map((f) => f.name));
  const kernels = new Set<Fn>(program.kernels);
  for (const fn of [...program.kernels, ...functions]) {
    const first = firstSubgroupCall(fn.body);
    if (first === undefined && !callsAny(fn.body, calling)) continue;
    if (first !== undefined && facts) {
      checkTarget(fn, first, facts, targetName ?? 'this');
      if (kernels.has(fn)) checkWholeSubgroups(fn as KernelFunction, first, facts);
    }
    new Uniformity(fn, calling, rowsAreSubgroups(fn, facts)).check(fn.body, []);
  }
}

function checkTarget(fn: Fn, first: Expr & { kind: 'call' }, facts: TargetFacts, target: string): void {
  const support = facts.subgroups;
  if ('refused' in support)
    throw new LoomError(`${first.fn}: the ${target} target cannot call subgroup functions: ${support.refused}`);
  const types = exprTypes((name) => fn.types.get(name));
  walkStmts(fn.body, {
    expr: (e) =>
      walkCalls(e, (call) => {
        if (subgroupFunction(call.fn as SubgroupFunctionName).kind === 'id') return;
        const dtype: DType = types(call.args[0]).dtype;
        if (!support.dtypes.includes(dtype))
          throw new LoomError(
            `${call.fn}: the ${target} target's subgroup functions take ${support.dtypes.join(', ')} values, not ${dtype}: ${printExpr(call)}`,
          );
      }),
  });
}

/** Whether `fn`'s `l.0` is a constant whole number of the target's widest subgroups (see the file's comment). */
function rowsAreSubgroups(fn: Fn, facts: TargetFacts | undefined): boolean {
  const support = facts?.subgroups;
  if (!support || 'refused' in support || !('localSize' in fn)) return false;
  const widest = typeof support.size === 'number' ? support.size : support.size.max;
  const row = fn.localSize[0];
  return row !== undefined && row.kind === 'int' && row.value % widest === 0;
}

/** A work-group of a constant size must be whole subgroups where a subgroup has a fixed width (full-mask shuffles). */
function checkWholeSubgroups(fn: KernelFunction, first: Expr & { kind: 'call' }, facts: TargetFacts): void {
  const support = facts.subgroups;
  if ('refused' in support || typeof support.size !== 'number') return;
  if (!fn.localSize.every((s) => s.kind === 'int')) return;
  const items = fn.localSize.reduce((n, s) => n * (s.kind === 'int' ? s.value : 1), 1);
  if (items % support.size !== 0)
    throw new LoomError(
      `${first.fn}: kernel '${fn.name}' has work-groups of ${items} work-items, not a whole number of subgroups of ${support.size}: make the work-group size a multiple of ${support.size}`,
    );
}

/** Calls `f` on each call of a subgroup function in `e`. */
function walkCalls(e: Expr, f: (call: Expr & { kind: 'call' }) => void): void {
  if (e.kind === 'call' && isSubgroupFunction(e.fn)) f(e);
  for (const c of children(e)) walkCalls(c, f);
}

function firstSubgroupCall(body: Stmt): (Expr & { kind: 'call' }) | undefined {
  let found: (Expr & { kind: 'call' }) | undefined;
  walkStmts(body, {
    expr: (e) =>
      walkCalls(e, (call) => {
        found ??= call;
      }),
  });
  return found;
}

function callsAny(body: Stmt, names: ReadonlySet<string>): boolean {
  let found = false;
  walkStmts(body, {
    stmt: (s) => {
      if (s.kind === 'device-call' && names.has(s.function)) found = true;
    },
  });
  return found;
}

/**
 * Which names hold values that differ between the work-items of a subgroup: those computed from
 * the local ids (a loop counter with such bounds, a private variable assigned such a value), to
 * a fixed point. A subgroup function's value is the same across its subgroup (a reduction, a
 * broadcast, the subgroup's id), except the lane's own.
 */
class Uniformity {
  private readonly varying = new Set<string>();
  private readonly privates = new Set<string>();

  constructor(
    private readonly fn: Fn,
    private readonly calling: ReadonlySet<string>,
    /** Whether each subgroup lies in one row of `l.1`, `l.2` (`rowsAreSubgroups`). */
    private readonly rowsAreSubgroups: boolean,
  ) {
    walkStmts(fn.body, {
      stmt: (s) => {
        if (s.kind === 'declare' && s.addressSpace === 'private') this.privates.add(s.name);
      },
    });
    for (let changed = true; changed; ) {
      changed = false;
      walkStmts(fn.body, {
        stmt: (s) => {
          const name =
            s.kind === 'for'
              ? s.iname
              : s.kind === 'assign' && (s.target.kind === 'var' || s.target.kind === 'subscript')
                ? s.target.kind === 'var'
                  ? s.target.name
                  : s.target.array
                : undefined;
          if (name === undefined || this.varying.has(name)) return;
          if (s.kind === 'assign' && s.target.kind === 'subscript' && !this.privates.has(name)) return;
          if (ownExpressions(s).some((e) => this.differs(e))) {
            this.varying.add(name);
            changed = true;
          }
        },
      });
    }
  }

  /** Whether `e` may differ between the work-items of a subgroup. */
  private differs(e: Expr): boolean {
    switch (e.kind) {
      case 'var':
        return this.varying.has(e.name);
      case 'subscript':
        return this.varying.has(e.array) || e.indices.some((x) => this.differs(x));
      case 'call':
        // a row's index is one value across a subgroup that lies in the row
        if (e.fn === 'lid') return !(this.rowsAreSubgroups && e.args[0]?.kind === 'int' && e.args[0].value >= 1);
        if (isSubgroupFunction(e.fn)) {
          const f = subgroupFunction(e.fn);
          return f.kind === 'scan' || f.kind === 'shuffle' || f.kind === 'shuffle-xor' || e.fn === 'subgroupLocalId';
        }
        return e.args.some((x) => this.differs(x));
      default:
        return children(e).some((x) => this.differs(x));
    }
  }

  /**
   * Refuses a subgroup call in `s` reached under one of `around` (what depends on the local ids);
   * the ids (`subgroupLocalId()`) need no other work-item and may be read anywhere.
   */
  check(s: Stmt, around: readonly string[]): void {
    if (around.length > 0) {
      const reached = ownExpressions(s).flatMap((e) => {
        const calls: string[] = [];
        walkCalls(e, (c) => {
          if (subgroupFunction(c.fn as SubgroupFunctionName).kind !== 'id') calls.push(c.fn);
        });
        return calls;
      });
      if (s.kind === 'device-call' && this.calling.has(s.function)) reached.push(`function ${s.function}`);
      if (reached.length > 0) this.refuse(reached[0], around[around.length - 1]);
    }
    for (const e of ownExpressions(s)) this.checkExpr(e, around);
    const inner =
      s.kind === 'if' && this.differs(s.condition)
        ? [...around, `the condition ${printExpr(s.condition)}`]
        : s.kind === 'for' && (this.differs(s.lower) || this.differs(s.upper))
          ? [...around, `the loop over ${s.iname} from ${printExpr(s.lower)} to ${printExpr(s.upper)}`]
          : around;
    for (const x of subStatements(s)) this.check(x, inner);
  }

  /** The branches of `c ? a : b` and the right operand of `&&`/`||`, where only some work-items evaluate them. */
  private checkExpr(e: Expr, around: readonly string[]): void {
    const guarded = (condition: Expr, parts: readonly Expr[]) => {
      if (!this.differs(condition)) return;
      for (const part of parts)
        walkCalls(part, (c) => {
          if (subgroupFunction(c.fn as SubgroupFunctionName).kind !== 'id')
            this.refuse(c.fn, `the condition ${printExpr(condition)}`);
        });
    };
    if (e.kind === 'if') guarded(e.condition, [e.then, e.otherwise]);
    if (e.kind === 'logical') guarded(e.left, [e.right]);
    for (const c of children(e)) this.checkExpr(c, around);
  }

  private refuse(what: string, where: string): never {
    throw new LoomError(
      `${what}: in '${this.fn.name}', reached under ${where}, which depends on the local ids: every work-item of a subgroup must reach a subgroup function together (make the work-group cover the domain exactly, or call it outside the condition)`,
    );
  }
}
