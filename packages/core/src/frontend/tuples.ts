/**
 * loopy's `a, b = make_tuple(x, y)`: one instruction that assigns several values at once.
 * Each value is independent of the others, so makeKernel makes it one assignment per
 * assignee (`a = x`, `b = y`), in order. An id given to the tuple stays its first part's,
 * and what says `dep=ID` depends on every part.
 */
import { LoomError } from '../errors.ts';
import { suffixedNames } from '../kernel/rename.ts';
import type { ParsedInstruction } from './parse-instructions.ts';

/** `parsed` with each `make_tuple` assignment made one assignment per assignee. */
export function expandTuples(parsed: readonly ParsedInstruction[]): ParsedInstruction[] {
  if (!parsed.some(isTuple)) return [...parsed];
  const taken = new Set(parsed.flatMap((p) => (p.id === undefined ? [] : [p.id])));
  const fresh = suffixedNames(taken);
  const partIds = new Map<string, string[]>();
  const expanded = parsed.flatMap((p) => {
    if (!isTuple(p)) return [p];
    const values = p.expression.args;
    const assignees = p.assignees ?? [];
    if (values.length !== assignees.length) {
      throw new LoomError(
        `make_tuple gives ${values.length} value${values.length === 1 ? '' : 's'} to ${assignees.length} assignee${assignees.length === 1 ? '' : 's'}: give one value per assignee`,
        p.span,
      );
    }
    const ids = assignees.map((_, k) => (p.id === undefined ? undefined : k === 0 ? p.id : fresh(p.id)));
    if (p.id !== undefined) partIds.set(p.id, ids as string[]);
    return assignees.map(
      (assignee, k): ParsedInstruction => ({
        ...p,
        id: ids[k],
        assignees: [assignee],
        expression: values[k],
        temporaries: p.temporaries ? [p.temporaries[k]] : undefined,
      }),
    );
  });
  if (partIds.size === 0) return expanded;
  return expanded.map((p) => ({ ...p, deps: p.deps.flatMap((d) => partIds.get(d) ?? [d]) }));
}

function isTuple(
  p: ParsedInstruction,
): p is ParsedInstruction & { readonly expression: { readonly kind: 'call'; readonly args: readonly never[] } } {
  return p.kind === 'assign' && p.expression?.kind === 'call' && p.expression.fn === 'make_tuple';
}
