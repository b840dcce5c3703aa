/**
 * The kernels whose code generation bench/codegen.ts times: loopy's tutorial kernels as
 * examples/tutorial.ts and examples/transformations.ts build them, and the SGEMM of
 * examples/matmul.ts. Each builder starts from `makeKernel`, so a timing covers parsing,
 * transforming, typing and generating, everything a user waits for.
 */
import {
  addDtypes,
  addPrefetch,
  globalArg,
  makeKernel,
  prioritizeLoops,
  saveAndReloadTemporaries,
  splitIname,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { DEFAULT_MATMUL, matmulKernel, type MatmulConfig } from '../examples/matmul.ts';

export interface KernelCase {
  readonly name: string;
  /** Builds the typed kernel from nothing. */
  readonly build: () => LoopKernel;
}

const f32 = (knl: LoopKernel, ...arrays: string[]) =>
  addDtypes(knl, Object.fromEntries(arrays.map((a) => [a, 'float32'])));
const fill = (assumptions: string) => makeKernel('{ [i]: 0<=i<n }', 'a[i] = 0', undefined, { assumptions });

export const TUTORIAL_KERNELS: readonly KernelCase[] = [
  { name: 'double', build: () => f32(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), 'a') },
  {
    name: 'transpose and double',
    build: () =>
      f32(
        prioritizeLoops(
          makeKernel(
            '{ [i,j]: 0<=i,j<n }',
            `
      out[j,i] = a[i,j] {id=transpose}
      out[i,j] = 2*out[i,j] {dep=transpose}
    `,
            [globalArg('out', { shape: 'auto', isInput: false }), '...'],
            { name: 'transpose_and_dbl' },
          ),
          'i,j',
        ),
        'a',
      ),
  },
  {
    name: 'transpose, then double',
    build: () =>
      f32(
        prioritizeLoops(
          prioritizeLoops(
            makeKernel(
              '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
              `
      out[j,i] = a[i,j] {id=transpose}
      out[ii,jj] = 2*out[ii,jj] {dep=transpose}
    `,
              [globalArg('out', { shape: 'auto', isInput: false }), '...'],
            ),
            'i,j',
          ),
          'ii,jj',
        ),
        'a',
      ),
  },
  {
    name: 'loop nesting',
    build: () => f32(prioritizeLoops(makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0'), 'j,i'), 'a'),
  },
  { name: 'split', build: () => f32(prioritizeLoops(splitIname(fill('n>=1'), 'i', 16), 'i_outer,i_inner'), 'a') },
  {
    name: 'tiled transpose',
    build: () => {
      const knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]', undefined, {
        assumptions: 'n mod 16 = 0 and n >= 1',
      });
      return f32(
        prioritizeLoops(splitIname(splitIname(knl, 'i', 16), 'j', 16), 'i_outer,j_outer,i_inner,j_inner'),
        'a',
      );
    },
  },
  {
    name: 'unrolled',
    build: () =>
      f32(prioritizeLoops(tagInames(splitIname(fill('n>=0'), 'i', 4), { i_inner: 'unr' }), 'i_outer,i_inner'), 'a'),
  },
  {
    name: 'slabs',
    build: () =>
      f32(
        prioritizeLoops(splitIname(fill('n>=0'), 'i', 4, { slabs: [0, 1], innerTag: 'unr' }), 'i_outer,i_inner'),
        'a',
      ),
  },
  { name: 'parallel', build: () => f32(splitIname(fill('n>=0'), 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' }), 'a') },
  {
    name: 'local temporary',
    build: () =>
      f32(
        tagInames(
          makeKernel(
            '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
            `
      <> a_temp[i_inner] = a[16*i_outer + i_inner] {priority=10}
      out[16*i_outer + i_inner] = sum(k, a_temp[k])
    `,
          ),
          { i_outer: 'g.0', i_inner: 'l.0' },
        ),
        'a',
      ),
  },
  {
    name: 'prefetch',
    build: () => {
      const knl = tagInames(
        makeKernel(
          '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
          'out[16*i_outer + i_inner] = sum(k, a[16*i_outer + i_inner])',
        ),
        { i_outer: 'g.0', i_inner: 'l.0' },
      );
      return f32(addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.0' }), 'a');
    },
  },
  {
    name: 'global barrier',
    build: () =>
      saveAndReloadTemporaries(
        splitIname(
          makeKernel(
            '[n] -> {[i] : 0<=i<n}',
            `
      for i
        <>tmp = arr[i] {id=maketmp,dep=*}
        ... gbarrier {id=bar,dep=*maketmp}
        arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}
      end`,
            [globalArg('arr', { shape: ['n'], dtype: 'int32' }), '...'],
            { name: 'rotate_v2', assumptions: 'n mod 16 = 0' },
          ),
          'i',
          16,
          { innerTag: 'l.0', outerTag: 'g.0' },
        ),
      ),
  },
  {
    name: 'atomic histogram',
    build: () =>
      splitIname(
        makeKernel(
          '{ [i]: 0<=i<n }',
          'out[i%20] = out[i%20] + 2*a[i] {atomic}',
          [
            globalArg('out', { dtype: 'float32', shape: [20], forAtomic: true }),
            globalArg('a', { dtype: 'float32', shape: 'auto' }),
            '...',
          ],
          { assumptions: 'n>0' },
        ),
        'i',
        64,
        { outerTag: 'g.0', innerTag: 'l.0' },
      ),
  },
  {
    // loopy's tutorial, "Fetching temporaries": the transpose split onto a 16x16 grid, a[i, j] fetched for both inner inames
    name: 'tiled transpose, 2-D prefetch',
    build: () => {
      let knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[j,i] = a[i,j]', undefined, {
        assumptions: 'n>=1',
        name: 'transpose',
      });
      knl = splitIname(knl, 'j', 16, { innerTag: 'l.1', outerTag: 'g.0' });
      knl = splitIname(knl, 'i', 16, { innerTag: 'l.0', outerTag: 'g.1' });
      return f32(addPrefetch(knl, 'a', ['i_inner', 'j_inner'], { defaultTag: 'l.auto' }), 'a');
    },
  },
  {
    name: 'tiled matmul',
    build: () => {
      let mm = makeKernel('{ [i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
        assumptions: 'n >= 1',
      });
      mm = splitIname(mm, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
      mm = splitIname(mm, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
      mm = splitIname(mm, 'k', 16);
      mm = addPrefetch(mm, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
      mm = addPrefetch(mm, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
      return f32(prioritizeLoops(mm, 'k_outer,k_inner'), 'a', 'b');
    },
  },
];

/** The tuned SGEMM: the default configuration and the largest register tile, at n = 4096. */
export const MATMUL_KERNELS: readonly KernelCase[] = [
  DEFAULT_MATMUL,
  {
    tileM: 128,
    tileN: 128,
    tileK: 16,
    regM: 8,
    regN: 8,
    layout: 'strided',
    prefetch: true,
    unrollK: false,
  } satisfies MatmulConfig,
].map((config) => ({
  name: `sgemm ${config.tileM}x${config.tileN}x${config.tileK} r${config.regM}x${config.regN}`,
  build: () => f32(matmulKernel(config, 4096), 'a', 'b'),
}));
