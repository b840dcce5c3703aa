/** The kernels the playground opens with: what one edits, field by field. */
export interface KernelPreset {
  readonly domain: string;
  readonly instructions: string;
  /** Transformations in the builder's syntax (chain.ts reads them). */
  readonly chain: string;
  /** The value arguments, as a literal: sizes and scalars. */
  readonly values: string;
}

export const KERNELS: Readonly<Record<string, KernelPreset>> = {
  'double, split over work-groups': {
    domain: '{ [i]: 0<=i<n }',
    instructions: 'out[i] = 2*a[i] + 1',
    chain: [
      '// 128 work-items per work-group',
      ".split('i', 128, { outer: 'g.0', inner: 'l.0' })",
      ".dtypes({ a: 'float32' })",
    ].join('\n'),
    values: '{ n: 1000 }',
  },
  'matmul, tiled, in local memory': {
    domain: '{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<l }',
    instructions: 'c[i, j] = sum(k, a[i, k]*b[k, j])',
    chain: [
      ".tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' })",
      ".split('k', 16)",
      '// tiles of a and b in local memory; barriers inserted for you',
      ".prefetch('a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' })",
      ".prefetch('b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' })",
      ".prioritize('k_outer,k_inner')",
      ".dtypes({ a: 'float32', b: 'float32' })",
    ].join('\n'),
    values: '{ n: 64, m: 48, l: 32 }',
  },
};

/** The pointwise demo: a payload as a JS arrow function, and the shape of its random inputs. */
export const POINTWISE = {
  payload: '(x, y) => x * y + Math.sin(x) / 2',
  shape: '[4, 250]',
};
