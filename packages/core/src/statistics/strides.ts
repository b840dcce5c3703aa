/**
 * The lid and gid strides of an access (loopy's `_get_lid_and_gid_strides`): for each
 * local (group) axis whose iname the index uses, how far apart in memory, in elements,
 * the elements are that neighbouring work-items (work-groups) along that axis touch:
 * the iname's coefficient in each index times that axis' stride, summed over the axes.
 * A stride is null where an index is not affine; axes laid out as `sep` or `vec` take no part.
 */
import type { Expr } from '../expr/nodes.ts';
import { toLinear } from '../expr/affine.ts';
import { freeVariables } from '../expr/analysis.ts';
import type { DimTag, LoopKernel } from '../kernel/model.ts';
import { arrayLayout } from '../kernel/strides.ts';
import { QPolynomial } from '../sets/quasi-polynomial.ts';
import type { Stride } from './keys.ts';
import { polynomialOf } from '../expr/polynomial.ts';

export interface AccessStrides {
  readonly lid: Record<number, Stride>;
  readonly gid: Record<number, Stride>;
}

export function accessStrides(
  knl: LoopKernel,
  shape: readonly Expr[],
  dimTags: readonly DimTag[] | undefined,
  indices: readonly Expr[],
): AccessStrides {
  const byAxis = { local: new Map<number, string>(), group: new Map<number, string>() };
  const used = new Set(indices.flatMap((e) => [...freeVariables(e)]));
  for (const iname of knl.inames) {
    const tag = knl.inameTags.get(iname);
    if (used.has(iname) && (tag?.kind === 'local' || tag?.kind === 'group')) byAxis[tag.kind].set(tag.axis, iname);
  }
  const layout = arrayLayout(shape, dimTags);
  const linear = indices.map(toLinear);
  const strideOf = (iname: string): Stride => {
    let total = QPolynomial.ZERO;
    for (let k = 0; k < indices.length; k++) {
      const lin = linear[k];
      if (lin === undefined) return null;
      const c = lin.coeff(iname);
      const axis = layout[k]!;
      if (c === 0 || axis.kind !== 'stride') continue;
      const s = polynomialOf(axis.stride);
      if (!s) return null;
      total = total.add(s.scale(c));
    }
    const constant = total.constantValue;
    return constant !== undefined && constant.isInteger ? Number(constant.num) : total.toString();
  };
  const collect = (m: Map<number, string>) =>
    Object.fromEntries([...m].sort(([a], [b]) => a - b).map(([axis, iname]) => [axis, strideOf(iname)]));
  return { lid: collect(byAxis.local), gid: collect(byAxis.group) };
}
