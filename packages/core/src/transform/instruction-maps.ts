/**
 * Transformations that map over instructions one by one (loopy's `map_instructions`,
 * `uniquify_instruction_ids`, `remove_predicates_from_insn`, `fold_constants`,
 * `simplify_indices`): each changes what an instruction says, never the loops or the domains.
 */
import { LoomError } from '../errors.ts';
import { mapChildren, parseExpression, printExpr, simplify } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import { int } from '../expr/nodes.ts';
import { indexRange } from '../frontend/index-range.ts';
import { domainOf } from '../kernel/domains.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { instructionsWithin, type Within } from './match.ts';

/**
 * `mapInstructions(knl, 'tag:init', (insn) => ({ ...insn, priority: 2 }))`: each instruction
 * the match selects replaced by what `f` returns (loopy's `map_instructions`). `f` may change
 * anything but the id: dependencies and `nosync` entries name instructions by their ids.
 */
export function mapInstructions(knl: LoopKernel, within: Within, f: (insn: Instruction) => Instruction): LoopKernel {
  if (typeof f !== 'function')
    throw new LoomError(
      `mapInstructions: the third argument must be a function from instruction to instruction, got ${typeof f}`,
    );
  const chosen = instructionsWithin(knl, within, 'mapInstructions');
  const instructions = knl.instructions.map((insn) => {
    if (!chosen.has(insn.id)) return insn;
    const mapped = f(insn);
    if (typeof mapped !== 'object' || mapped === null)
      throw new LoomError(
        `mapInstructions: the function returned ${String(mapped)} for instruction '${insn.id}', not an instruction`,
      );
    if (mapped.id !== insn.id)
      throw new LoomError(
        `mapInstructions: the function changed the id of '${insn.id}' to '${mapped.id}'; rename instructions with replaceInstructionIds`,
      );
    return mapped;
  });
  return knl.with({ instructions });
}

/**
 * `uniquifyInstructionIds(knl)`: instructions that share an id (an instruction list put
 * together by hand, `knl.with({ instructions: [...] })`) get unique ones, loopy's way: the
 * first keeps its id, the later ones become `ID_0`, `ID_1`, ... Ids already unique stay.
 * Dependencies on a shared id then name its first holder, the one that kept it.
 */
export function uniquifyInstructionIds(knl: LoopKernel): LoopKernel {
  const taken = new Set(knl.instructions.map((i) => i.id));
  const seen = new Set<string>();
  let changed = false;
  const instructions = knl.instructions.map((insn) => {
    if (!seen.has(insn.id)) {
      seen.add(insn.id);
      return insn;
    }
    changed = true;
    let k = 0;
    while (taken.has(`${insn.id}_${k}`)) k++;
    const id = `${insn.id}_${k}`;
    taken.add(id);
    seen.add(id);
    return { ...insn, id };
  });
  return changed ? knl.with({ instructions }) : knl;
}

/**
 * `removePredicatesFromInsn(knl, ['cond'], 'id:a')`: the instructions selected no longer run
 * only where these conditions hold (loopy's `remove_predicates_from_insn`). A predicate is
 * named as written (`'cond'`, `'i > 5'`) or as an expression; one an instruction lacks is ignored.
 */
export function removePredicatesFromInsn(
  knl: LoopKernel,
  predicates: string | readonly (string | Expr)[],
  within: Within,
): LoopKernel {
  const list =
    typeof predicates === 'string' ? [predicates] : Array.isArray(predicates) ? predicates : badPredicates(predicates);
  const removed = new Set(list.map((p) => (typeof p === 'string' ? printExpr(parseExpression(p)) : printExpr(p))));
  const chosen = instructionsWithin(knl, within, 'removePredicatesFromInsn', true);
  const instructions = knl.instructions.map((insn) =>
    chosen.has(insn.id) ? { ...insn, predicates: insn.predicates.filter((p) => !removed.has(printExpr(p))) } : insn,
  );
  return knl.with({ instructions });
}

function badPredicates(predicates: unknown): never {
  throw new LoomError(
    `removePredicatesFromInsn: the predicates must be a list of conditions (['cond', 'i > 5']), got ${typeof predicates}`,
  );
}

/**
 * `foldConstants(knl)`: integer and boolean constant sub-expressions of the instructions and
 * rules computed (`2*3` → `6`) and integer index arithmetic normalized (loopy's
 * `fold_constants`). Float arithmetic is left as written: folding it here, in float64, could
 * give another value than the device's float32 arithmetic.
 */
export function foldConstants(knl: LoopKernel): LoopKernel {
  return mapKernelExpressions(knl, (e) => simplify(e), { what: 'foldConstants' });
}

/**
 * `simplifyIndices(knl)`: every subscript's indices simplified over the instruction's domain
 * (loopy's `simplify_indices`): a `//` or `%` whose value the loop bounds decide is replaced,
 * then the affine arithmetic is normalized. Over `0 <= j < 10`,
 * `X[10*(j//10 + b) + j - 10*b]` becomes `X[j]`.
 */
export function simplifyIndices(knl: LoopKernel): LoopKernel {
  return mapKernelExpressions(
    knl,
    (e, insn) => {
      if (!insn) return e;
      const set = domainOf(knl, insn.withinInames);
      const decide = (x: Expr): Expr => {
        const inner = mapChildren(x, decide);
        if (
          inner.kind !== 'binary' ||
          (inner.op !== '//' && inner.op !== '%') ||
          inner.right.kind !== 'int' ||
          inner.right.value <= 0
        )
          return inner;
        const range = indexRange(inner.left, set, knl.assumptions);
        if (!range) return inner;
        const divisor = Number(inner.right.value);
        const [lo, hi] = [Math.floor(range[0] / divisor), Math.floor(range[1] / divisor)];
        if (lo !== hi) return inner;
        // the quotient is one constant over the domain: `x // d` is it, `x % d` is `x - d*it`
        return inner.op === '//'
          ? int(lo)
          : lo === 0
            ? inner.left
            : simplify(parseExpression(`(${printExpr(inner.left)}) - ${divisor * lo}`), { integer: true });
      };
      const rewrite = (x: Expr): Expr => {
        if (x.kind !== 'subscript') return mapChildren(x, rewrite);
        return { ...x, indices: x.indices.map((index) => simplify(decide(index), { integer: true })) };
      };
      return rewrite(e);
    },
    { what: 'simplifyIndices', rules: 'keep' },
  );
}
