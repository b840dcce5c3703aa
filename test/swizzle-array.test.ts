/**
 * `swizzleArray`: a local array stored swizzled, each 16-byte unit of a 128-byte line moved within
 * its span by the line's index (the layout Hopper's tensor memory accelerator writes and its
 * warpgroup instructions read without bank conflicts). Only where elements lie changes: checked on
 * the values of a staged matrix-vector and a tiled matrix product on every device, on the index
 * every access becomes, and on what is refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixParameters, generateCode, run, swizzleArray, unswizzleIndex, type LoopKernel } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { kernel } from '@loom/dsl';
import { randomFloat32, testDevices } from './support/devices.ts';
import { refusal } from './support/refusals.ts';
import { expectMatvec, expectSquareProduct, stagedMatvec, stagedProduct } from './support/staged-matvec.ts';

/** c = a·b in 16 x 16 blocks, k by 32: a's 16 x 32 floats and b's 32 x 16 staged in local memory, swizzled over `span`. */
function swizzledProduct(n: number, span: 32 | 64 | 128): LoopKernel {
  const knl = stagedProduct(n);
  return swizzleArray(swizzleArray(knl, 'a_fetch', span), 'b_fetch', span);
}

test('every access of a swizzled array is exchanged within its line: the index it had, then the exchange', () => {
  const code = generateCode(swizzledProduct(64, 128), openclTarget()).code;
  // a's 32 floats a row: 128 bytes a line, 4 floats a unit, 8 units exchanged by the line's index
  assert.match(code, '^');
  // every access (the declaration's size aside)
  const reads = (code.match(/a_fetch\[[^\]]+\]/g) ?? []).filter((x) => !/^a_fetch\[\d+\]$/.test(x));
  assert.ok(reads.length > 0);
  for (const read of reads) assert.match(read, /\^/, `${read} is swizzled`);
  // the exchange is recognized again from the index (the matrix and bulk-copy analyses read it so)
  const { index, span } = unswizzleIndex(
    {
      kind: 'binary',
      op: '^',
      left: { kind: 'var', name: 'x' },
      right: {
        kind: 'binary',
        op: '*',
        left: {
          kind: 'binary',
          op: '%',
          left: { kind: 'binary', op: '//', left: { kind: 'var', name: 'x' }, right: { kind: 'int', value: 32 } },
          right: { kind: 'int', value: 8 },
        },
        right: { kind: 'int', value: 4 },
      },
    },
    4,
  )!;
  assert.equal([index, span], [{ kind: 'var', name: 'x' }, 128]);
});

test('what cannot be swizzled is refused, saying why', () => {
  const knl = swizzledProduct(64, 128);
  assert.match(
    refusal(() => swizzleArray(knl, 'c', 128)),
    "'c' is an argument",
  );
  assert.match(
    refusal(() => swizzleArray(knl, 'a_fetch', 48 as 64)),
    'a swizzle spans 32, 64, 128 bytes, not 48',
  );
  // x's tile: 16 floats, 64 bytes, no whole span of 128
  const narrow = swizzleArray(fixParameters(stagedMatvec(), { n: 32, k: 64 }), 'x_fetch', 128);
  assert.match(
    refusal(() => generateCode(narrow, openclTarget())),
    "temporary 'x_fetch' is swizzled over 128 bytes, so its size must be a constant number of whole spans",
  );
  const built = kernel('{ [i]: 0 <= i < 64 }', 'y[i] = 2*x[i]')
    .dtypes({ x: 'float32' })
    .split('i', 32, { outer: 'g.0', inner: 'l.0' })
    .prefetch('x', ['i_inner'], { space: 'local', fetchOuterInames: ['i_outer'] })
    .tag({ x_dim_0: 'l.0' })
    .swizzle('x_fetch', 128).kernel;
  assert.is(built.temporaries.get('x_fetch')?.swizzle, 128);
});

for (const device of testDevices()) {
  test(`${device.name}: swizzled tiles compute what plain ones do`, async () => {
    for (const span of [32, 64] as const)
      await expectMatvec(
        device,
        `x_fetch swizzled over ${span}`,
        swizzleArray(stagedMatvec(), 'x_fetch', span),
        32,
        64,
      );
    const n = 64;
    const a = randomFloat32(n * n, 31).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 32).map((x) => x - 0.5);
    for (const span of [32, 64, 128] as const) {
      const { c } = await run(swizzledProduct(n, span), device, { a, b });
      expectSquareProduct(c as Float32Array, a, b, n, `panels swizzled over ${span}`);
    }
  });
}

test.run();
