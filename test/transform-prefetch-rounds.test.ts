/**
 * `addPrefetch(..., { defaultTag: 'l.auto', roundTag: 'unr' })`: a tile larger than the
 * work-group is fetched in rounds (`a_dim_1_outer`), here unrolled, so each work-item's loads of
 * the tile are in flight together, as tileMatmul lays its panels out. The same numbers on every
 * device; the builder's `prefetch` takes the option too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  generateCode,
  LoomError,
  makeKernel,
  run,
  splitIname,
  type LoopKernel,
} from '@loom/core';
import { kernel } from '@loom/dsl';
import { openclTarget } from '@loom/codegen-opencl';
import { randomFloat32, testDevices } from './support/devices.ts';

const N = 64;

/** c = a · b in 32 x 32 tiles of 16 x 16 work-items (2 x 2 outputs each), k staged 8 at a time. */
function tiled(roundTag?: 'unr'): LoopKernel {
  let knl = addDtypes(makeKernel(`{ [i,j,k]: 0<=i,j,k<${N} }`, 'c[i, j] = sum(k, a[i, k]*b[k, j])'), {
    a: 'float32',
    b: 'float32',
  });
  knl = splitIname(knl, 'j', 32, { outerTag: 'g.0' });
  knl = splitIname(knl, 'j_inner', 16, { outerTag: 'ilp', innerTag: 'l.0' });
  knl = splitIname(knl, 'i', 32, { outerTag: 'g.1' });
  knl = splitIname(knl, 'i_inner', 16, { outerTag: 'ilp', innerTag: 'l.1' });
  knl = splitIname(knl, 'k', 8);
  const options = { temporaryAddressSpace: 'local', defaultTag: 'l.auto', ...(roundTag ? { roundTag } : {}) } as const;
  knl = addPrefetch(knl, 'a', ['i_inner_outer', 'i_inner_inner', 'k_inner'], options);
  return addPrefetch(knl, 'b', ['k_inner', 'j_inner_outer', 'j_inner_inner'], options);
}

test('the rounds over a tile larger than the work-group are unrolled; without roundTag they are loops', () => {
  const unrolled = tiled('unr');
  // a's panel is 32 x 8 over 16 x 16 work-items: 8 along l.0, two rounds of 16 rows along l.1
  assert.is(unrolled.inameTags.get('a_dim_0_outer')?.kind, 'unroll');
  // b's is 8 x 32: 16 along l.0 in two rounds, 8 rows along l.1 in one
  assert.is(unrolled.inameTags.get('b_dim_1_outer')?.kind, 'unroll');
  assert.not.ok(unrolled.inames.includes('b_dim_0_outer'), 'a fetch iname that fits its axis takes no rounds');
  const code = generateCode(unrolled, openclTarget()).code;
  assert.not.match(code, /for \(int a_dim_0_outer/);
  const looped = tiled();
  assert.is(looped.inameTags.get('a_dim_0_outer'), undefined);
  assert.match(
    generateCode(looped, openclTarget()).code,
    /for \(int a_dim_0_outer = 0; a_dim_0_outer <= 1; \+\+a_dim_0_outer\)/,
  );
});

for (const device of testDevices())
  test(`${device.name}: a product staged in unrolled rounds computes what plain JavaScript does`, async () => {
    const a = randomFloat32(N * N, 1);
    const b = randomFloat32(N * N, 2);
    const { c } = (await run(tiled('unr'), device, { a, b })) as { c: Float32Array };
    for (let i = 0; i < N; i++)
      for (let j = 0; j < N; j++) {
        let want = 0;
        for (let k = 0; k < N; k++) want += a[i * N + k]! * b[k * N + j]!;
        const got = c[i * N + j]!;
        if (!(Math.abs(got - want) <= 1e-4 * (1 + Math.abs(want))))
          assert.unreachable(`c[${i}, ${j}] is ${got}, not ${want}`);
      }
  });

test("the builder's prefetch takes roundTag: the same kernel as the function", () => {
  const built = kernel(`{ [i,j,k]: 0<=i,j,k<${N} }`, 'c[i, j] = sum(k, a[i, k]*b[k, j])')
    .dtypes({ a: 'float32', b: 'float32' })
    .split('j', 32, { outer: 'g.0' })
    .split('j_inner', 16, { outer: 'ilp', inner: 'l.0' })
    .split('i', 32, { outer: 'g.1' })
    .split('i_inner', 16, { outer: 'ilp', inner: 'l.1' })
    .split('k', 8)
    .prefetch('a', ['i_inner_outer', 'i_inner_inner', 'k_inner'], {
      space: 'local',
      defaultTag: 'l.auto',
      roundTag: 'unr',
    })
    .prefetch('b', ['k_inner', 'j_inner_outer', 'j_inner_inner'], {
      space: 'local',
      defaultTag: 'l.auto',
      roundTag: 'unr',
    });
  assert.is(built.kernel.inameTags.get('a_dim_0_outer')?.kind, 'unroll');
  assert.is(generateCode(built.kernel, openclTarget()).code, generateCode(tiled('unr'), openclTarget()).code);
});

test('roundTag without l.auto would do nothing: a LoomError saying so', () => {
  const knl = addDtypes(makeKernel(`{ [i]: 0<=i<${N} }`, 'out[i] = 2*a[i]'), { a: 'float32' });
  for (const defaultTag of [undefined, 'l.0'] as const)
    assert.throws(
      () =>
        addPrefetch(knl, 'a', ['i'], {
          temporaryAddressSpace: 'local',
          roundTag: 'unr',
          ...(defaultTag ? { defaultTag } : {}),
        }),
      (e: unknown) =>
        e instanceof LoomError && /option roundTag tags the rounds defaultTag 'l\.auto' leaves/.test(e.message),
    );
});

test.run();
