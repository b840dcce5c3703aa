/**
 * The tags `.tile()` gives its two outer and two inner inames. `'g'` and `'l'` put the
 * pair on hardware axes, the second iname on axis 0: in a row-major array the second
 * index is the contiguous one, so neighbouring work-items then touch neighbouring
 * addresses (loopy's tutorial tiles its matrix product the same way). Any other tag
 * applies to both; none leaves them loops.
 */
import type { Tag } from './inames.ts';

export function tileTags(spec: 'g' | 'l' | Tag | undefined): { first: Tag | undefined; second: Tag | undefined } {
  if (spec === 'g' || spec === 'l') return { first: `${spec}.1`, second: `${spec}.0` };
  return { first: spec, second: spec };
}
