/**
 * Work-item loops moved inside a loop that every work-item runs alike, once a group's
 * work-items run one after another (serialize-work-items.ts):
 *
 *     for (lid_0 = 0; lid_0 <= 15; ++lid_0)            for (k = 0; k <= 15; ++k)
 *       for (k = 0; k <= 15; ++k)                →       for (lid_0 = 0; lid_0 <= 15; ++lid_0)
 *         acc[lid_0] += a_f[k] * b_f[16 * k + lid_0];        acc[lid_0] += a_f[k] * b_f[16 * k + lid_0];
 *
 * The work-item loop innermost is the one a C compiler vectorizes: consecutive work-items touch
 * consecutive words (PoCL puts its work-item loops there for the same reason). It runs the
 * work-items' steps in another order, which is sound because nothing orders two work-items of
 * a group between barriers: on a GPU they run at once, and an access of one work-item's data by
 * another without a barrier is a race Loom's checks refuse. What is not shared is a work-item's
 * own private scalar, which the serialized group keeps in one variable its work-items take
 * turns with (only the private values kept across barriers get a copy per work-item): a loop
 * whose body uses one is left alone, as is a loop whose bounds differ between work-items.
 *
 * A loop of more than a couple of statements is left alone too: that is a work-item's register
 * tile (an SGEMM's 4x4 accumulators updated at each step of k), which the compiler keeps in
 * registers through the loop only while the loop runs inside the work-item's (sunk, an H200
 * host's 64x64 SGEMM went from 171 to 130 GFLOP/s).
 */
import { walk } from '../expr/visit.ts';
import type { Expr } from '../expr/nodes.ts';
import { block, type Stmt } from './ast.ts';
import { soleStatement, statementsOf, walkStmts } from './stmt-visit.ts';

type ForStmt = Extract<Stmt, { kind: 'for' }>;

/** What the serialized group tells about its names. */
export interface SinkContext {
  /** The work-item counters (`lid_0`...). */
  readonly counters: ReadonlySet<string>;
  /** The kernel's temporaries: what a loop's body might change. */
  readonly temporaries: ReadonlySet<string>;
  /** The private scalars the group's work-items take turns with, in one variable. */
  readonly shared: ReadonlySet<string>;
}

/**
 * `loop`, a work-item loop, with itself moved below each loop of one statement it holds whose
 * bounds read no counter and no temporary, and whose body reads no shared private scalar. Where
 * it holds several statements, one of them such a loop, it is first split into a work-item loop
 * per run of statements (the loops on their own), which runs every work-item's first run before
 * any runs its second: as unordered as the work-items are, unless they share a private scalar
 * or C code Loom cannot see into.
 */
export function sinkCounterLoops(loop: ForStmt, context: SinkContext): Stmt {
  const inner = soleStatement(loop.body);
  if (inner?.kind === 'for') {
    if (!sinkable(loop, inner, context)) return loop;
    return { ...inner, body: sinkCounterLoops({ ...loop, body: inner.body }, context) };
  }
  const body = statementsOf(loop.body);
  const splits =
    body.some((s) => s.kind === 'for' && sinkable(loop, s, context)) && !usesAny(loop.body, context.shared);
  if (!splits) return loop;
  return { kind: 'block', body: runs(body).map((run) => sinkCounterLoops({ ...loop, body: block(run) }, context)) };
}

/** Whether the work-item loop `loop` may go inside `inner`, a loop it holds. */
function sinkable(loop: ForStmt, inner: ForStmt, { counters, temporaries, shared }: SinkContext): boolean {
  if (counters.has(inner.iname) || reads(inner, counters) || reads(inner, temporaries)) return false;
  if (reads(loop, new Set([inner.iname]))) return false;
  return !usesAny(inner.body, shared) && statementCount(inner.body) <= MAX_SUNK_STATEMENTS;
}

/** The statements in runs: each loop on its own, the statements between loops together. */
function runs(stmts: readonly Stmt[]): Stmt[][] {
  const out: Stmt[][] = [];
  for (const s of stmts) {
    const last = out[out.length - 1];
    if (s.kind !== 'for' && last && last[last.length - 1].kind !== 'for') last.push(s);
    else out.push([s]);
  }
  return out;
}

/** The most statements a loop may hold for the work-item loops to go inside it (see the module comment). */
const MAX_SUNK_STATEMENTS = 2;

/** The assignments, C code, call statements and device-function calls in `s`, at any depth. */
function statementCount(s: Stmt): number {
  let count = 0;
  walkStmts(s, {
    stmt: (x) =>
      void ((x.kind === 'assign' || x.kind === 'code' || x.kind === 'call' || x.kind === 'device-call') && count++),
  });
  return count;
}

/** Whether the bounds of `loop` read any of `names`. */
function reads(loop: ForStmt, names: ReadonlySet<string>): boolean {
  return mentions([loop.lower, loop.upper], names);
}

function mentions(exprs: readonly Expr[], names: ReadonlySet<string>): boolean {
  let found = false;
  for (const e of exprs) walk(e, (x) => void (x.kind === 'var' && names.has(x.name) && (found = true)));
  return found;
}

/**
 * Whether any statement in `s` reads or writes a name of `names`, or is C code given as is or a
 * call of a user function (whose names Loom cannot see).
 */
function usesAny(s: Stmt, names: ReadonlySet<string>): boolean {
  let found = false;
  walkStmts(s, {
    stmt: (x) => void ((x.kind === 'code' || x.kind === 'call') && (found = true)),
    expr: (e) =>
      walk(e, (y) => {
        if ((y.kind === 'var' && names.has(y.name)) || (y.kind === 'subscript' && names.has(y.array))) found = true;
      }),
  });
  return found;
}
