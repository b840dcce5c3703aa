/**
 * A bijection run on its own: `output[..., w]` is word `w` of the bijection of `counter[..., :]`
 * under `key[..., :]`, for every index of `shape` (how Random123's known answers are checked on
 * every device).
 *
 *   const comp = bijectionComputation(philox(32, 4), { shape: [1000] });
 *   const { output } = await (await comp.compile(device))(undefined, keys, counters);
 */
import { LoomError, type DType } from '@loom/core';
import type { Computation } from '../../computation/computation.ts';
import { pureParallel } from '../pure-parallel.ts';
import type { Bijection } from './bijections.ts';
import type { WordDtype } from './words.ts';

type Params = readonly [
  { readonly name: 'output'; readonly dtype: WordDtype; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'key'; readonly dtype: WordDtype; readonly shape: readonly number[]; readonly role: 'i' },
  { readonly name: 'counter'; readonly dtype: WordDtype; readonly shape: readonly number[]; readonly role: 'i' },
];

/**
 * The computation mapping `key` (shape + [keyWords]) and `counter` (shape + [words]) to `output`
 * (shape + [words]), all of the bijection's word dtype; `dtype`, when given, must be that dtype.
 */
export function bijectionComputation(
  bijection: Bijection,
  options: { readonly shape: readonly number[]; readonly dtype?: DType },
): Computation<Params> {
  for (const k of Object.keys(options))
    if (k !== 'shape' && k !== 'dtype')
      throw new LoomError(`bijectionComputation: unknown option '${k}' (known: dtype, shape)`);
  const { shape, dtype } = options;
  if (dtype !== undefined && dtype !== bijection.wordDtype)
    throw new LoomError(
      `bijectionComputation: ${bijection.name}-${bijection.words}x${bijection.bits} works on ${bijection.wordDtype} words, not ${dtype}`,
    );
  const t = bijection.wordDtype;
  return pureParallel<Params>({
    name: `${bijection.name}${bijection.words}x${bijection.bits}`,
    params: [
      { name: 'output', dtype: t, shape: [...shape, bijection.words], role: 'o' },
      { name: 'key', dtype: t, shape: [...shape, bijection.keyWords], role: 'i' },
      { name: 'counter', dtype: t, shape: [...shape, bijection.words], role: 'i' },
    ],
    guidingArray: shape,
    body: (idx) => {
      const at = (w: number) => [...idx, w].join(', ');
      const key = Array.from({ length: bijection.keyWords }, (_, w) => `key[${at(w)}]`);
      const counter = Array.from({ length: bijection.words }, (_, w) => `counter[${at(w)}]`);
      const { code, output } = bijection.instructions(key, counter, 'b');
      return [code, ...output.map((o, w) => `output[${at(w)}] = ${o}`)].join('\n');
    },
  });
}
