/**
 * `mul_hi` and `rotate` (OpenCL's, core's integer-bits functions) on every device, against
 * bigint arithmetic: the high half of the full product and a left rotation by the count modulo
 * the width, for int32, uint32, int64 and uint64 (WebGPU has no 64-bit integer and says so
 * before anything runs). Counter-based random numbers (Philox, Threefry) are made of them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, globalArg, LoomError, makeKernel, run, type DType } from '@loom/core';
import { supportsDType, testDevices } from './support/devices.ts';

type Word = 'int32' | 'uint32' | 'int64' | 'uint64';
const WORDS: readonly Word[] = ['int32', 'uint32', 'int64', 'uint64'];
const bits = (t: Word) => (t.endsWith('64') ? 64 : 32);
const signed = (t: Word) => t.startsWith('int');
const wrap = (t: Word, v: bigint) => (signed(t) ? BigInt.asIntN(bits(t), v) : BigInt.asUintN(bits(t), v));

/** Values of every kind: zero, one, the extremes, and a few with bits spread over the word. */
function values(t: Word): bigint[] {
  const w = bits(t);
  const raw = [0n, 1n, 3n, (1n << BigInt(w - 1)) - 1n, 1n << BigInt(w - 1), (1n << BigInt(w)) - 1n];
  const spread = w === 32 ? [0x9e3779b9n, 0xd256d193n, 0x1234abcdn] : [0x9e3779b97f4a7c15n, 0xd2b74407b1ce6e93n];
  return [...raw, ...spread].map((v) => wrap(t, v));
}

const mulHi = (t: Word, a: bigint, b: bigint) => wrap(t, (a * b) >> BigInt(bits(t)));
function rotate(t: Word, a: bigint, s: bigint): bigint {
  const w = BigInt(bits(t));
  const x = BigInt.asUintN(Number(w), a);
  const k = BigInt.asUintN(Number(w), s) % w;
  return wrap(t, (x << k) | (x >> ((w - k) % w)));
}

const arrayOf = (t: Word, xs: readonly bigint[]) =>
  t === 'int32'
    ? Int32Array.from(xs, Number)
    : t === 'uint32'
      ? Uint32Array.from(xs, Number)
      : t === 'int64'
        ? BigInt64Array.from(xs)
        : BigUint64Array.from(xs);

function kernelOf(call: string, t: Word, n: number) {
  return makeKernel(`{ [i]: 0<=i<${n} }`, `out[i] = ${call}`, [
    globalArg('a', { dtype: t, shape: n }),
    globalArg('b', { dtype: t, shape: n }),
    globalArg('out', { dtype: t, shape: n }),
  ]);
}

for (const device of testDevices()) {
  test(`${device.name}: mul_hi and rotate of 32- and 64-bit integers`, async () => {
    for (const t of WORDS) {
      if (!supportsDType(device, t)) continue;
      const vs = values(t);
      const as = vs.flatMap((a) => vs.map(() => a));
      const bs = vs.flatMap(() => vs);
      const counts = bs.map((_, k) => BigInt((k * 7) % (bits(t) + 5)) - 2n); // negative and past the width too
      const n = as.length;
      const hi = (await run(kernelOf('mul_hi(a[i], b[i])', t, n), device, { a: arrayOf(t, as), b: arrayOf(t, bs) }))
        .out as ArrayLike<number | bigint>;
      assert.equal(
        Array.from(hi, (v) => BigInt(v)),
        as.map((a, k) => mulHi(t, a, bs[k])),
        `${t} mul_hi`,
      );
      const rot = (
        await run(kernelOf('rotate(a[i], b[i])', t, n), device, { a: arrayOf(t, as), b: arrayOf(t, counts) })
      ).out as ArrayLike<number | bigint>;
      assert.equal(
        Array.from(rot, (v) => BigInt(v)),
        as.map((a, k) => rotate(t, a, counts[k])),
        `${t} rotate`,
      );
      // a constant count, as the bijections have them
      const by13 = (await run(kernelOf('rotate(a[i], 13)', t, n), device, { a: arrayOf(t, as), b: arrayOf(t, bs) }))
        .out as ArrayLike<number | bigint>;
      assert.equal(
        Array.from(by13, (v) => BigInt(v)),
        as.map((a) => rotate(t, a, 13n)),
        `${t} rotate by 13`,
      );
    }
  });
}

test('mul_hi and rotate take 32- and 64-bit integers only', () => {
  for (const [t, call] of [
    ['float32', 'mul_hi(a[i], b[i])'],
    ['int16', 'rotate(a[i], b[i])'],
  ] as [DType, string][]) {
    const knl = makeKernel('{ [i]: 0<=i<4 }', `out[i] = ${call}`, [
      globalArg('a', { dtype: t, shape: 4 }),
      globalArg('b', { dtype: t, shape: 4 }),
      globalArg('out', { dtype: t, shape: 4 }),
    ]);
    assert.throws(
      () => generateCode(knl, testDevices()[0].target),
      (e: unknown) =>
        e instanceof LoomError && /works on the bits of 32- and 64-bit integers/.test((e as Error).message),
    );
  }
});

test.run();
