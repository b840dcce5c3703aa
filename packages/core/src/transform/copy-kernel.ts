/**
 * `makeCopyKernel('f,f')`: a kernel that copies `input` (laid out by `oldDimTags`, row-major
 * by default) to `output` (laid out by `newDimTags`): a change of data layout (loopy's
 * make_copy_kernel). The axes are `n0, n1, ...` long.
 */
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { makeKernel } from '../frontend/make-kernel.ts';
import { tagArrayAxes } from './tag-array-axes.ts';
import { tagInames } from './tag-inames.ts';

/** A kernel that copies an array from one layout (dim tags) to another (loopy's `make_copy_kernel`). */
export function makeCopyKernel(
  newDimTags: string | readonly string[],
  oldDimTags?: string | readonly string[],
): LoopKernel {
  const fresh = nameList(newDimTags);
  const old = oldDimTags === undefined ? fresh.map(() => 'c') : nameList(oldDimTags);
  if (fresh.length === 0) throw new LoomError('makeCopyKernel: no dim tags given');
  if (old.length !== fresh.length)
    throw new LoomError(`makeCopyKernel: ${fresh.length} new dim tags but ${old.length} old ones`);
  const indices = fresh.map((_, k) => `i${k}`);
  const bounds = indices.map((ix, k) => `0<=${ix}<n${k}`).join(' and ');
  let knl = makeKernel(
    `{ [${indices.join(', ')}]: ${bounds} }`,
    `output[${indices.join(', ')}] = input[${indices.join(', ')}]`,
    undefined,
    { name: 'loopy_kernel' },
  );
  knl = tagArrayAxes(knl, 'input', old);
  knl = tagArrayAxes(knl, 'output', fresh);
  // separate arrays and vector lanes are unrolled over
  const unrolled = indices.filter((_, k) => ['sep', 'vec'].includes(fresh[k]) || ['sep', 'vec'].includes(old[k]));
  return unrolled.length ? tagInames(knl, Object.fromEntries(unrolled.map((n) => [n, 'unr']))) : knl;
}
