/**
 * temporaryVariable declarations (loopy's lp.TemporaryVariable among makeKernel's
 * arguments): constant tables in private and global memory, base storage shared by two
 * temporaries, and the same declarations through the DSL's kernel(..., { temporaries }).
 * Every device, against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeKernel, run, splitIname, tagInames, temporaryVariable } from '@loom/core';
import { f32, kernel } from '@loom/dsl';
import { testDevices } from './support/devices.ts';

const WEIGHTS = Float32Array.of(0.25, 0.5, 0.25);

/** A 3-point stencil whose weights are a constant table in `space`. */
function stencil(space: 'private' | 'global' | 'auto') {
  const knl = makeKernel('{ [i, k]: 0<=i<n and 0<=k<3 }', 'out[i] = sum(k, w[k] * a[i + k])', [
    temporaryVariable('w', { initializer: WEIGHTS, readOnly: true, addressSpace: space }),
    '...',
  ]);
  return splitIname(knl, 'i', 8, { outerTag: 'g.0', innerTag: 'l.0' });
}

const stencilReference = (a: Float32Array, n: number) =>
  Array.from({ length: n }, (_, i) => {
    let s = 0;
    for (let k = 0; k < 3; k++) s = Math.fround(s + Math.fround(WEIGHTS[k] * a[i + k]));
    return s;
  });

for (const device of testDevices()) {
  test(`${device.name}: a constant table in private, global and auto memory`, async () => {
    const n = 21;
    const a = Float32Array.from({ length: n + 2 }, (_, k) => ((k * 5) % 11) - 3);
    for (const space of ['private', 'global', 'auto'] as const) {
      const { out } = await run(stencil(space), device, { a, n });
      assert.equal(Array.from(out as Float32Array), stencilReference(a, n), space);
    }
  });

  test(`${device.name}: two temporaries with one base storage share it, one after the other`, async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<8 }',
      `for i
         x[i] = 2*i {id=wx}
         out1[i] = x[i] {id=rx}
         y[i] = 3*i {id=wy}
         out2[i] = y[i] {id=ry}
       end`,
      [
        temporaryVariable('x', { dtype: 'int32', shape: [8], addressSpace: 'local', baseStorage: 'shared' }),
        temporaryVariable('y', { dtype: 'int32', shape: [8], addressSpace: 'local', baseStorage: 'shared' }),
        '...',
      ],
      { seqDependencies: true },
    );
    // x and y are one local array now
    assert.equal([...knl.temporaries.keys()], ['shared']);
    const { out1, out2 } = await run(tagInames(knl, { i: 'l.0' }), device, {});
    assert.equal(
      Array.from(out1 as Int32Array),
      Array.from({ length: 8 }, (_, i) => 2 * i),
    );
    assert.equal(
      Array.from(out2 as Int32Array),
      Array.from({ length: 8 }, (_, i) => 3 * i),
    );
  });

  test(`${device.name}: the DSL declares temporaries with kernel(..., { temporaries })`, async () => {
    const k = kernel('{ [i, k]: 0<=i<n and 0<=k<3 }', 'out[i] = sum(k, w[k] * a[i + k])', {
      temporaries: [temporaryVariable('w', { initializer: WEIGHTS, readOnly: true })],
    })
      .args({ a: f32('n + 2'), out: f32.out('n') })
      .split('i', 8, { outer: 'g.0', inner: 'l.0' });
    const n = 13;
    const a = Float32Array.from({ length: n + 2 }, (_, j) => j * 0.5 - 2);
    const { out } = await k.run(device, { a, n });
    assert.equal(Array.from(out), stencilReference(a, n));
  });
}

test.run();
