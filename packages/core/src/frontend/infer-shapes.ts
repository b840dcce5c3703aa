/**
 * Array shapes from access footprints: along each axis, the static maximum of
 * `index + 1` over the domains of every access, under the assumptions (loopy's
 * `shape=auto`). Temporaries must come out constant.
 */
import { Linear } from '../linear.ts';
import { indexRange } from './index-range.ts';
import { LoomError, StaticValueFindingError } from '../errors.ts';
import { toLinear, fromLinear, printExpr } from '../expr/index.ts';
import { int, type Expr } from '../expr/nodes.ts';
import { staticMax, type PieceTerm } from '../sets/index.ts';
import type { Access } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';

export function inferShape(
  knl: Pick<LoopKernel, 'domains' | 'assumptions' | 'temporaries'>,
  array: string,
  accesses: readonly Access[],
  what: 'argument' | 'temporary',
): Expr[] {
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
  const shape: Expr[] = [];
  for (let axis = 0; axis < rank; axis++) {
    const terms: PieceTerm[] = mine.map((a) => {
      const index = a.indices[axis];
      const lin = toLinear(index);
      const inames = [...a.instruction.withinInames, ...a.reductionInames];
      if (!lin) {
        // loopy's guess for a quasi-affine index (`i % 20`, `abs(5 - i)`): its greatest value, plus one
        const range = indexRange(index, domainOf(knl, inames), knl.assumptions);
        if (range) return { set: domainOf(knl, inames), expr: Linear.constant(range[1] + 1) };
        throw new LoomError(
          `cannot infer the shape of ${what} '${array}': index '${printExpr(index)}' (axis ${axis}) is neither affine in the inames and parameters nor bounded by constants; declare its shape`,
          a.instruction.span,
        );
      }
      // an index read from data (`box_starts[src_ibox]`, src_ibox a temporary) has no bound
      // the parameters give: a shape in it would be no size run could compute
      const fromData = lin.variables.filter((v) => knl.temporaries.has(v));
      if (fromData.length) {
        throw new LoomError(
          `cannot infer the shape of ${what} '${array}': index '${printExpr(index)}' (axis ${axis}) reads the temporar${fromData.length > 1 ? 'ies' : 'y'} '${fromData.join("', '")}', known only while the kernel runs; declare its shape`,
          a.instruction.span,
        );
      }
      return { set: domainOf(knl, inames), expr: lin.add(1) };
    });
    // accessed at no point at all (every domain empty): the axis has no element
    if (terms.every((t) => t.set.isEmpty())) {
      shape.push(int(0));
      continue;
    }
    try {
      const max = staticMax(terms, knl.assumptions);
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
