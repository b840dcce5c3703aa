/**
 * Port of loopy's test_split_iname_slabs.py: a loop `k <= i < n` split by 4 with a slab at
 * each end (`slabs: [1, 1]`) computes what the unsplit loop does, for loopy's three (k, n):
 * bounds that fall inside one block, across two, and on block boundaries. On every test device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assume, generateCode, globalArg, makeKernel, prioritizeLoops, run, splitIname, valueArg } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from '../support/devices.ts';

function vanilla() {
  const k = makeKernel('{ [i] : k <= i < n}', 'a[i] = a[i] + 1', [
    valueArg('k', 'int32'),
    valueArg('n', 'int32'),
    globalArg('a', { dtype: 'int32' }),
  ]);
  return assume(k, 'k >= 0 and n >= k');
}

function split() {
  return prioritizeLoops(splitIname(vanilla(), 'i', 4, { slabs: [1, 1] }), 'i_outer,i_inner');
}

const PARAMETERS = [
  { k: 1, n: 4 },
  { k: 1, n: 5 },
  { k: 4, n: 8 },
];

test('test_split_slabs (slabs generated)', () => {
  // the first and last blocks are loops of their own, around a bulk of whole blocks
  const code = generateCode(split(), openclTarget()).code;
  for (const slab of ['initial slab', 'bulk slab', 'final slab']) assert.ok(code.includes(slab), code);
  const bulk = code.slice(code.indexOf('bulk slab'), code.indexOf('final slab'));
  assert.match(bulk, /for \(int i_inner = 0; i_inner <= 3; \+\+i_inner\)/);
  assert.not.match(bulk, /\bif\b|min\(/);
});

for (const device of testDevices()) {
  test(`${device.name}: test_split_slabs`, async () => {
    for (const parameters of PARAMETERS) {
      // a's shape is (n), as its accesses say: an array of n zeros (loopy passes 8)
      const { n } = parameters;
      const expect = (await run(vanilla(), device, { a: new Int32Array(n), ...parameters })).a as Int32Array;
      const actual = (await run(split(), device, { a: new Int32Array(n), ...parameters })).a as Int32Array;
      const plain = Array.from({ length: n }, (_, i) => (parameters.k <= i ? 1 : 0));
      assert.equal([...expect], plain, `k=${parameters.k}, n=${parameters.n}`);
      assert.equal([...actual], plain, `k=${parameters.k}, n=${parameters.n}`);
    }
  });
}

test.run();
