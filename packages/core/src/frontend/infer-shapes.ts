/**
 * Array shapes from access footprints: along each axis, the static maximum of
 * `index + 1` over the domains of every access, under the assumptions (loopy's
 * `shape=auto`). Temporaries must come out constant.
 *
 * An index no set can bound (one read from data: `a_values[a_rowstarts[i] + jj]`) leaves a
 * one-axis argument without a shape, as loopy's guess leaves it (`shape=None`, "we can live
 * with that for 1D"): `inferShape` answers `null`, and the argument's length is then the
 * array passed (kernel/arg-layouts.ts, withShapeLessArgs), every access of it guarded.
 * An argument of several axes, or a temporary, needs its shape declared.
 */
import { Linear } from '../linear.ts';
import { indexRange } from './index-range.ts';
import { LoomError, StaticValueFindingError } from '../errors.ts';
import { toLinear, fromLinear, printExpr } from '../expr/index.ts';
import { int, type Expr } from '../expr/nodes.ts';
import { staticMax, type PieceTerm } from '../sets/index.ts';
import type { Access } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import { sweptInames, type LoopKernel } from '../kernel/model.ts';

export function inferShape(
  knl: Pick<LoopKernel, 'domains' | 'assumptions' | 'temporaries'>,
  array: string,
  accesses: readonly Access[],
  what: 'argument' | 'temporary',
): Expr[] | null {
  const mine = accesses.filter((a) => a.array === array);
  if (mine.length === 0) return [];
  const rank = mine[0].indices.length;
  for (const a of mine) {
    if (a.indices.length !== rank) {
      throw new LoomError(
        `${what} '${array}' is indexed with ${rank} and with ${a.indices.length} indices`,
        a.instruction.span,
      );
    }
  }
  // loopy leaves a one-axis argument shape-less where an index has no bound; elsewhere that is an error
  const shapeLessAllowed = what === 'argument' && rank === 1;
  const unbounded = (message: string, insn: Access['instruction']): never => {
    throw new LoomError(`cannot infer the shape of ${what} '${array}': ${message}; declare its shape`, insn.span);
  };
  const shape: Expr[] = [];
  for (let axis = 0; axis < rank; axis++) {
    const terms: PieceTerm[] = [];
    for (const a of mine) {
      const term = footprintTerm(knl, a, axis);
      if (typeof term !== 'string') terms.push(term);
      else if (shapeLessAllowed) return null;
      else unbounded(term, a.instruction);
    }
    // accessed at no point at all (every domain empty): the axis has no element
    if (terms.every((t) => t.set.isEmpty())) {
      shape.push(int(0));
      continue;
    }
    try {
      const max = staticMax(terms, knl.assumptions);
      // a loop bounded by data (`start <= s < stop`, temporaries read in the kernel) bounds the
      // index only by those values: a size no run could compute before the launch
      const fromData = max.variables.filter((v) => knl.temporaries.has(v));
      if (fromData.length) {
        if (shapeLessAllowed) return null;
        unbounded(
          `its greatest index along axis ${axis} is bounded by the temporar${fromData.length > 1 ? 'ies' : 'y'} '${fromData.join("', '")}', known only while the kernel runs`,
          mine[0].instruction,
        );
      }
      shape.push(fromLinear(max));
    } catch (e) {
      if (e instanceof StaticValueFindingError) {
        throw new StaticValueFindingError(
          `while trying to find shape axis ${axis} of ${what} '${array}': ${e.message.split('\n')[0]}`,
        );
      }
      throw e;
    }
  }
  return shape;
}

/**
 * The greatest index + 1 of one access along `axis`, over its domain: a term of the static
 * maximum; or why no set bounds it.
 */
function footprintTerm(
  knl: Pick<LoopKernel, 'domains' | 'assumptions' | 'temporaries'>,
  a: Access,
  axis: number,
): PieceTerm | string {
  const index = a.indices[axis];
  const lin = toLinear(index);
  const set = domainOf(knl, [...a.instruction.withinInames, ...a.reductionInames, ...sweptInames(a.instruction)]);
  if (!lin) {
    // loopy's guess for a quasi-affine index (`i % 20`, `abs(5 - i)`): its greatest value, plus one
    const range = indexRange(index, set, knl.assumptions);
    if (range) return { set, expr: Linear.constant(range[1] + 1) };
    return `index '${printExpr(index)}' (axis ${axis}) is neither affine in the inames and parameters nor bounded by constants`;
  }
  // an index read from data (`box_starts[src_ibox]`, src_ibox a temporary) has no bound
  // the parameters give: a shape in it would be no size run could compute
  const fromData = lin.variables.filter((v) => knl.temporaries.has(v));
  if (fromData.length)
    return `index '${printExpr(index)}' (axis ${axis}) reads the temporar${fromData.length > 1 ? 'ies' : 'y'} '${fromData.join("', '")}', known only while the kernel runs`;
  return { set, expr: lin.add(1) };
}
