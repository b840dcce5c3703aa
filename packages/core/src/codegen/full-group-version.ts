/**
 * A serialized region in two versions, one for a whole work-group and one for a group cut
 * short by the end of the domain:
 *
 *     if (n - 16 * gid(0) - 1 >= 15)                     (every group but the last)
 *       for (lid_0 = 0; lid_0 <= 15; ++lid_0) ...
 *     if (!(n - 16 * gid(0) - 1 >= 15))
 *       for (lid_0 = 0; lid_0 <= min(15, n - 16 * gid(0) - 1); ++lid_0) ...
 *
 * Folding a group's guards into its loops (fold-counter-guards.ts) leaves bounds such as
 * `min(15, n - 16 * gid(0) - 1)`, whose trip count a C compiler cannot know: it then wraps each
 * vector loop in a prologue and an epilogue, a cost paid at every step of the loops around it,
 * and does not unroll. In the first version every such bound is its constant, as the group
 * runs whole wherever the other term is at least that constant.
 */
import { type Expr, compare, int, logical, not } from '../expr/nodes.ts';
import { walk } from '../expr/visit.ts';
import type { Stmt } from './ast.ts';
import { mapStmts, walkStmts } from './stmt-visit.ts';

/**
 * `region` as the two versions of the module comment, where some loop in it runs to
 * `min(C, e)` with a constant `C` and an `e` that keeps its value through the region (no loop
 * counter of the region, no name of `variant` in it); else the region as it is.
 */
export function versionFullGroups(region: Stmt, variant: ReadonlySet<string>): Stmt {
  const defined = new Set(variant);
  walkStmts(region, { stmt: (s) => void (s.kind === 'for' && defined.add(s.iname)) });
  const cuts = new Map<string, { readonly whole: number; readonly limit: Expr }>();
  walkStmts(region, {
    stmt: (s) => {
      if (s.kind !== 'for') return;
      const cut = constantCap(s.upper, defined);
      if (cut) cuts.set(keyOf(s.upper), cut);
    },
  });
  if (cuts.size === 0) return region;

  const whole = mapStmts(region, {
    stmt: (s) => {
      const cut = s.kind === 'for' ? cuts.get(keyOf(s.upper)) : undefined;
      return s.kind === 'for' && cut ? { ...s, upper: int(cut.whole) } : s;
    },
  });
  const full = [...cuts.values()]
    .map((c): Expr => compare('>=', c.limit, int(c.whole)))
    .reduce((a, b) => logical('and', a, b));
  return {
    kind: 'block',
    body: [
      { kind: 'if', condition: full, then: whole },
      { kind: 'if', condition: not(full), then: region },
    ],
  };
}

/** `min(C, e)` or `min(e, C)` with `e` free of `defined`: C and e; else undefined. */
function constantCap(upper: Expr, defined: ReadonlySet<string>): { whole: number; limit: Expr } | undefined {
  if (upper.kind !== 'call' || upper.fn !== 'min' || upper.args.length !== 2) return undefined;
  const [a, b] = upper.args;
  const [constant, limit] = a.kind === 'int' ? [a, b] : b.kind === 'int' ? [b, a] : [undefined, undefined];
  if (constant?.kind !== 'int' || limit === undefined) return undefined;
  let free = true;
  walk(limit, (x) => {
    if ((x.kind === 'var' && defined.has(x.name)) || x.kind === 'subscript') free = false;
  });
  return free ? { whole: constant.value, limit } : undefined;
}

/** A key that is the same for equal bounds (expressions are plain trees of plain values). */
function keyOf(e: Expr): string {
  return JSON.stringify(e);
}
