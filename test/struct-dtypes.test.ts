/**
 * Struct dtypes: their layouts by C's and WGSL's rules (checked against offsets a C compiler
 * and WGSL's memory-layout tables give), the refusals, and packing JS objects into bytes and back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  LoomError,
  addPrefetch,
  fieldArray,
  generateCode,
  globalArg,
  makeKernel,
  run,
  packStructs,
  structDType,
  structLayout,
  structLeaves,
  targetFacts,
  unpackStructs,
} from '@loom/core';
import { cTarget } from '@loom/codegen-c';
import { cudaTarget } from '@loom/codegen-cuda';
import { jsTarget } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { supportsDType, testDevices } from './support/devices.ts';

const inner = structDType('inner', [['v', 'uint64']]);
// Reikna's test_structure_type: uint32, a nested struct of one uint64, uint32
const reikna = structDType('reikna_s', [
  ['i1', 'uint32'],
  ['nested', inner],
  ['i2', 'uint32'],
]);

test('C layout: fields at multiples of their alignment, the size padded to the largest', () => {
  const l = structLayout(reikna);
  assert.equal(
    l.fields.map((f) => [f.name, f.offset]),
    [
      ['i1', 0],
      ['nested', 8],
      ['i2', 16],
    ],
  );
  assert.is(l.size, 24);
  assert.is(l.alignment, 8);
  // struct { char c; short s; float f[3]; double d; char e; }: offsets 0 2 4 16 24, size 32 (gcc x86-64)
  const mixed = structDType('mixed', [
    ['c', 'int8'],
    ['s', 'int16'],
    ['f', fieldArray('float32', 3)],
    ['d', 'float64'],
    ['e', 'uint8'],
  ]);
  const m = structLayout(mixed);
  assert.equal(
    m.fields.map((f) => f.offset),
    [0, 2, 4, 16, 24],
  );
  assert.is(m.size, 32);
  // an array of structs inside a struct: each element one struct size apart
  const pair = structDType('pair', [
    ['a', 'uint8'],
    ['b', 'uint16'],
  ]);
  const arr = structLayout(
    structDType('holder', [
      ['p', fieldArray(pair, 3)],
      ['z', 'uint8'],
    ]),
  );
  assert.equal(
    arr.fields.map((f) => f.offset),
    [0, 12],
  );
  assert.is(arr.size, 14);
  assert.equal(
    structLeaves(arr).map((x) => [x.path.join('.'), x.offset]),
    [
      ['p.0.a', 0],
      ['p.0.b', 2],
      ['p.1.a', 4],
      ['p.1.b', 6],
      ['p.2.a', 8],
      ['p.2.b', 10],
      ['z', 12],
    ],
  );
});

test('WGSL storage layout: what WGSL can store, laid out as its tables say; the rest refused', () => {
  // struct { f: f32, h: f16, a: array<u32, 2>, s: struct { x: i32 } }: offsets 0 4 8 16, size 20 (WGSL §14.4)
  const s = structDType('w', [
    ['f', 'float32'],
    ['h', 'float16'],
    ['a', fieldArray('uint32', 2)],
    ['s', structDType('wi', [['x', 'int32']])],
  ]);
  const l = structLayout(s, 'wgsl-storage');
  assert.equal(
    l.fields.map((f) => f.offset),
    [0, 4, 8, 16],
  );
  assert.is(l.size, 20);
  assert.throws(
    () => structLayout(reikna, 'wgsl-storage'),
    (e: Error) => e instanceof LoomError && /uint64/.test(e.message),
  );
  assert.throws(
    () => structLayout(structDType('b', [['flag', 'bool']]), 'wgsl-storage'),
    (e: Error) => e instanceof LoomError && /bool/.test(e.message),
  );
});

test('each target states the rules it lays structs out by', () => {
  for (const target of [openclTarget(), cudaTarget(), cTarget(), jsTarget()])
    assert.is(targetFacts(target).structLayoutRules, 'c', target.name);
  assert.is(targetFacts(wgslTarget()).structLayoutRules, 'wgsl-storage');
});

test('structDType refuses what no language declares', () => {
  const refuses = (f: () => unknown, pattern: RegExp) =>
    assert.throws(f, (e: Error) => e instanceof LoomError && pattern.test(e.message), String(pattern));
  refuses(() => structDType('s', []), /at least one field/);
  refuses(
    () =>
      structDType('s', [
        ['a', 'int32'],
        ['a', 'int32'],
      ]),
    /named twice/,
  );
  refuses(() => structDType('s t', [['a', 'int32']]), /not an identifier/);
  refuses(() => structDType('s', [['1a', 'int32']]), /not an identifier/);
  // a complex dtype is no FieldType: only a caller past the types reaches the check
  refuses(() => structDType('s', [['z', 'complex64' as 'float32']]), /complex/);
  refuses(() => fieldArray('int32', 0), /positive integer/);
});

test('packStructs and unpackStructs: JS objects to the bytes of a layout and back', () => {
  const layout = structLayout(reikna);
  const values = [
    { i1: 1, nested: { v: 2n ** 40n + 3n }, i2: 4294967295 },
    { i1: 7, nested: { v: 5 }, i2: 0 },
  ];
  const bytes = packStructs(layout, values);
  assert.is(bytes.byteLength, 48);
  const view = new DataView(bytes.buffer);
  assert.is(view.getUint32(0, true), 1);
  assert.is(view.getBigUint64(8, true), 2n ** 40n + 3n);
  assert.is(view.getUint32(16, true), 4294967295);
  assert.is(view.getUint32(24 + 8, true), 5);
  assert.equal(unpackStructs(layout, bytes), [
    { i1: 1, nested: { v: 2n ** 40n + 3n }, i2: 4294967295 },
    { i1: 7, nested: { v: 5n }, i2: 0 },
  ]);
  // an ArrayBuffer, and a view at an offset into a larger one
  assert.equal(unpackStructs(layout, bytes.buffer as ArrayBuffer)[1].i1, 7);
  const larger = new Uint8Array(8 + 24);
  larger.set(bytes.subarray(24), 8);
  assert.equal(unpackStructs(layout, larger.subarray(8))[0].i1, 7);

  const withArray = structLayout(
    structDType('arr', [
      ['h', 'float16'],
      ['xs', fieldArray('float32', 3)],
    ]),
  );
  const back = unpackStructs(withArray, packStructs(withArray, [{ h: 1.5, xs: [1, 2.5, -3] }]));
  assert.equal(back, [{ h: 1.5, xs: [1, 2.5, -3] }]);

  const refuses = (f: () => unknown, pattern: RegExp) =>
    assert.throws(f, (e: Error) => e instanceof LoomError && pattern.test(e.message), String(pattern));
  refuses(() => packStructs(layout, [{ i1: 1, nested: { v: 1 } }]), /no field 'i2'/);
  refuses(() => packStructs(layout, [{ i1: 1, nested: { v: 1 }, i2: 1, i3: 1 }]), /'i3', not a field/);
  refuses(() => packStructs(layout, [{ i1: 1n, nested: { v: 1 }, i2: 1 }]), /not a bigint/);
  refuses(() => packStructs(layout, [{ i1: 1, nested: { v: 2 ** 60 }, i2: 1 }]), /safe integer/);
  refuses(() => packStructs(withArray, [{ h: 1, xs: [1, 2] }]), /array of 3/);
  refuses(() => unpackStructs(layout, new Uint8Array(30)), /whole number/);
});

const point = structDType('point', [
  ['x', 'float32'],
  ['y', 'float32'],
]);
const particle = structDType('particle', [
  ['id', 'uint32'],
  ['at', point],
  ['w', fieldArray('int32', 3)],
]);

for (const device of testDevices()) {
  test(`${device.name}: a kernel reads nested and array fields of structs passed as objects, and writes fields`, async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      out[i] = p[i].at.x * p[i].at.y + p[i].w[2] - p[i].id {id=sum}
      q[i].id = p[i].id + 1 {id=id}
      q[i].at.x = p[i].at.y {id=x}
      q[i].at.y = p[i].at.x {id=y}
      q[i].w[0] = p[i].w[1] {id=w0, nosync_query=writes:q}
      q[i].w[1] = p[i].w[0] {id=w1, nosync_query=writes:q}
      q[i].w[2] = p[i].w[2] * 2 {id=w2, nosync_query=writes:q}
      `,
      [
        globalArg('p', { dtype: particle, shape: ['n'] }),
        globalArg('q', { dtype: particle, shape: ['n'] }),
        globalArg('out', { dtype: 'float32', shape: ['n'] }),
        '...',
      ],
      { silencedWarnings: ['write_race(*)'] },
    );
    const n = 37;
    const ps = Array.from({ length: n }, (_, i) => ({
      id: i * 3,
      at: { x: i * 0.5, y: 2 - i },
      w: [i, -i, i * 7],
    }));
    const { out, q } = await run(knl, device, { n, p: ps });
    assert.equal(
      [...(out as Float32Array)],
      ps.map((v) => Math.fround(Math.fround(v.at.x * v.at.y) + v.w[2] - v.id)),
    );
    assert.equal(
      unpackStructs(structLayout(particle), q as Uint8Array),
      ps.map((v) => ({ id: v.id + 1, at: { x: v.at.y, y: v.at.x }, w: [v.w[1], v.w[0], v.w[2] * 2] })),
    );
    // the same structs passed as the bytes of an ArrayBuffer
    const bytes = packStructs(structLayout(particle), ps);
    const again = await run(knl, device, { n, p: bytes.buffer as ArrayBuffer });
    assert.equal([...(again.out as Float32Array)], [...(out as Float32Array)]);
  });

  test(`${device.name}: struct fields of 64-bit integers where the target has them`, async () => {
    const wide = structDType('wide', [
      ['a', 'uint32'],
      ['v', 'uint64'],
    ]);
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i].v = inp[i].v + inp[i].a', [
      globalArg('inp', { dtype: wide, shape: ['n'] }),
      globalArg('out', { dtype: wide, shape: ['n'] }),
      '...',
    ]);
    if (!supportsDType(device, 'uint64')) {
      const refusal = await run(knl, device, { n: 1, inp: [{ a: 1, v: 2 }] }).then(
        () => undefined,
        (e: Error) => e,
      );
      assert.ok(refusal instanceof LoomError && /wide.v is uint64/.test(refusal.message), String(refusal));
      return;
    }
    const inp = [
      { a: 1, v: 2n ** 40n },
      { a: 7, v: 5n },
    ];
    const { out } = await run(knl, device, { n: 2, inp });
    assert.equal(
      unpackStructs(structLayout(wide), out as Uint8Array).map((x) => x.v),
      [2n ** 40n + 1n, 12n],
    );
  });
}

test('field accesses are checked when the kernel is made', () => {
  const refuses = (insns: string, pattern: RegExp) =>
    assert.throws(
      () =>
        makeKernel('{ [i]: 0<=i<n }', insns, [
          globalArg('p', { dtype: particle, shape: ['n'] }),
          globalArg('f', { dtype: 'float32', shape: ['n'] }),
          '...',
        ]),
      (e: Error) => e instanceof LoomError && pattern.test(e.message),
      `${insns}: ${pattern}`,
    );
  refuses('f[i] = p[i].z', /has no field 'z'/);
  refuses('f[i] = p[i].at', /whole 'point' struct/);
  refuses('f[i] = p[i].w', /whole array field/);
  refuses('f[i] = p[i].w[3]', /past the array field/);
  refuses('f[i] = p[i]', /not a whole element/);
  refuses('p[i] = p[i]', /not a whole element/);
  refuses('f[i] = f[i].zz + p[i].id', /'f' is not an array of structs/);
  refuses('f[i] = p[i].id.x', /not a struct/);
  assert.throws(
    () => makeKernel('{ [i]: 0<=i<n }', 'p[i].id = 1', [globalArg('p', { dtype: particle })]),
    (e: Error) => e instanceof LoomError && /give its shape/.test(e.message),
  );
});

test('a transformation that copies a struct array elsewhere is refused before any code is written', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = p[i].id', [
    globalArg('p', { dtype: particle, shape: [16] }),
    globalArg('out', { dtype: 'uint32', shape: [16] }),
  ]);
  assert.throws(
    () => generateCode(addPrefetch(knl, 'p', ['i']), jsTarget()),
    (e: Error) => e instanceof LoomError && /struct array/.test(e.message),
  );
});

test.run();
