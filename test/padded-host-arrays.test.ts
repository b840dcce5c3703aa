/**
 * Padded arrays from the host (issue 27, s8-tidy27): an argument laid out with gaps
 * (`splitArrayAxis` and `addPadding`, as loopy's test_small_batched_matvec pads `f`) is
 * passed as a plain TypedArray holding its padded buffer, as loopy's host array has the
 * padded strides; a padded output nobody passed is allocated as long as its layout reaches
 * (loopy's `1 + sum(stride*(extent-1))`) and comes back as that buffer. Each device
 * against plain JavaScript; the lengths a padded array may have are checked before
 * anything runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPadding,
  findPaddingMultiple,
  globalArg,
  LoomError,
  makeKernel,
  run,
  splitArrayAxis,
  stridesOf,
  valueArg,
  type LoopKernel,
  type RunArgument,
} from '@loom/core';
import { testDevices } from './support/devices.ts';

const NP = 36;

/** `result[k, i] = sum(j, d[i, j]*f[k, j])`, `f` split into groups of rows padded to 64 bytes and `result`'s rows padded to 64. */
function paddedMatvec(): { knl: LoopKernel; padMult: number } {
  let knl = makeKernel(
    `{[i,j,k]: 0<=k<K and 0<= i,j < ${NP}}`,
    'result[k, i] = sum(j, d[i, j]*f[k, j])',
    [
      globalArg('d', { dtype: 'float32', shape: [NP, NP] }),
      globalArg('f', { dtype: 'float32', shape: ['K', NP] }),
      globalArg('result', { dtype: 'float32', shape: ['K', NP] }),
      valueArg('K', 'int32'),
    ],
    { name: 'batched_matvec', assumptions: 'K>=1' },
  );
  const padMult = findPaddingMultiple(knl, 'f', 0, 64);
  knl = splitArrayAxis(knl, 'f', 0, padMult);
  knl = addPadding(knl, 'f', 0, 64);
  knl = addPadding(knl, 'result', 0, 64);
  return { knl, padMult };
}

/** The strides (in elements) the kernel lays an argument out with. */
function strides(knl: LoopKernel, name: string): number[] {
  const arg = knl.arg(name)!;
  return stridesOf(arg.shape!, arg.dimTags).map((s) => {
    assert.is(s.kind, 'int');
    return (s as { value: number }).value;
  });
}

/** Small integers, exact in float32, so sums compare exactly. */
const ints = (n: number, seed: number) => Float32Array.from({ length: n }, (_, k) => ((k * 7 + seed * 13) % 17) - 8);

const K = 97;
const d = ints(NP * NP, 1);
const fLogical = ints(K * NP, 2);

/** result[k, i] in plain JavaScript. */
const expected = (k: number, i: number) => {
  let s = 0;
  for (let j = 0; j < NP; j++) s += d[i * NP + j] * fLogical[k * NP + j];
  return s;
};

for (const device of testDevices()) {
  test(`${device.name}: a padded input passed as a flat array, a padded output allocated with its gaps`, async () => {
    const { knl, padMult } = paddedMatvec();
    const [g, r, c] = strides(knl, 'f');
    const groups = Math.ceil(K / padMult);
    // as long as the layout reaches (the last group's padding left out), and the whole padded block
    const reach = (groups - 1) * g + (padMult - 1) * r + (NP - 1) * c + 1;
    for (const length of [reach, groups * g]) {
      const f = new Float32Array(length).fill(Number.NaN);
      for (let k = 0; k < K; k++)
        for (let j = 0; j < NP; j++) f[Math.floor(k / padMult) * g + (k % padMult) * r + j * c] = fLogical[k * NP + j];
      // K given, then K found from f's length as from a dense array's
      for (const given of [
        { d, f, K },
        { d, f },
      ] as Record<string, RunArgument>[]) {
        const { result } = await run(knl, device, given);
        const [rowStride] = strides(knl, 'result');
        const out = result as Float32Array;
        assert.is(out.length, (K - 1) * rowStride + NP, 'the output is as long as its layout reaches');
        for (let k = 0; k < K; k++)
          for (let i = 0; i < NP; i++)
            assert.is(out[k * rowStride + i], expected(k, i), `result[${k}, ${i}] (f of ${length} elements)`);
        // the padding between rows is left as allocated: zeros
        for (let k = 0; k + 1 < K; k++)
          for (let p = NP; p < rowStride; p++) assert.is(out[k * rowStride + p], 0, `padding after row ${k}`);
      }
    }
  });

  test(`${device.name}: a padded output passed flat is written at its strides, its padding kept`, async () => {
    const { knl, padMult } = paddedMatvec();
    const [g, r] = strides(knl, 'f');
    const f = new Float32Array(Math.ceil(K / padMult) * g);
    for (let k = 0; k < K; k++)
      f.set(fLogical.subarray(k * NP, (k + 1) * NP), Math.floor(k / padMult) * g + (k % padMult) * r);
    const [rowStride] = strides(knl, 'result');
    const result = new Float32Array(K * rowStride).fill(-1);
    const out = (await run(knl, device, { d, f, result, K })).result;
    assert.is(out, result, 'the array passed comes back');
    for (let k = 0; k < K; k++)
      for (let p = 0; p < rowStride; p++)
        assert.is(result[k * rowStride + p], p < NP ? expected(k, p) : -1, `result buffer at row ${k}, column ${p}`);
  });
}

test('a flat array outside the lengths a padded layout takes is refused before anything runs, saying which', async () => {
  const { knl } = paddedMatvec();
  const [device] = testDevices();
  const [rowStride] = strides(knl, 'result');
  const f = new Float32Array(33 * 112);
  for (const [given, message] of [
    // the dense size, and one past the padded block
    [
      { d, f: new Float32Array(K * NP), K },
      /'f' has 3492 elements, .*strides \(112, 36, 1\).*pass 3692 to 3696 elements/,
    ],
    [{ d, f: new Float32Array(3697), K }, /'f' has 3697 elements, .*pass 3692 to 3696 elements/],
    [
      { d, f, result: new Float32Array(K * NP), K },
      new RegExp(
        `'result' has 3492 elements, .*strides \\(${rowStride}, 1\\).*pass ${(K - 1) * rowStride + NP} to ${K * rowStride} elements`,
      ),
    ],
  ] as const) {
    try {
      await run(knl, device, given);
      assert.unreachable('expected a LoomError');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, message);
    }
  }
});

test.run();
