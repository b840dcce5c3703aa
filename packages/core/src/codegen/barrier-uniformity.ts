/**
 * Every work-item of a group must reach the same local barriers (OpenCL, CUDA and WGSL leave it
 * undefined otherwise: a GPU hangs or, as PoCL did, computes a wrong result without a word). A
 * barrier inside a loop whose bounds, or a guard whose condition, differ between the work-items
 * of a group breaks that: a segmented product whose segment (`start <= s < stop`, read per
 * work-item from `starts[b]` with `b` on l.0) is reduced across l.1 put its tree's barriers
 * inside the segment's loop (seed 1531460751). This refuses such a kernel before it runs.
 *
 * What may differ between work-items: the local ids, a loop counter whose bounds may differ, and
 * a private value assigned from any of these or under a loop or guard that may differ (found by
 * following assignments to a fixed point). Targets that run a group's work-items one after
 * another check this themselves, more strictly, as they cut the body at its barriers
 * (serialize-work-items.ts) or run it (the CPU device).
 */
import { LoomError } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { walk } from '../expr/visit.ts';
import type { KernelFunction, Stmt } from './ast.ts';
import { someStmt, statementsOf, walkStmts } from './stmt-visit.ts';

/** Refuses a kernel of `kernels` that has a local barrier under a loop or guard that may differ between work-items. */
export function checkBarrierUniformity(kernels: readonly KernelFunction[]): void {
  for (const k of kernels) {
    if (!someStmt(k.body, (s) => s.kind === 'barrier' && s.scope === 'local')) continue;
    const varying = varyingNames(k.body);
    check(k, statementsOf(k.body), varying);
  }
}

/** The names (private variables and loop counters) whose values may differ between the work-items of a group. */
function varyingNames(body: Stmt): Set<string> {
  const privates = new Set<string>();
  walkStmts(body, {
    stmt: (s) => {
      if (s.kind === 'declare' && s.addressSpace === 'private' && !s.initializer) privates.add(s.name);
    },
  });
  const varying = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    const mark = (name: string) => {
      if (!varying.has(name)) {
        varying.add(name);
        changed = true;
      }
    };
    const visit = (s: Stmt, under: boolean): void => {
      switch (s.kind) {
        case 'block':
          for (const x of s.body) visit(x, under);
          return;
        case 'for': {
          const differs = under || reads([s.lower, s.upper], varying).length > 0;
          if (differs) mark(s.iname);
          visit(s.body, differs);
          return;
        }
        case 'if':
          visit(s.then, under || reads([s.condition], varying).length > 0);
          return;
        case 'assign': {
          const name = assignedPrivate(s.target, privates);
          if (name && (under || reads([s.value, s.target], varying).length > 0)) mark(name);
          return;
        }
        default:
          return;
      }
    };
    visit(body, false);
  }
  return varying;
}

/** The private variable an assignment writes (`t` or `t[k]`), if it writes one. */
function assignedPrivate(target: Expr, privates: ReadonlySet<string>): string | undefined {
  if (target.kind === 'var' && privates.has(target.name)) return target.name;
  if (target.kind === 'subscript' && privates.has(target.array)) return target.array;
  return undefined;
}

/** What of `exprs` may differ between work-items: `the local id`, or the names in `varying` they read. */
function reads(exprs: readonly Expr[], varying: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const e of exprs)
    walk(e, (x) => {
      if (x.kind === 'call' && x.fn === 'lid') found.add('the local id');
      if (x.kind === 'var' && varying.has(x.name)) found.add(`'${x.name}'`);
      if (x.kind === 'subscript' && varying.has(x.array)) found.add(`'${x.array}'`);
    });
  return [...found];
}

function check(k: KernelFunction, stmts: readonly Stmt[], varying: ReadonlySet<string>): void {
  for (const s of stmts) {
    if (!someStmt(s, (x) => x.kind === 'barrier' && x.scope === 'local')) continue;
    if (s.kind === 'block') check(k, s.body, varying);
    if (s.kind !== 'for' && s.kind !== 'if') continue;
    const exprs = s.kind === 'for' ? [s.lower, s.upper] : [s.condition];
    const differ = reads(exprs, varying);
    if (differ.length)
      throw new LoomError(
        `kernel '${k.name}': a local barrier${firstBarrier(s)} lies inside ${s.kind === 'for' ? `loop '${s.iname}', whose bounds` : 'a guard whose condition'} read${differ.length > 1 ? '' : 's'} ${differ.join(' and ')}, which may differ between the work-items of a group: ` +
          'every work-item must reach the same barriers (the targets leave it undefined otherwise). Make the loop or condition depend on group ids and parameters only, or keep what it reduces or shares out of it',
      );
    check(k, statementsOf(s.kind === 'for' ? s.body : s.then), varying);
  }
}

/** ` (for a (x depends on y))`: the first local barrier in `s`, as its comment says which instructions it orders. */
export function firstBarrier(s: Stmt): string {
  let comment: string | undefined;
  walkStmts(s, {
    stmt: (x) => {
      if (comment === undefined && x.kind === 'barrier' && x.scope === 'local') comment = x.comment ?? '';
    },
  });
  return comment ? ` (${comment})` : '';
}
