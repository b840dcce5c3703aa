/**
 * Kernels that read image arguments (loopy's ImageArg), shared by test/images.test.ts and the
 * golden files (features/images): a 2D image of float32 and a 3D image of int32, read at
 * indices that move along every axis, next to an ordinary array.
 */
import { changeArgToImage, globalArg, imageArg, makeKernel, splitIname, tagInames, type LoopKernel } from '@loom/core';

/** `out[i, j] = a[i, j] * w[j] + sum over l of b[l, i, j]`: `a` a 2D image, `b` a 3D image (by `imageArg`). */
export function imageKernel(): LoopKernel {
  const knl = makeKernel(
    '{ [i, j, l]: 0<=i<n and 0<=j<m and 0<=l<p }',
    'out[i, j] = a[i, j] * w[j] + sum(l, b[l, i, j])',
    [
      globalArg('a', { dtype: 'float32', shape: 'n, m' }),
      imageArg('b', { dtype: 'int32', shape: 'p, n, m', dimensions: 3 }),
      globalArg('w', { dtype: 'float32', shape: 'm' }),
      globalArg('out', { dtype: 'float32', shape: 'n, m' }),
      '...',
    ],
    { name: 'image_read' },
  );
  // `a` through the transformation, `b` through its declaration: both spellings loopy has
  return tagInames(splitIname(changeArgToImage(knl, 'a'), 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' }), {
    i: 'g.1',
  });
}

/** The plain-JS result of `imageKernel` (float32 rounding of each step, as the devices compute). */
export function imageReference(
  a: Float32Array,
  b: Int32Array,
  w: Float32Array,
  [n, m, p]: readonly [number, number, number],
): Float32Array {
  const out = new Float32Array(n * m);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let l = 0; l < p; l++) s += b[(l * n + i) * m + j];
      out[i * m + j] = Math.fround(Math.fround(a[i * m + j] * w[j]) + Math.fround(s));
    }
  return out;
}
