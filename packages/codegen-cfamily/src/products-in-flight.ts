/**
 * Matrix products left in flight across a barrier (CUDA's `wgmma`, whose products run while the
 * work-items go on). A barrier of a program whose products read core matrices waits for the
 * products still in flight (`MatrixSpelling.factorsFence`), because what follows it may refill the
 * panels they read. In a pipeline of `stages` buffers filled `ahead` steps ahead (doubleBuffer),
 * what follows a step's barrier refills the buffer of step `k + 1 + ahead - stages`, so with
 * `ahead < stages - 1` the products of the latest `stages - 1 - ahead` steps read buffers nothing
 * refills before the next barrier: those may stay in flight. The plan counts them in groups (one a
 * run of products, as the spelling commits them) where the loop has the simple shape that makes
 * the count exact, and asks for every product to be waited for otherwise: slower, never wrong.
 */
import { statementsOfKind, type Stmt } from '@loom/core';

/** The loop whose barriers may leave products in flight, and how many groups of them. */
export interface ProductsInFlight {
  /** The step loop (its `for` statement) whose barriers may leave products in flight. */
  readonly loop: Stmt;
  /** How many of the latest groups of products those barriers leave in flight. */
  readonly groups: number;
}

/**
 * Where and how many groups of products a barrier may leave in flight (see the file's comment);
 * undefined: every barrier waits for all of them.
 *
 * The conditions: every fill of a pipeline (`ahead` on an assignment) belongs to one pipeline with
 * room left (`ahead < stages - 1`); every product reads both factors from its buffers and runs in
 * one of its step loops, not inside another sequential loop around it; that loop's body (its
 * unrolled steps one after another) is a run of steps that each end with a barrier, hold no other
 * barrier, and issue the same constant number of runs of products, none under a condition.
 */
export function productsInFlight(body: Stmt): ProductsInFlight | undefined {
  const fills = statementsOfKind(body, 'assign').filter((s) => s.ahead);
  const pipeline = fills[0]?.ahead;
  if (!pipeline?.stages) return undefined;
  const same = (a: NonNullable<typeof pipeline>) =>
    a.steps === pipeline.steps && a.stages === pipeline.stages && a.stepLoops.join() === pipeline.stepLoops.join();
  if (!fills.every((s) => same(s.ahead!))) return undefined;
  const slack = pipeline.stages - 1 - pipeline.steps;
  if (slack < 1) return undefined;
  const buffers = new Set(fills.flatMap((s) => (s.target.kind === 'subscript' ? [s.target.array] : [])));
  const products = statementsOfKind(body, 'matrix').filter((s) => s.op.kind === 'multiply');
  if (!products.length) return undefined;
  for (const p of products)
    if (p.op.kind !== 'multiply' || !buffers.has(p.op.a.array) || !buffers.has(p.op.b.array)) return undefined;
  const stepLoops = new Set(pipeline.stepLoops);
  const loop = stepLoopOf(body, stepLoops);
  if (!loop || loop.kind !== 'for') return undefined;
  // every product in that loop
  if (statementsOfKind(loop, 'matrix').filter((s) => s.op.kind === 'multiply').length !== products.length)
    return undefined;
  const runs = runsPerStep(loop.body);
  return runs ? { loop, groups: runs * slack } : undefined;
}

/**
 * The innermost step loop (of `stepLoops`) around the products, reached through blocks, conditions
 * and step loops only (a product inside a sequential loop around the pipeline: undefined).
 */
function stepLoopOf(s: Stmt, stepLoops: ReadonlySet<string>, found?: Stmt): Stmt | undefined {
  const hasProducts = (x: Stmt) => statementsOfKind(x, 'matrix').some((m) => m.op.kind === 'multiply');
  if (!hasProducts(s)) return undefined;
  switch (s.kind) {
    case 'block': {
      const holding = s.body.filter(hasProducts);
      return holding.length === 1 ? stepLoopOf(holding[0], stepLoops, found) : undefined;
    }
    case 'if':
      return found ? undefined : stepLoopOf(s.then, stepLoops, found);
    case 'for':
      if (stepLoops.has(s.iname)) return stepLoopOf(s.body, stepLoops, s) ?? s;
      return found;
    default:
      return found;
  }
}

/**
 * The runs of products each step of a step loop's body issues: the body, its blocks flattened, is
 * steps each ending with a barrier, with no barrier elsewhere, each issuing the same number of runs
 * (consecutive products are one run; a loop of constant bounds issues its body's runs that many
 * times); undefined otherwise, or where a run is issued under a condition.
 */
function runsPerStep(body: Stmt): number | undefined {
  const flat = (s: Stmt): Stmt[] => (s.kind === 'block' ? s.body.flatMap(flat) : [s]);
  const statements = flat(body);
  if (statements.at(-1)?.kind !== 'barrier') return undefined;
  const nestedBarriers = statementsOfKind(body, 'barrier').length;
  if (nestedBarriers !== statements.filter((s) => s.kind === 'barrier').length) return undefined;
  const counts: number[] = [];
  let current: Stmt[] = [];
  for (const s of statements) {
    if (s.kind !== 'barrier') {
      current.push(s);
      continue;
    }
    const runs = runsIn(current);
    if (runs === undefined) return undefined;
    counts.push(runs);
    current = [];
  }
  return counts.every((c) => c === counts[0]) && counts[0] > 0 ? counts[0] : undefined;
}

/** The runs of products `statements` issue, in sequence; undefined where the count is not fixed. */
function runsIn(statements: readonly Stmt[]): number | undefined {
  let runs = 0;
  let inRun = false;
  for (const s of statements) {
    const product = s.kind === 'matrix' && s.op.kind === 'multiply';
    if (product) {
      if (!inRun) runs++;
      inRun = true;
      continue;
    }
    inRun = false;
    if (!statementsOfKind(s, 'matrix').some((m) => m.op.kind === 'multiply')) continue;
    if (s.kind === 'block') {
      const inner = runsIn(s.body);
      if (inner === undefined) return undefined;
      runs += inner;
    } else if (s.kind === 'for' && s.lower.kind === 'int' && s.upper.kind === 'int') {
      const inner = runsIn(s.body.kind === 'block' ? s.body.body : [s.body]);
      if (inner === undefined) return undefined;
      runs += Math.max(0, s.upper.value - s.lower.value + 1) * inner;
    } else return undefined;
  }
  return runs;
}
