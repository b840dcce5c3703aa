/**
 * Struct dtypes: their layouts by C's and WGSL's rules (checked against offsets a C compiler
 * and WGSL's memory-layout tables give), the refusals, and packing JS objects into bytes and back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  LoomError,
  fieldArray,
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

test.run();
