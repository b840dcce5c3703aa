/**
 * Ports of loopy's test/test_loopy.py (issue 28, batch A): what caches must keep apart, and
 * reductions of several values nested in one another. Kernels run on every test device against
 * plain JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  generateCode,
  LoomError,
  makeKernel,
  parseExpression,
  printExpr,
  resultTypes,
  run,
  type Expr,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { randomFloat32, testDevices } from '../support/devices.ts';

test('test_regression_persistent_hash', async () => {
  // loopy's key builder once gave two kernels differing only in a constant subscript one key.
  // Loom's caches keyed by content are the parsed instruction texts and each device's programs
  // (by code): the two kernels must stay apart in both
  const text = (k: number) => `cse_exprvar = d[${k}]*d[${k}]`;
  const knl1 = makeKernel('{[i] : 0<=i<n}', text(2));
  const knl2 = makeKernel('{[i] : 0<=i<n}', text(0));
  assert.is.not(printExpr(knl1.instructions[0].expression!), printExpr(knl2.instructions[0].expression!));
  assert.is.not(
    generateCode(addDtypes(knl1, { d: 'float32' }), openclTarget()).code,
    generateCode(addDtypes(knl2, { d: 'float32' }), openclTarget()).code,
  );
  const d = Float32Array.of(3, 5, 7);
  for (const device of testDevices()) {
    const one = await run(knl1, device, { d, n: 1 });
    // d's shape is what each kernel reads: (3) and (1)
    const two = await run(knl2, device, { d: d.subarray(0, 1), n: 1 });
    assert.equal(Array.from(one.cse_exprvar as Float32Array), [49], device.name);
    assert.equal(Array.from(two.cse_exprvar as Float32Array), [9], device.name);
  }
});

// {{{ reductions of several values

test('test_multi_argument_reduction_type_inference', async () => {
  // loopy's Reduction of a Reduction of the pair (1, 2): the segmented sum's results are the
  // pair's types, through both levels
  const e = parseExpression('reduce(segmented(sum), i, reduce(segmented(sum), j, 1, 2))');
  assert.equal(
    resultTypes(e, () => undefined).map((t) => t.dtype),
    ['int32', 'int32'],
  );
  // and in a kernel (loopy's domain, where j < i): every inner segment starts at a flag
  const knl = makeKernel(
    '{[i,j]: 0<=i<10 and 0<=j<i}',
    's, f = reduce(segmented(sum), i, reduce(segmented(sum), j, 1, 2))',
  );
  for (const device of testDevices()) {
    const { s, f } = await run(knl, device, {});
    assert.equal([Array.from(s as Int32Array), Array.from(f as Int32Array)], [[1], [2]], device.name);
  }
});

test('test_multi_argument_reduction_parsing', async () => {
  const isReduction = (e: Expr) => e.kind === 'reduce';
  assert.ok(isReduction(parseExpression('reduce(argmax, i, reduce(argmax, j, i, j))')));
  assert.ok(isReduction(parseExpression('argmax(i, argmax(j, a[i, j], j))')));
  // a nest stands where its results do, alone on the right of a multiple assignment; and only
  // a reduction of the same operation is one
  assert.throws(
    () => makeKernel('{[i,j]: 0<=i<4 and 0<=j<5}', 'v, idx = 2*argmax(i, argmax(j, a[i, j], j))'),
    (e: unknown) => e instanceof LoomError && /argmax\(\) reduces 2 values per point/.test(String(e)),
  );
  assert.throws(
    () => makeKernel('{[i,j]: 0<=i<4 and 0<=j<5}', 'v, idx = argmax(i, max(j, a[i, j]))'),
    (e: unknown) =>
      e instanceof LoomError && /argmax\(\) takes an iname \(or a tuple of inames\) and 2 expressions/.test(String(e)),
  );
  // the nest is the argmax over both inames: the inner results are the outer values
  const knl = addDtypes(
    makeKernel('{[i,j]: 0<=i<4 and 0<=j<5}', 'v, idx = reduce(argmax, i, reduce(argmax, j, a[i, j], 5*i + j))'),
    { a: 'float32' },
  );
  const a = randomFloat32(20, 11);
  const best = a.indexOf(Math.max(...a));
  for (const device of testDevices()) {
    const out = await run(knl, device, { a });
    assert.equal(
      [Array.from(out.v as Float32Array), Array.from(out.idx as Int32Array)],
      [[a[best]], [best]],
      device.name,
    );
  }
});

// }}}

test.run();
