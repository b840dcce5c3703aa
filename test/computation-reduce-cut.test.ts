/**
 * How `reduce` cuts its passes: given by hand (`workGroupSize`, `perItem`) or sized from the
 * device. Every cut, exact or with a partial last work-group, computes what plain JS does, for
 * a commutative and an order-keeping predicate, on every test device; the default cut of a long row
 * for a GPU (the H200's parameters) takes work-groups of 1024 and reads without bounds guards
 * where the work-groups cover the row exactly, its loads unrolled where the target's compilers
 * keep loops; bad cuts are LoomErrors before anything runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, LoomError } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { predicateSum, reduce, type ReduceOptions } from '@loom/computation';
import { finishCall, flatten } from '../packages/computation/src/computation/flatten.ts';
import { testDevices } from './support/devices.ts';
import { H200_OPENCL, H200_WGSL, h200WgslTarget } from './support/h200-parameters.ts';
import { reduceRef } from './support/ndarray.ts';
import { COMMUTATIVE, MATRIX_PRODUCT_MOD3, seeded } from './support/predicates.ts';

const CUTS: readonly { readonly length: number; readonly cut: ReduceOptions; readonly why: string }[] = [
  { length: 4096, cut: { workGroupSize: 64, perItem: 16 }, why: 'four work-groups covering the row exactly' },
  { length: 5000, cut: { workGroupSize: 64, perItem: 16 }, why: 'a partial last work-group' },
  { length: 20_003, cut: { workGroupSize: 32, perItem: 2 }, why: 'several passes of small work-groups' },
  { length: 777, cut: { workGroupSize: 256 }, why: 'the work-group given, the elements per work-item chosen' },
  { length: 777, cut: { perItem: 50 }, why: 'the elements per work-item given, the work-group chosen' },
];

for (const [k, { length, cut, why }] of CUTS.entries()) {
  test(`reduce cut by hand (${JSON.stringify(cut)}) of ${length}: ${why}`, async () => {
    // a sum (the commutative path) and a product of matrices (any change of order shows)
    for (const [j, p] of [COMMUTATIVE[0]!, MATRIX_PRODUCT_MOD3].entries()) {
      const a = p.draw(length, seeded(31 * k + j + 1));
      const expected = reduceRef(a, [length], [0], p.op, p.predicate.empty);
      const comp = reduce({ dtype: 'int32', shape: [length] }, p.predicate, undefined, cut);
      for (const device of testDevices()) {
        const { output } = await (await comp.compile(device))(undefined, a);
        assert.equal([...(output as Int32Array)], expected, `${device.name}: ${p.name}`);
      }
    }
  });
}

test('a sum of 2^26 for a GPU, combined by a next pass: 1024 work-groups of 1024 unguarded, then one tree of 256', () => {
  const comp = reduce({ dtype: 'float32', shape: [2 ** 26] }, predicateSum('float32'), undefined, {
    combine: 'next-pass',
  });
  const codes = flatten(comp, H200_OPENCL).map((c) => generateCode(finishCall(c, 'test').kernel, openclTarget()).code);
  assert.is(codes.length, 2);
  assert.match(codes[0], 'reqd_work_group_size(1024, 1, 1)');
  assert.match(codes[0], /for \(int c = 0; c <= 63; \+\+c\)/);
  assert.not.match(codes[0], '< 67108864', 'the first pass covers the input exactly: no guard');
  assert.match(codes[1], 'reqd_work_group_size(256, 1, 1)');
  assert.not.match(codes[1], '< 1024', 'the second pass covers the 1024 partial sums exactly: no guard');
});

test("where a target's compilers keep constant loops (WGSL), a work-item's loads are unrolled by 8", () => {
  const comp = reduce({ dtype: 'float32', shape: [2 ** 26] }, predicateSum('float32'));
  const wgsl = h200WgslTarget();
  const [first, second] = flatten(comp, H200_WGSL).map((c) => generateCode(finishCall(c, 'test').kernel, wgsl).code);
  assert.match(first!, 'for (var c_outer: i32 = 0i; c_outer <= 7i; c_outer++)');
  assert.is(first!.match(/acc = acc \+ inp\[/g)?.length, 8, 'eight loads a step');
  assert.not.match(second!, 'for (', 'four elements a work-item: no loop');
});

test('a few short rows take a work-group each, not a work-item each', () => {
  const comp = reduce({ dtype: 'float32', shape: [10, 100] }, predicateSum('float32'), [1]);
  const kernels = flatten(comp, H200_OPENCL).map((c) => finishCall(c, 'test').kernel);
  assert.equal(
    kernels.map((k) => k.name),
    ['reduce_tree'],
  );
});

test('bad cuts are LoomErrors', () => {
  const arr = { dtype: 'float32' as const, shape: [1000] };
  const bad: readonly [ReduceOptions, RegExp][] = [
    [{ workGroupSize: 48 }, /workGroupSize must be a power of two, got 48/],
    [{ perItem: 0 }, /perItem must be a positive integer, got 0/],
    [{ perItem: 2.5 }, /perItem must be a positive integer/],
    [{ workGroupSize: 1, perItem: 1 }, /never shortens the input/],
    [{ groups: 4 } as ReduceOptions, /groups/],
  ];
  for (const [options, message] of bad) {
    try {
      reduce(arr, predicateSum('float32'), undefined, options);
      assert.unreachable(`${JSON.stringify(options)} was accepted`);
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, message);
    }
  }
  try {
    flatten(reduce(arr, predicateSum('float32'), undefined, { workGroupSize: 2048 }), H200_OPENCL);
    assert.unreachable('a work-group of 2048 was accepted for a device of 1024');
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, /workGroupSize 2048 is more than the device allows \(1024\)/);
  }
});

test.run();
