/**
 * bfloat16 on the JavaScript target and the CPU device: a variable holds the number bfloat16
 * represents, an array its bits (a Uint16Array), and every operation is computed in doubles and
 * rounded once to bfloat16 (`loom.toBf16`). An integer becomes a float32 before it becomes a
 * bfloat16 (PyTorch's rule, what the devices compute), and fma is float32's fma rounded to
 * bfloat16, as devices compute it: these are where the CPU device could round once where the
 * devices round twice, so they are checked on values where the two differ.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  bfloat16Bits,
  bfloat16Value,
  defineFunction,
  generateCode,
  globalArg,
  makeKernel,
  registerFunction,
  roundToBfloat16,
  run,
  temporaryVariable,
  type LoopKernel,
} from '@loom/core';
import { cpuDevice, jsTarget } from '@loom/codegen-js';

const r = roundToBfloat16;
const bits = (xs: readonly number[]) => Uint16Array.from(xs, bfloat16Bits);
const values = (a: unknown) => Array.from(a as Uint16Array, bfloat16Value);
const js = (knl: LoopKernel) => generateCode(knl, jsTarget()).code;

/** Just below 2^24 + 2^17: float32 rounds it to 2^24 + 2^16, the bfloat16 tie, which goes to even, 2^24. */
const INT_TIE_ABOVE = 2 ** 24 + 2 ** 16 + 1;

test('the code: loads read bits as values, an operation rounds to bfloat16, a store writes bits', () => {
  const code = js(
    addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * b[i] + 0.1'), { a: 'bfloat16', b: 'bfloat16' }),
  );
  assert.match(code, 'loom.toBf16(loom.bf16Value(a[i]) * loom.bf16Value(b[i]))');
  // the literal is bfloat16's 0.1, rounded once while printing
  assert.match(code, `+ ${r(0.1)})`);
  assert.match(code, 'out[i] = loom.bf16Bits(');
});

test('the code: an integer becomes bfloat16 through float32, a float is rounded once, bfloat16 widens exactly', () => {
  const knl = addDtypes(
    makeKernel('{ [i]: 0<=i<n }', [
      'x[i] = bfloat16(k[i])',
      'y[i] = bfloat16(s[i])',
      'z[i] = bfloat16(l[i])',
      'once[i] = bfloat16(d[i])',
      'wide[i] = float32(a[i])',
    ]),
    { k: 'int32', s: 'int16', l: 'int64', d: 'float64', a: 'bfloat16' },
  );
  const code = js(knl);
  assert.match(code, 'x[i] = loom.bf16Bits(loom.toBf16(Math.fround(k[i])))');
  // 16 bits are a float32 exactly: no Math.fround
  assert.match(code, 'y[i] = loom.bf16Bits(loom.toBf16(s[i]))');
  // a bigint rounded to float32 correctly, then to bfloat16
  assert.match(code, 'z[i] = loom.bf16Bits(loom.toBf16(loom.bigintToFloat32(l[i])))');
  assert.match(code, 'once[i] = loom.bf16Bits(loom.toBf16(d[i]))');
  assert.match(code, 'wide[i] = loom.bf16Value(a[i])');
});

test('CPU: conversions to bfloat16 where through float32 and rounding once differ', async () => {
  const knl = addDtypes(
    makeKernel('{ [i]: 0<=i<n }', [
      'x[i] = bfloat16(k[i])',
      'z[i] = bfloat16(l[i])',
      'once[i] = bfloat16(d[i])',
      'lit[i] = bfloat16(16842753) + bfloat16(0.1)',
    ]),
    { k: 'int32', l: 'int64', d: 'float64' },
  );
  const big = 2n ** 40n + 2n ** 32n + 1n; // float32 rounds it to 2^40 + 2^32, bfloat16's tie
  const out = await run(knl, cpuDevice(), {
    k: Int32Array.of(INT_TIE_ABOVE, -INT_TIE_ABOVE, 7),
    l: BigInt64Array.of(big, -big, 7n),
    d: Float64Array.of(INT_TIE_ABOVE, 1 + 2 ** -8 + 2 ** -30, 7),
  });
  assert.equal(values(out.x), [2 ** 24, -(2 ** 24), 7]);
  assert.equal(values(out.z), [2 ** 40, -(2 ** 40), 7]);
  // a float64 is rounded once: past the tie, up
  assert.equal(values(out.once), [2 ** 24 + 2 ** 17, 1 + 2 ** -7, 7]);
  // an integer literal through float32 too (16842753 is INT_TIE_ABOVE), a float one once
  assert.is(16842753, INT_TIE_ABOVE);
  assert.equal(values(out.lit), Array(3).fill(r(2 ** 24 + r(0.1))));
});

test('CPU: fma of bfloat16 is float32 fma rounded to bfloat16, not rounded once', async () => {
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = fma(a[i], b[i], c[i])'), {
    a: 'bfloat16',
    b: 'bfloat16',
    c: 'bfloat16',
  });
  assert.match(js(knl), 'loom.fmaBf16(');
  // 17 * 19 = 323, a bfloat16 tie; minus 2^-20 it is below the tie, but float32 rounds it back
  // onto the tie, which goes to the even 324 (rounded once it would be 322)
  const tiny = 2 ** -20;
  assert.is(r(323 - tiny), 322);
  const out = await run(knl, cpuDevice(), { a: bits([17, 1.5]), b: bits([19, 3]), c: bits([-tiny, 0.25]) });
  assert.equal(values(out.out), [324, r(1.5 * 3 + 0.25)]);
});

test('CPU: math functions on bfloat16, each result rounded once from the double', async () => {
  const knl = addDtypes(
    makeKernel('{ [i]: 0<=i<n }', [
      'e[i] = exp(a[i])',
      's[i] = sin(a[i]) * a[i]',
      't[i] = tanh(a[i] / 3)',
      'p[i] = pow(a[i], 1.5)',
    ]),
    { a: 'bfloat16' },
  );
  const given = [0.1, 1.5, -2.75, 10, 80];
  const out = await run(knl, cpuDevice(), { a: bits(given) });
  const x = given.map(r);
  assert.equal(
    values(out.e),
    x.map((v) => r(Math.exp(v))),
  );
  assert.equal(
    values(out.s),
    x.map((v) => r(r(Math.sin(v)) * v)),
  );
  assert.equal(
    values(out.t),
    x.map((v) => r(Math.tanh(r(v / 3)))),
  );
  assert.equal(
    values(out.p),
    x.map((v) => r(v ** 1.5)),
  );
});

test('CPU: a user function on bfloat16 takes bfloat16 values, and its result is rounded to bfloat16', async () => {
  const seen: number[] = [];
  const third = defineFunction({
    name: 'third_bf16',
    signature: { args: ['bfloat16'], result: 'bfloat16' },
    js: (x: number) => {
      seen.push(x);
      return x / 3;
    },
  });
  const knl = registerFunction(
    addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = third_bf16(a[i]) + a[i]'), { a: 'bfloat16' }),
    third,
  );
  const given = [1, 0.1, 1000, -7];
  const out = await run(knl, cpuDevice(), { a: bits(given) });
  const x = given.map(r);
  assert.equal(seen, x);
  assert.equal(
    values(out.out),
    x.map((v) => r(r(v / 3) + v)),
  );
});

test('CPU: a bfloat16 scalar argument is rounded once, as its bits are for a device; a table holds bits', async () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<3 }',
    ['out[i] = tab[i] + s'],
    [
      temporaryVariable('tab', { dtype: 'bfloat16', initializer: [0.1, 1 / 3, -0], readOnly: true }),
      globalArg('out', { dtype: 'bfloat16', shape: [3] }),
      '...',
    ],
  );
  const code = js(addDtypes(knl, { s: 'bfloat16' }));
  assert.match(
    code,
    `Uint16Array.of(${bfloat16Bits(0.1)}, ${bfloat16Bits(1 / 3)}, ${0x8000}); // bfloat16[3], as bits`,
  );
  // a whole number passed for a bfloat16 scalar is rounded once (past the tie: up), not through float32
  const { out } = await run(addDtypes(knl, { s: 'bfloat16' }), cpuDevice(), { s: INT_TIE_ABOVE });
  const s = 2 ** 24 + 2 ** 17;
  assert.is(r(INT_TIE_ABOVE), s);
  assert.equal(values(out), [r(r(0.1) + s), r(r(1 / 3) + s), s]);
});

test.run();
