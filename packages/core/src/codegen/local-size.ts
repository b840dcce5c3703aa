/**
 * A work-group's size, as code generation gives it: one expression per axis in the kernel's
 * value arguments. Most are integer literals (`l.0` over a split of 128); an `l.N` iname over
 * a parametric extent (`0 <= i < n`) sizes its axis at launch, as loopy does. Whatever needs
 * numbers before the launch (a target's `reqd_work_group_size`, a copy of a private array per
 * work-item) asks `constantLocalSize`, and says why when there are none.
 */
import { LoomError } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { printExpr } from '../expr/index.ts';

/** The sizes as numbers when every axis is a constant, else undefined (known only at launch). */
export function constantLocalSize(sizes: readonly Expr[]): number[] | undefined {
  const out: number[] = [];
  for (const s of sizes) {
    if (s.kind !== 'int') return undefined;
    out.push(s.value);
  }
  return out;
}

/**
 * The sizes as numbers, or a LoomError naming the kernel, the parametric axes and `why` a
 * constant is needed (`'a private array kept across a barrier has one copy per work-item'`).
 */
export function requireConstantLocalSize(kernel: string, sizes: readonly Expr[], why: string): number[] {
  const constant = constantLocalSize(sizes);
  if (constant) return constant;
  const parametric = sizes.flatMap((s, axis) => (s.kind === 'int' ? [] : [`axis ${axis}: ${printExpr(s)}`]));
  throw new LoomError(
    `kernel '${kernel}': its work-group size is known only at launch (${parametric.join(', ')}), but ${why}; ` +
      "fix the parameters it depends on (fixParameters), or split the iname tagged 'l.N' by a constant and tag the inner part",
  );
}

/** `128 x n x 1`: the sizes as the messages and comments of generated code show them. */
export function printLocalSize(sizes: readonly Expr[]): string {
  return sizes.map((s) => printExpr(s)).join(' x ');
}
