/**
 * Inames are typed through the chain: a transformation names only inames the kernel has,
 * and later calls see the inames it made (and not those it removed).
 */
import type { Device } from '@loom/core';
import { f32, kernel } from '@loom/dsl';
import type { Equal, Expect } from './helpers.ts';

export async function inameCases(device: Device): Promise<void> {
  const knl = kernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[i,j]');
  type _start = Expect<Equal<(typeof knl.inames)[number], 'i' | 'j'>>;

  // @ts-expect-error: unknown iname 'q'
  knl.split('q', 16);
  const split = knl.split('i', 16, { outer: 'g.0', inner: 'l.0' });
  type _split = Expect<Equal<(typeof split.inames)[number], 'i_outer' | 'i_inner' | 'j'>>;
  split.split('i_inner', 4).tag({ i_inner_inner: 'unr' });
  // @ts-expect-error: 'i' was removed by the split
  split.split('i', 4);
  // @ts-expect-error: 'i' was removed by the split
  split.tag({ i: 'l.0' });
  // @ts-expect-error: not a tag
  split.tag({ j: 'l.7' });
  split.tag({ j: 'like.i_inner' });
  // l.auto may split an iname to fit the work-group (loopy's names for the parts)
  const fitted = split.tag({ j: 'l.auto' });
  type _fitted = Expect<Equal<(typeof fitted.inames)[number], 'i_outer' | 'i_inner' | 'j' | 'j_outer' | 'j_inner'>>;
  fitted.prioritize('j_outer');

  split.prioritize('i_outer,i_inner');
  split.prioritize(['j', 'i_inner']);
  // @ts-expect-error: 'i' is no longer an iname
  split.prioritize('i_outer,i');
  // @ts-expect-error: unknown iname in a list
  split.prioritize(['i_outer', 'q']);

  // names chosen by the caller
  const named = knl.split('j', 8, { outerIname: 'jo', innerIname: 'ji' });
  type _named = Expect<Equal<(typeof named.inames)[number], 'i' | 'jo' | 'ji'>>;

  const tiled = knl.tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' });
  type _tiled = Expect<Equal<(typeof tiled.inames)[number], 'i_outer' | 'i_inner' | 'j_outer' | 'j_inner'>>;
  // @ts-expect-error: tiling an iname with itself
  knl.tile('i', 'i', 16, 16);

  const renamed = knl.rename('i', 'row');
  type _renamed = Expect<Equal<(typeof renamed.inames)[number], 'row' | 'j'>>;
  // @ts-expect-error: 'i' was renamed
  renamed.tag({ i: 'g.0' });

  const joined = knl.join(['i', 'j']);
  type _joined = Expect<Equal<(typeof joined.inames)[number], 'i_and_j'>>;
  const joinedAs = knl.join(['i', 'j'], 'ij', { tag: 'l.0' });
  type _joinedAs = Expect<Equal<(typeof joinedAs.inames)[number], 'ij'>>;

  const duplicated = knl.dup('i', { newNames: ['i2'] });
  type _duplicated = Expect<Equal<(typeof duplicated.inames)[number], 'i' | 'j' | 'i2'>>;
  knl.dup('j').tag({ j_0: 'unr' });

  // prefetch adds its fetch inames (a_dim_0, ... unless named); only arrays can be fetched
  const matmul = kernel('{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<l }', 'c[i, j] = sum(k, a[i, k]*b[k, j])')
    .args({ a: f32('n', 'l'), b: f32('l', 'm'), c: f32.out('n', 'm') })
    .tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' })
    .split('k', 16)
    .prefetch('a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' })
    .prefetch('b', ['j_inner', 'k_inner'], { dimNames: ['bk', 'bj'] })
    .tag({ a_dim_0: 'l.1', bj: 'l.0' })
    .prioritize('k_outer,k_inner');
  // @ts-expect-error: 'q' is not an array of the kernel
  matmul.prefetch('q', ['k_inner']);
  // @ts-expect-error: 'k' was split
  matmul.prefetch('a', ['k']);

  // fixing a parameter removes it from the arguments
  const fixed = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]')
    .args({ a: f32('n'), out: f32.out('n') })
    .fix({ n: 8 });
  await fixed.run(device, { a: new Float32Array(8) });
  // @ts-expect-error: 'n' is fixed, no longer an argument
  await fixed.run(device, { a: new Float32Array(8), n: 8 });
  // @ts-expect-error: only value arguments can be fixed
  kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').fix({ a: 8 });

  // dtypes type the data
  const typed = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').dtypes({ a: 'float64', out: 'float64' });
  const { out } = await typed.run(device, { a: new Float64Array(2) });
  type _typed = Expect<Equal<typeof out, Float64Array>>;
  // @ts-expect-error: float64 declared
  await typed.run(device, { a: new Float32Array(2) });
  // @ts-expect-error: no argument 'b' to type
  kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').dtypes({ b: 'float32' });
}
