/**
 * Which names hold index arithmetic, whose signed sums and products a printer may leave as
 * the target's plain operators: value arguments (sizes), loop counters, and private
 * temporaries computed from those alone — the multi-index that `pointwise()` kernels recover
 * from a flat work-item id (`q = i // n`, `r = i - n*q`).
 *
 * Their values stay within the 32-bit index range the device limits check, so C's signed
 * overflow cannot happen (nor WGSL's wrapping). A temporary that feeds on itself (`acc = acc + i`,
 * a sum over inames) or on anything read from memory is data, and wraps in the unsigned type.
 * With these facts every target prints `i // 4` and `i % 4` of a non-negative `i` as its own
 * truncating operators, as loopy does, instead of a floor-division helper.
 */
import type { Expr } from '../expr/nodes.ts';
import { isHardwareId } from '../kernel/type-inference.ts';
import type { KernelFunction } from './ast.ts';
import { statementsOfKind } from './stmt-visit.ts';

/**
 * The names of a kernel function that hold index arithmetic (see above): its value arguments,
 * its loop counters, and the private temporaries computed from those alone, found as a least
 * fixpoint over the assignments.
 *
 * ```ts
 * const names = indexNames(kernelFunction); // Set { 'n', 'i', 'q', ... }
 * ```
 */
export function indexNames(k: {
  readonly params: readonly { readonly name: string; readonly kind: string }[];
  readonly body: KernelFunction['body'];
}): Set<string> {
  const names = new Set([
    ...k.params.filter((p) => p.kind === 'value').map((p) => p.name),
    ...statementsOfKind(k.body, 'for').map((s) => s.iname),
  ]);
  const assigns = statementsOfKind(k.body, 'assign');
  const written = (target: Expr) =>
    target.kind === 'var' ? target.name : target.kind === 'subscript' ? target.array : undefined;
  const candidates = new Set(
    assigns.map((a) => written(a.target)).filter((n): n is string => n !== undefined && !names.has(n)),
  );
  // least fixpoint: a temporary joins once every value written to it is index arithmetic of
  // names already in (so one that reads itself never does)
  for (let grew = true; grew; ) {
    grew = false;
    for (const name of candidates) {
      const writes = assigns.filter((a) => written(a.target) === name);
      if (
        writes.every(
          (a) =>
            isIndexExpression(a.value, names) &&
            (a.target.kind !== 'subscript' || a.target.indices.every((ix) => isIndexExpression(ix, names))),
        )
      ) {
        names.add(name);
        candidates.delete(name);
        grew = true;
      }
    }
  }
  return names;
}

/** Integer arithmetic (`+ - * / // %`, negation) of literals, hardware ids and `names`. */
export function isIndexExpression(e: Expr, names: ReadonlySet<string>): boolean {
  switch (e.kind) {
    case 'int':
      return true;
    case 'var':
      return names.has(e.name);
    case 'subscript':
      return names.has(e.array) && e.indices.every((ix) => isIndexExpression(ix, names));
    case 'call':
      return isHardwareId(e);
    case 'neg':
      return isIndexExpression(e.operand, names);
    case 'binary':
      return (
        ['+', '-', '*', '/', '//', '%'].includes(e.op) &&
        isIndexExpression(e.left, names) &&
        isIndexExpression(e.right, names)
      );
    default:
      return false;
  }
}

/**
 * Loop counters that never go below zero: every loop over them starts at a non-negative
 * literal. With a divisor that is non-negative too, their `%` and `//` need no sign fix-up
 * (loopy's `loopy_mod` is left out the same way: `test_unsigned_types_to_mod`).
 */
export function nonNegativeNames(k: Pick<KernelFunction, 'body'>): Set<string> {
  const loops = statementsOfKind(k.body, 'for');
  const startsAtZeroOrMore = (iname: string) =>
    loops.filter((l) => l.iname === iname).every((l) => l.lower.kind === 'int' && l.lower.value >= 0);
  return new Set(loops.map((l) => l.iname).filter(startsAtZeroOrMore));
}

/** What a kernel's printer knows about its integer names (`indexFacts`). */
export interface IndexFacts {
  /** Names of index arithmetic (`indexNames`): their sums and products do not overflow. */
  readonly index: ReadonlySet<string>;
  /** Loop counters that never go below zero (`nonNegativeNames`). */
  readonly nonNegative: ReadonlySet<string>;
}

/** The index facts of a kernel function. */
export function indexFacts(k: Parameters<typeof indexNames>[0]): IndexFacts {
  return { index: indexNames(k), nonNegative: nonNegativeNames(k) };
}

/**
 * Whether `e` is never negative by what it is made of: a literal, a loop counter from 0, a
 * hardware id, and sums, products, quotients and remainders of those (loopy's `i*(i+1) // 2`).
 * A sum or product counts only as index arithmetic, which does not overflow: data arithmetic
 * wraps and may turn negative. `unsigned` says whether a node's type alone makes it so.
 */
export function isNonNegative(e: Expr, facts: IndexFacts, unsigned: (e: Expr) => boolean = () => false): boolean {
  if (e.kind === 'int') return e.value >= 0;
  if (e.kind === 'var' && facts.nonNegative.has(e.name)) return true;
  if (e.kind === 'call' && isHardwareId(e)) return true;
  if (e.kind === 'binary' && ['+', '*', '//', '%'].includes(e.op)) {
    const wraps = (e.op === '+' || e.op === '*') && !isIndexExpression(e, facts.index);
    if (!wraps && isNonNegative(e.left, facts, unsigned) && isNonNegative(e.right, facts, unsigned)) return true;
  }
  return unsigned(e);
}

/**
 * Whether the integer `//` or `%` `e` computes what a target's truncating `/` and `%` do: a
 * non-negative operand (not a literal: two literals keep the helper, which constant folding
 * expects, and C would read `7 / 3` back as a true division) by a positive literal.
 */
export function divisionTruncates(
  e: Extract<Expr, { kind: 'binary' }>,
  facts: IndexFacts,
  unsigned: (e: Expr) => boolean = () => false,
): boolean {
  return e.right.kind === 'int' && e.right.value > 0 && e.left.kind !== 'int' && isNonNegative(e.left, facts, unsigned);
}
