/**
 * Reshaping reductions (loopy's split_reduction_inward/outward and
 * make_reduction_inames_unique):
 *
 *   splitReductionInward(knl, 'i')     sum([i, j, k], e)  ->  sum([j, k], sum([i], e))
 *   splitReductionOutward(knl, 'i')    sum([i, j, k], e)  ->  sum([i], sum([j, k], e))
 *   makeReductionInamesUnique(knl)     sum(i, e) + sum(i, f)  ->  sum(i, e) + sum(i_0, f)
 *
 * Nesting is only the same value for an associative and commutative operation (sum,
 * product, max, min); a reduction over other operations is left as it is and is an error
 * when it is the one asked for. Only the instructions `within` picks are changed; the
 * substitution rules they call are rewritten for them (see rewrite-expressions.ts).
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import { mapChildren, mapExpr, walk } from '../expr/index.ts';
import { reduce, type Expr, type Reduce } from '../expr/nodes.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { namesWritten } from '../kernel/accesses.ts';
import { instructionsWithin, describeWithin, type Within } from './match.ts';
import { renameInExpr, uniqueName } from '../kernel/rename.ts';
import { inlineRulesThat, mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { copyInameDomain } from './duplicate-inames.ts';

/** The options makeReductionInamesUnique reads; any other key is an error. */
const MAKE_REDUCTION_INAMES_UNIQUE_OPTIONS = optionKeys<MakeReductionInamesUniqueOptions>()(['inames', 'within']);

const NESTABLE = new Set(['sum', 'product', 'max', 'min']);

/**
 * Moves `inames` of a reduction into a nested inner reduction (loopy's `split_reduction_inward`):
 * `sum([i, j], e)` split inward on `j` is `sum([i], sum([j], e))`. Only `sum`, `product`, `max` and `min` split.
 */
export function splitReductionInward(knl: LoopKernel, inames: string | readonly string[], within?: Within): LoopKernel {
  return splitReduction(knl, inames, 'in', within, 'splitReductionInward');
}

/**
 * Moves `inames` of a reduction into a nested outer reduction (loopy's `split_reduction_outward`):
 * `sum([i, j], e)` split outward on `i` is `sum([i], sum([j], e))`. Only `sum`, `product`, `max` and `min` split.
 */
export function splitReductionOutward(
  knl: LoopKernel,
  inames: string | readonly string[],
  within?: Within,
): LoopKernel {
  return splitReduction(knl, inames, 'out', within, 'splitReductionOutward');
}

function splitReduction(
  knl: LoopKernel,
  inames: string | readonly string[],
  direction: 'in' | 'out',
  within: Within,
  what: string,
): LoopKernel {
  const split = nameList(inames);
  if (split.length === 0) throw new LoomError(`${what}: no iname given`);
  for (const n of split)
    if (!knl.inames.includes(n))
      throw new LoomError(`${what}: unknown iname '${n}' (inames: ${knl.inames.join(', ')})`);
  const chosen = instructionsWithin(knl, within, `${what}: option within`, true);
  let changed = 0;
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind !== 'reduce' || !split.every((n) => x.inames.includes(n))) return x;
      if (!NESTABLE.has(x.op))
        throw new LoomError(
          `${what}: a ${x.op} reduction over ${x.inames.join(', ')} cannot be split into nested ones`,
        );
      const rest = x.inames.filter((n) => !split.includes(n));
      if (rest.length === 0) return x; // nothing to split off: it already reduces over exactly these
      changed++;
      return direction === 'in'
        ? reduce(x.op, rest, reduce(x.op, split, x.operands, x.simultaneous), x.simultaneous)
        : reduce(x.op, split, reduce(x.op, rest, x.operands, x.simultaneous), x.simultaneous);
    });
  const result = mapKernelExpressions(knl, rewrite, { what, within: chosen });
  if (changed === 0) {
    throw new LoomError(
      `${what}: no reduction over '${split.join("', '")}' and other inames in the instructions within '${describeWithin(within)}'`,
    );
  }
  return result;
}

/** Options of `makeReductionInamesUnique`. */
export interface MakeReductionInamesUniqueOptions {
  /** Only these inames (a list or comma-separated); default all. */
  readonly inames?: string | readonly string[];
  /** Only the reductions in these instructions (a match expression); default: all. */
  readonly within?: Within;
}

/**
 * Each reduction iname reduced over more than once (in the kernel's order, through the
 * rules the instructions call) gets a fresh copy for its second and later reductions, with
 * the same domain and tag, so each reduction has a loop of its own.
 */
export function makeReductionInamesUnique(knl: LoopKernel, options: MakeReductionInamesUniqueOptions = {}): LoopKernel {
  checkOptionKeys('makeReductionInamesUnique', options, MAKE_REDUCTION_INAMES_UNIQUE_OPTIONS);
  const only = options.inames === undefined ? undefined : new Set(nameList(options.inames));
  for (const n of only ?? [])
    if (!knl.inames.includes(n))
      throw new LoomError(`makeReductionInamesUnique: unknown iname '${n}' (inames: ${knl.inames.join(', ')})`);
  // each call of a rule with a reduction is a reduction of its own: the rule is written out where it is called
  knl = inlineRulesThat(knl, (rule) => hasReduction(rule.expression));
  const chosen = instructionsWithin(knl, options.within, 'makeReductionInamesUnique: option within');
  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
  ]);
  const seen = new Map<string, number>();
  const copies: [string, string][] = [];
  const instructions = knl.instructions.map((insn) => {
    const unique = (e: Expr): Expr =>
      mapTopDown(e, (x) => {
        if (x.kind !== 'reduce') return undefined;
        const renames = new Map<string, string>();
        for (const n of x.inames) {
          const count = (seen.get(n) ?? 0) + 1;
          seen.set(n, count);
          if (count > 1 && chosen.has(insn.id) && (!only || only.has(n))) {
            const copy = uniqueName(n, taken);
            taken.add(copy);
            copies.push([n, copy]);
            renames.set(n, copy);
          }
        }
        for (const [n, copy] of renames) checkNoTemporaryOfLoop(knl, insn, x, n, copy);
        const operands = x.operands.map((o) => unique(renames.size ? renameInExpr(o, renames) : o));
        return reduce(
          x.op,
          x.inames.map((n) => renames.get(n) ?? n),
          operands,
          x.simultaneous,
        );
      });
    if (!insn.expression) return insn;
    return { ...insn, expression: unique(insn.expression), predicates: insn.predicates.map(unique) };
  });
  if (copies.length === 0) return knl.with({ instructions });
  const domains = [...knl.domains, ...copies.map(([old, copy]) => copyInameDomain(knl, [old], [copy]))];
  const inameTags = new Map(knl.inameTags);
  for (const [old, copy] of copies) if (inameTags.has(old)) inameTags.set(copy, inameTags.get(old)!);
  return knl.with({ instructions, domains, inameTags });
}

function hasReduction(e: Expr): boolean {
  let found = false;
  walk(e, (x) => void (x.kind === 'reduce' && (found = true)));
  return found;
}

/** Parents before children: `f` returns the node's replacement (and handles its children), or undefined to go on below it. */
function mapTopDown(e: Expr, f: (e: Expr) => Expr | undefined): Expr {
  return f(e) ?? mapChildren(e, (c) => mapTopDown(c, f));
}

/**
 * A reduction whose value reads a temporary written inside the loop of the iname it reduces
 * over (a prefetch `b_fetch = b[i, k]` inside `k`) reads a new value per iteration: over a
 * copy of the iname it would read whatever the loop left, every time. Refused, not changed.
 */
function checkNoTemporaryOfLoop(knl: LoopKernel, insn: Instruction, x: Reduce, iname: string, copy: string): void {
  const read = new Set<string>();
  for (const o of x.operands)
    walk(o, (e) => void (e.kind === 'var' ? read.add(e.name) : e.kind === 'subscript' ? read.add(e.array) : undefined));
  for (const name of read) {
    if (!knl.temporaries.has(name)) continue;
    const writer = knl.instructions.find((w) => w.withinInames.includes(iname) && namesWritten(w).includes(name));
    if (!writer) continue;
    throw new LoomError(
      `makeReductionInamesUnique: the ${x.op} over '${iname}' in instruction '${insn.id}' reads '${name}', which '${writer.id}' writes inside the loop '${iname}'; ` +
        `over its copy '${copy}' it would read the value that loop left, not one per iteration. Make the reduction inames unique before the transformation that made '${name}'`,
      insn.span,
    );
  }
}
