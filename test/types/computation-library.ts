/**
 * The library's computations as the compiler sees them: dht's signature follows `inverse`
 * (forward: `modes` out, `coords` in; inverse: the other way), fftShift takes the `inverse`
 * scalar, rollInplace one array both read and written.
 */
import type { Device } from '@loom/core';
import { dht, fftShift, rollInplace } from '@loom/computation';
import type { Equal, Expect } from './helpers.ts';

export async function computationLibraryCases(device: Device): Promise<void> {
  const forward = await dht({ dtype: 'complex64', shape: [2, 5] }, { axes: [1] }).compile(device);
  const { modes } = await forward(undefined, new Float32Array(20));
  type _modes = Expect<Equal<typeof modes, Float32Array>>;
  const inverse = await dht({ dtype: 'float64', shape: [5] }, { inverse: true }).compile(device);
  const { coords } = await inverse(undefined, new Float64Array(5));
  type _coords = Expect<Equal<typeof coords, Float64Array>>;
  // @ts-expect-error: the forward transform has no output named coords
  const _wrong: unknown = (await forward(undefined, new Float32Array(20))).coords;

  const shift = await fftShift({ dtype: 'int32', shape: [4, 5] }, [1]).compile(device);
  await shift(undefined, new Int32Array(20), 1);
  // @ts-expect-error: the inverse flag is a number (0 or 1)
  await shift(undefined, new Int32Array(20), true);

  const roll = await rollInplace({ dtype: 'float32', shape: [8] }).compile(device);
  await roll(new Float32Array(8), -3);
}
