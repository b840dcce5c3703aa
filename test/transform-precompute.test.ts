/** precompute of substitution rules, and the LINEARIZATION view. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  globalArg,
  LoomError,
  makeKernel,
  precompute,
  run,
  saveAndReloadTemporaries,
  splitIname,
  stringifyLinearized,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

function stencil() {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    f(x) := a[x] * a[x] + 1
    out[i] = f(i) + f(i + 1)
  `,
    [globalArg('a', { shape: ['n + 1'], dtype: 'float32' }), '...'],
    { assumptions: 'n >= 1' },
  );
  return splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
}

test('precompute stores the rule over the footprint of its uses', () => {
  const knl = precompute(stencil(), 'f', ['i_inner'], { defaultTag: 'l.0' });
  const store = knl.instructions[0];
  assert.is(store.id, 'f');
  assert.equal(
    knl.temporaries.get('f_0')!.shape.map((s) => (s as { value: number }).value),
    [17],
  );
  assert.throws(
    () => precompute(stencil(), 'g'),
    (e: unknown) => e instanceof LoomError && /no substitution rule 'g'/.test((e as Error).message),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: precomputed stencil equals the direct one`, async () => {
    for (const n of [1, 16, 40]) {
      const a = randomFloat32(n + 1, n);
      const f = (x: number) => Math.fround(Math.fround(a[x] * a[x]) + 1);
      const expected = Array.from({ length: n }, (_, i) => Math.fround(f(i) + f(i + 1)));
      for (const knl of [
        stencil(),
        precompute(stencil(), 'f', ['i_inner'], { defaultTag: 'l.0' }),
        precompute(stencil(), 'f', ['i_inner']),
      ]) {
        const { out } = await run(knl, device, { a, n });
        assertClose(out as Float32Array, expected, `n=${n}`, 1e-6, 1e-6);
      }
    }
  });
}

test('the linearized view lists CALL KERNEL / RETURN FROM KERNEL around each device kernel', () => {
  let knl = makeKernel(
    '[n] -> {[i] : 0<=i<n}',
    `
    for i
      <>tmp = arr[i] {id=maketmp,dep=*}
      ... gbarrier {id=bar,dep=*maketmp}
      arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}
    end`,
    [globalArg('arr', { shape: ['n'], dtype: 'int32' }), '...'],
    { name: 'rotate_v2', assumptions: 'n mod 16 = 0' },
  );
  knl = saveAndReloadTemporaries(splitIname(knl, 'i', 16, { innerTag: 'l.0', outerTag: 'g.0' }));
  const text = stringifyLinearized(knl);
  const section = text
    .slice(text.indexOf('LINEARIZATION:'))
    .split('\n')
    .slice(1, 10)
    .map((l) => l.replace(/^\d+: +/, ''));
  assert.equal(section, [
    'CALL KERNEL rotate_v2',
    'tmp = arr[16*i_outer + i_inner] {id=maketmp}',
    'tmp_save_slot[i_outer, i_inner] = tmp {id=tmp_save, dep=maketmp}',
    'RETURN FROM KERNEL rotate_v2',
    '... gbarrier',
    'CALL KERNEL rotate_v2_0',
    'tmp = tmp_save_slot[i_outer, i_inner] {id=tmp_reload, dep=bar}',
    'arr[(16*i_outer + i_inner + 1) % n] = tmp {id=rotate, dep=bar:tmp_reload}',
    'RETURN FROM KERNEL rotate_v2_0',
  ]);
  assert.match(text, /tmp_save_slot: type: int32, shape: \(\(n \+ 15\) \/\/ 16, 16\)/);
});

test.run();
