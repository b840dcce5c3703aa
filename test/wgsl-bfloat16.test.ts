/**
 * bfloat16 on the WGSL target, which has no such type: arrays hold its 16-bit words two to a u32
 * (read from the upper half of an f32's bits, written with atomicAnd/atomicOr, since the word's
 * other half may be written at the same time), values are f32s holding bfloat16 values, and every
 * bfloat16 operation is computed in f32 and rounded by one helper function. The generated code is
 * checked here; on WebGPU (lavapipe on the CPU machines), writes of neighbouring elements from
 * different work-groups, and a bfloat16 value argument, against a plain-JS reference.
 * test/bfloat16-kernels.test.ts checks the arithmetic on every device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  bfloat16Bits,
  bfloat16Value,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  roundToBfloat16,
  run,
  splitIname,
  structDType,
  tagInames,
  targetFacts,
  type ProgramAst,
} from '@loom/core';
import { generateWgsl, wgslTarget } from '@loom/codegen-wgsl';
import { webgpuDeviceOrSkip } from './support/backends.ts';

const r = roundToBfloat16;
const wgsl = (knl: Parameters<typeof generateCode>[0]) => generateCode(knl, wgslTarget()).code;
const count = (code: string, text: string) => code.split(text).length - 1;

test('bfloat16 arrays are 16-bit words packed two to a u32: read as an f32 upper half, written atomically', () => {
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * 0.1 + a[i]'), { a: 'bfloat16' });
  const code = wgsl(knl);
  assert.match(code, 'var<storage, read> a: array<u32>; // bfloat16, two to a word');
  assert.match(code, 'var<storage, read_write> out: array<atomic<u32>>; // bfloat16, two to a word');
  // a word's half is the upper half of the f32 it stands for
  assert.match(
    code,
    [
      'fn load_a(index: i32) -> f32 {',
      '  let word = a[u32(index) / 2u];',
      '  return bitcast<f32>(extractBits(word, u32(index) % 2u * 16u, 16u) << 16u);',
      '}',
    ].join('\n'),
  );
  // the other half may be written by another invocation at the same time: cleared and set atomically
  assert.match(
    code,
    [
      'fn store_out(index: i32, value: f32) {',
      '  let shift = u32(index) % 2u * 16u;',
      '  atomicAnd(&out[u32(index) / 2u], ~(0xffffu << shift));',
      '  atomicOr(&out[u32(index) / 2u], ((bitcast<u32>(value) >> 16u) & 0xffffu) << shift);',
      '}',
    ].join('\n'),
  );
  // each operation rounded; the literal 0.1 rounded once, here, to its bfloat16 (0.10009765625)
  assert.is(r(0.1), 0.10009765625);
  assert.match(code, 'store_out(i, to_bfloat16_f32(to_bfloat16_f32(load_a(i) * 0.10009765625) + load_a(i)));');
});

test('one rounding helper for the module, called by every bfloat16 operation that can be inexact', () => {
  const knl = addDtypes(
    makeKernel('{ [i]: 0<=i<n }', [
      'x[i] = a[i] + b[i]',
      'y[i] = a[i] * b[i] - 1',
      'z[i] = sqrt(abs(a[i]))',
      'm[i] = min(a[i], -b[i])',
      's[i] = if(a[i] > b[i], a[i], 0.1)',
      'f[i] = bfloat16(i) + float32(a[i])',
      'g[i] = bfloat16(i)',
      'q[i] = a[i] // b[i]',
    ]),
    { a: 'bfloat16', b: 'bfloat16' },
  );
  const code = wgsl(knl);
  assert.is(count(code, 'fn to_bfloat16_f32('), 1, code);
  // round to nearest even on the bits; a NaN (told on the bits) becomes the quiet NaN
  assert.match(
    code,
    [
      'fn to_bfloat16_f32(x: f32) -> f32 {',
      '  let b = bitcast<u32>(x);',
      '  let rounded = (b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u;',
      '  return bitcast<f32>(select(rounded, 0x7fc00000u, (b & 0x7fffffffu) > 0x7f800000u));',
      '}',
    ].join('\n'),
  );
  assert.match(code, 'store_x(i, to_bfloat16_f32(load_a(i) + load_b(i)));');
  assert.match(code, 'store_y(i, to_bfloat16_f32(to_bfloat16_f32(load_a(i) * load_b(i)) - 1.0));');
  // abs of a bfloat16 is one; its square root is rounded
  assert.match(code, 'store_z(i, to_bfloat16_f32(sqrt(abs(load_a(i)))));');
  // min, negation and select give back a bfloat16 as it is
  assert.match(code, 'store_m(i, minimum_f32(load_a(i), -load_b(i)));');
  assert.match(code, 'store_s(i, select(0.10009765625, load_a(i), load_a(i) > load_b(i)));');
  // an integer becomes an f32, then a bfloat16; bfloat16 + float32 is float32, exactly
  assert.match(code, 'store_g(i, to_bfloat16_f32(f32(i)));');
  assert.match(code, 'f[i] = to_bfloat16_f32(f32(i)) + load_a(i);');
  // floor division: the quotient rounded, then floored (a floor of a bfloat16 is one)
  assert.match(code, 'store_q(i, floor(to_bfloat16_f32(load_a(i) / load_b(i))));');
});

test('a bfloat16 value argument travels in the uniform as an f32 holding its value', () => {
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + s'), { a: 'bfloat16', s: 'bfloat16' });
  const code = wgsl(knl);
  assert.match(code, 'struct Params {\n  n: i32,\n  s: f32,\n}');
  assert.match(code, 'let s = params.s;');
  assert.match(code, 'store_out(i, to_bfloat16_f32(load_a(i) + s));');
});

test('bfloat16 needs no adapter feature; struct fields and tensor tiles of it are refused, saying why', () => {
  assert.is(wgslTarget({ shaderF16: false }).unsupportedDType?.('bfloat16'), undefined);
  assert.is(wgslTarget().unsupportedDType?.('bfloat16'), undefined);

  const sample = structDType('sample', [
    ['t', 'float32'],
    ['v', 'bfloat16'],
  ]);
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = p[i].t', [
    globalArg('p', { dtype: sample, shape: ['n'] }),
    globalArg('out', { dtype: 'float32', shape: ['n'] }),
    '...',
  ]);
  assert.throws(
    () => wgsl(knl),
    (e: Error) => e instanceof LoomError && /'p'.*bfloat16.*WGSL/.test(e.message),
  );
  // the WGSL printer given such a program says why itself
  const program: ProgramAst = {
    kernels: [
      {
        name: 'knl',
        params: [{ name: 'p', dtype: 'uint8', kind: 'global', written: false, struct: sample }],
        body: { kind: 'block', body: [] },
        localSize: [],
        groupCount: [],
        types: new Map([['p', 'uint8']]),
      },
    ],
  };
  assert.throws(
    () => generateWgsl(program),
    (e: Error) =>
      e instanceof LoomError &&
      /field 'v' of struct 'sample' is bfloat16, which a WGSL struct cannot hold: WGSL has no bfloat16 type/.test(
        e.message,
      ),
  );

  const tiles = targetFacts(wgslTarget()).matrixInstructions;
  assert.ok('refused' in tiles && /no matrix instructions.*bfloat16/.test(tiles.refused));
});

const device = await webgpuDeviceOrSkip();

if (device) {
  /** Deterministic bfloat16 values of magnitudes from 2^-20 to 2^20, either sign. */
  function bfloat16Data(n: number, seed: number): Uint16Array {
    let s = seed;
    return Uint16Array.from({ length: n }, () => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      const magnitude = 2 ** (((s >>> 8) % 41) - 20) * (1 + ((s >>> 16) % 1000) / 1000);
      return bfloat16Bits(s & 1 ? -magnitude : magnitude);
    });
  }

  test('neighbouring bfloat16 elements written at once by different work-groups: no write is lost', async () => {
    // element 2j + k is written by work-group k: both halves of every word, by two groups at once
    let knl = makeKernel('{ [j, k]: 0<=j<m and 0<=k<2 }', 'out[2*j + k] = a[2*j + k] * b[2*j + k] + 0.1', [
      globalArg('out', { dtype: 'bfloat16', shape: ['2*m'], isInput: false }),
      '...',
    ]);
    knl = addDtypes(knl, { a: 'bfloat16', b: 'bfloat16' });
    knl = tagInames(splitIname(knl, 'j', 64, { outerTag: 'g.1', innerTag: 'l.0' }), { k: 'g.0' });
    for (const m of [1, 63, 1000, 4099]) {
      const a = bfloat16Data(2 * m, m);
      const b = bfloat16Data(2 * m, m + 7);
      const { out } = await run(knl, device, { a, b, m });
      assert.instance(out, Uint16Array);
      const expected = Array.from(a, (x, k) => bfloat16Bits(r(r(bfloat16Value(x) * bfloat16Value(b[k])) + r(0.1))));
      assert.equal(Array.from(out as Uint16Array), expected, `m = ${m}`);
    }
  });

  test('every work-item of a group writes its own half-word: none lost, an odd count included', async () => {
    let knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = bfloat16(i) * a[i] - a[i]'), { a: 'bfloat16' });
    knl = splitIname(knl, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' });
    for (const n of [1, 3, 129, 9999]) {
      const a = bfloat16Data(n, 3 * n);
      const { out } = await run(knl, device, { a });
      const expected = Array.from(a, (x, i) => bfloat16Bits(r(r(r(i) * bfloat16Value(x)) - bfloat16Value(x))));
      assert.equal(Array.from(out as Uint16Array), expected, `n = ${n}`);
    }
  });

  test('a bfloat16 value argument is rounded to bfloat16 by the host, once', async () => {
    const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', ['copy[i] = s', 'wide[i] = float32(s)', 'sum[i] = a[i] + s']), {
      a: 'bfloat16',
      s: 'bfloat16',
    });
    // 1 + 3/512 lies between the bfloat16s 1 and 1.0078125, nearer the second: cutting its bits would give 1
    const s = 1 + 3 / 512;
    assert.is(r(s), 1.0078125);
    const a = Uint16Array.from([1, 256, -3, 0.001], bfloat16Bits);
    const out = await run(knl, device, { a, s });
    assert.equal(Array.from(out.copy as Uint16Array, bfloat16Value), [r(s), r(s), r(s), r(s)]);
    assert.equal(Array.from(out.wide as Float32Array), [r(s), r(s), r(s), r(s)]);
    assert.equal(
      Array.from(out.sum as Uint16Array, bfloat16Value),
      Array.from(a, (x) => r(bfloat16Value(x) + r(s))),
    );
  });
}

test.run();
