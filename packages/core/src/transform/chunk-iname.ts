/**
 * `chunkIname(knl, 'i', 3)`: `i` is cut into 3 contiguous chunks of (nearly) equal
 * length: `i_outer` (0, 1, 2) says which chunk, `i_inner` the place in it. Where
 * splitIname fixes the length of the inner loop, this fixes the number of outer
 * iterations (one chunk per work-group, say, however long the loop).
 *
 * With `size` points and `c` chunks, the first `size mod c` chunks have `ceil(size/c)`
 * points and the others `floor(size/c)`. The domain counts them with the equation
 * `i = i_outer + c*i_inner` (each residue class mod c has exactly that many points), while
 * the code numbers them contiguously:
 *
 *     i = i_inner + ceil(size/c)*min(i_outer, size mod c) + floor(size/c)*(i_outer - min(i_outer, size mod c))
 *
 * Both only agree on a loop `0 <= i < size`, independent of the other inames: anything
 * else is refused, as loopy does.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { add, binary, call, int, mul, sub, variable, type Expr } from '../expr/nodes.ts';
import { fromLinear, simplify } from '../expr/index.ts';
import type { Linear } from '../linear.ts';
import { homeDomainIndex } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { splitBackend, type SplitInameOptions } from './split-iname.ts';

/** The options chunkIname reads; any other key is an error. */
const CHUNK_INAME_OPTIONS = optionKeys<ChunkInameOptions>()([
  'innerIname',
  'innerTag',
  'outerIname',
  'outerTag',
  'slabs',
  'within',
]);

/** Options of `chunkIname`: those of `splitIname`. */
export type ChunkInameOptions = SplitInameOptions;

/** Splits a loop into `numChunks` chunks of (nearly) equal length (loopy's `chunk_iname`). */
export function chunkIname(
  knl: LoopKernel,
  iname: string,
  numChunks: number,
  options: ChunkInameOptions = {},
): LoopKernel {
  checkOptionKeys('chunkIname', options, CHUNK_INAME_OPTIONS);
  if (!Number.isInteger(numChunks) || numChunks < 1)
    throw new LoomError(`chunkIname: the number of chunks must be a positive integer, got ${numChunks}`);
  return splitBackend(knl, iname, options, 'chunkIname', () => {
    const size = boxSize(knl, iname);
    const c = numChunks;
    const integer = (e: Expr) => simplify(e, { integer: true });
    const ceil = integer(
      size.isConstant ? int(Math.ceil(size.constant / c)) : binary('//', fromLinear(size.add(c - 1)), int(c)),
    );
    const floor = integer(
      size.isConstant ? int(Math.floor(size.constant / c)) : binary('//', fromLinear(size), int(c)),
    );
    const rest = integer(size.isConstant ? int(size.constant % c) : binary('%', fromLinear(size), int(c)));
    return {
      outerCoefficient: 1,
      innerCoefficient: c,
      outerExtent: c,
      value: (outer, inner) => {
        const before = call('min', [variable(outer), rest]);
        return add(add(variable(inner), mul(ceil, before)), mul(floor, sub(variable(outer), before)));
      },
    };
  });
}

/** `size` for a loop `0 <= iname < size` whose bounds involve no other iname. */
function boxSize(knl: LoopKernel, iname: string): Linear {
  const domain = knl.domains[homeDomainIndex(knl, iname)];
  const inames = new Set(knl.inames);
  for (const c of domain.constraints) {
    if (!c.expr.dependsOn(iname)) continue;
    const other = c.expr.variables.find((v) => v !== iname && (inames.has(v) || domain.existentials.includes(v)));
    if (other !== undefined) {
      throw new LoomError(
        `chunkIname: the domain ${domain.toString()} is not box-shaped about '${iname}' (its bounds involve '${other}'); chunkIname needs 0 <= ${iname} < size`,
      );
    }
  }
  const nested = knl.domains.find((d) => d.params.includes(iname));
  if (nested) {
    throw new LoomError(
      `chunkIname: the domain ${nested.toString()} depends on '${iname}', so it is not box-shaped about '${iname}'; chunkIname needs 0 <= ${iname} < size with no loop bounded by it`,
    );
  }
  const lowers = domain.lowerBounds(iname, []);
  const uppers = domain.upperBounds(iname, []);
  if (!lowers.some((b) => b.divisor === 1 && b.expr.isConstant && b.expr.constant === 0) || lowers.length !== 1) {
    throw new LoomError(
      `chunkIname: '${iname}' must start at 0 (its lower bounds: ${lowers.map((b) => b.expr.toString()).join(', ') || 'none'})`,
    );
  }
  if (uppers.length !== 1 || uppers[0].divisor !== 1) {
    throw new LoomError(
      `chunkIname: '${iname}' needs one upper bound, an affine expression of the parameters (it has ${uppers.map((b) => b.expr.toString()).join(', ') || 'none'})`,
    );
  }
  return uppers[0].expr.add(1);
}
