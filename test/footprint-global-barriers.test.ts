/**
 * A footprint stored in global memory inside a sequential loop its reads share: the global
 * barrier after the store runs in that loop (the host runs it around the launches), and a
 * second one opens each iteration before the store, as loopy's barrier check asks
 * (transform/footprint-barriers.ts). Before, the barrier sat outside the loop and no order
 * of the loops existed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  chunkIname,
  globalArg,
  makeKernel,
  precompute,
  run,
  splitIname,
  type LoopKernel,
} from '@loom/core';
import { testDevices } from './support/devices.ts';

const rows = 5;
const cols = 7;
const a = Float32Array.from({ length: rows * cols }, (_, k) => ((k * 5) % 11) - 4);

/** out[i, j] = 2 * a[i, j] + a[i, m - 1 - j], the row of a prefetched per i. */
function kernel(): LoopKernel {
  return makeKernel(
    '{ [i, j]: 0 <= i < n and 0 <= j < m }',
    ['f(x, y) := 2*a[x, y]', 'out[i, j] = f(i, j) + a[i, m - 1 - j]'],
    [globalArg('a', { dtype: 'float32', shape: ['n', 'm'] }), '...'],
    { assumptions: 'n >= 1 and m >= 1' },
  );
}

const expected = Array.from({ length: rows * cols }, (_, k) => {
  const [i, j] = [Math.floor(k / cols), k % cols];
  return 2 * a[k] + a[i * cols + (cols - 1 - j)];
});

const barriersOf = (knl: LoopKernel) =>
  knl.instructions
    .filter((i) => i.kind === 'barrier' && i.barrierScope === 'global')
    .map((b) => [b.id, b.withinInames]);

test('the barriers of a global footprint run in the sequential loop the store shares with its reads', () => {
  const knl = addPrefetch(kernel(), 'a', ['j'], { temporaryAddressSpace: 'global', fetchOuterInames: ['i'] });
  assert.equal(barriersOf(knl), [
    ['a_barrier_before', ['i']],
    ['a_barrier', ['i']],
  ]);
  // a store the reads do not share a loop with keeps the one barrier, outside every loop
  assert.equal(barriersOf(addPrefetch(kernel(), 'a', ['i', 'j'], { temporaryAddressSpace: 'global' })), [
    ['a_barrier', []],
  ]);
});

for (const device of testDevices()) {
  test(`${device.name}: a global footprint stored per iteration of a sequential loop`, async () => {
    const variants: Record<string, LoopKernel> = {
      addPrefetch: addPrefetch(kernel(), 'a', ['j'], { temporaryAddressSpace: 'global', fetchOuterInames: ['i'] }),
      precompute: precompute(kernel(), 'f', ['j'], { temporaryAddressSpace: 'global' }),
      // the host loop split afterwards, as the differential generator found: its bounds
      // come from a domain where the inner part was projected out and added back
      'precompute, then chunked and split': splitIname(
        chunkIname(
          precompute(splitIname(kernel(), 'j', 4, { outerTag: 'g.0', innerTag: 'l.0' }), 'f', ['j_outer'], {
            temporaryAddressSpace: 'global',
          }),
          'i',
          2,
        ),
        'i_inner',
        2,
      ),
    };
    for (const [name, knl] of Object.entries(variants)) {
      const { out } = await run(knl, device, { a, n: rows, m: cols });
      assert.equal(Array.from(out as Float32Array), expected, name);
    }
  });
}

test.run();
