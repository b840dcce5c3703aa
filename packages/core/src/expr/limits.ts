/**
 * How big an expression may get: the bounds that keep every later pass cheap and within
 * the stack.
 *
 * Depth. The passes over the IR (type inference, rewriting, the printers of every backend)
 * recurse, two to four stack frames per level of the tree, and the default stack holds
 * some nine thousand frames. So the depth of an expression is bounded, where it is read,
 * by `MAX_EXPRESSION_DEPTH`, well inside what every pass can take. A flat sum is as deep
 * as it is long (`a + b + c` is `(a + b) + c`), and it cannot be rebalanced into a shallow
 * tree: float addition is not associative, and a balanced tree rounds differently than
 * the left-to-right order the user wrote. So sums longer than the bound are refused too,
 * with a message that says how to write them (partial sums in temporaries).
 *
 * Size. Expressions are immutable and share sub-expressions: a payload's `const a = x + x;
 * const b = a + a` and a substitution rule used twice point at one node, not at copies.
 * Reading them is linear; but the passes walk trees, and a tree that unfolds such a DAG can
 * be exponentially larger (`f_k(x) := f_{k-1}(x) + f_{k-1}(x)`, twenty levels: a million
 * nodes). So the unfolded size is measured (on the DAG, in linear time) and bounded by
 * `MAX_EXPRESSION_NODES`, with an error that names the culprit, rather than left to hang.
 */
import { LoomError, type SourceSpan } from '../errors.ts';
import type { Expr } from './nodes.ts';
import { children } from './visit.ts';

/** The deepest expression tree Loom accepts (nesting, and the length of a flat chain of operators). */
export const MAX_EXPRESSION_DEPTH = 512;
/** The most nodes an expression may have once shared sub-expressions are counted at each use. */
export const MAX_EXPRESSION_NODES = 100_000;

/** How large an expression is (its nodes and depth), held to the limits Loom sets on parsed text. */
export interface ExpressionMeasure {
  /** Levels of the tree: 1 for a leaf. */
  readonly depth: number;
  /** Nodes of the unfolded tree; saturates at `MAX_EXPRESSION_NODES + 1`. */
  readonly nodes: number;
}

/**
 * Depth and unfolded size of `e`, in time linear in its distinct nodes (each node is measured
 * once, by identity) and without recursion (an explicit stack), so that it is safe to call on
 * anything, however deep.
 */
export function measureExpression(e: Expr): ExpressionMeasure {
  const measured = new Map<Expr, ExpressionMeasure>();
  const stack: { node: Expr; expanded: boolean }[] = [{ node: e, expanded: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (measured.has(top.node)) {
      stack.pop();
      continue;
    }
    const kids = children(top.node);
    if (!top.expanded) {
      top.expanded = true;
      for (const c of kids) if (!measured.has(c)) stack.push({ node: c, expanded: false });
      continue;
    }
    stack.pop();
    let depth = 0;
    let nodes = 1;
    for (const c of kids) {
      const m = measured.get(c)!;
      depth = Math.max(depth, m.depth);
      nodes = Math.min(nodes + m.nodes, MAX_EXPRESSION_NODES + 1);
    }
    measured.set(top.node, { depth: depth + 1, nodes });
  }
  return measured.get(e)!;
}

/**
 * Throws a `LoomError` when `e` is deeper or larger than the bounds above. `what` names the
 * expression for the message ("the expression", "instruction 'insn_3' with its rules expanded").
 */
export function checkExpressionBounds(e: Expr, what: string, span?: SourceSpan): void {
  const { depth, nodes } = measureExpression(e);
  if (depth > MAX_EXPRESSION_DEPTH) {
    throw new LoomError(
      `${what} is nested deeper than ${MAX_EXPRESSION_DEPTH} levels (a chain of ${MAX_EXPRESSION_DEPTH} operators counts as ` +
        `${MAX_EXPRESSION_DEPTH} levels); split it, e.g. into partial sums held in temporaries`,
      span,
    );
  }
  if (nodes > MAX_EXPRESSION_NODES) {
    throw new LoomError(
      `${what} has more than ${MAX_EXPRESSION_NODES} nodes once its shared parts (substitution rules, payload locals) ` +
        'are written out at each use; compute the shared parts once, into temporaries',
      span,
    );
  }
}
