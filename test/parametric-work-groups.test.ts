/**
 * Work-groups sized at launch (issue 27, "Sizes known only at run time"): an `l.N` iname over a
 * parametric extent is a work-group of that many work-items, evaluated with the launch's
 * parameters, as loopy sets the local size at launch. Each kernel runs on every test device at
 * several sizes against plain JavaScript: several inames of one axis (the larger sizes it), a
 * barrier between work-items, a private value kept across that barrier (the C device keeps a
 * copy per work-item), and a kernel run at a new size on a device that made it for another.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, generateCode, getGridSizeUpperBounds, makeKernel, printExpr, run, tagInames } from '@loom/core';
import { assertClose, testDevices } from './support/devices.ts';

const iota = (n: number, from = 1) => Float32Array.from({ length: n }, (_, k) => from + k);

/** Two inames of different parametric lengths on l.0: the work-group is the larger, each keeps its guard. */
const twoLengths = tagInames(
  addDtypes(makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i] = a[i]\nout2[j] = 2*c[j]'), {
    a: 'float32',
    c: 'float32',
  }),
  { i: 'l.0', j: 'l.0' },
);

/** A work-item reads what another wrote (a barrier between), and keeps its private p across it. */
const acrossBarrier = tagInames(
  addDtypes(
    makeKernel('{ [i]: 0<=i<n }', [
      '<> p = 2*a[i]  {id=p}',
      'b[i] = p  {id=w, dep=p}',
      'out[i] = b[n-1-i] + p  {dep=w}',
    ]),
    { a: 'float32' },
  ),
  { i: 'l.0' },
);

test('the launch sizes: the larger of two parametric lengths on one axis, no constant where none is', () => {
  const { local } = getGridSizeUpperBounds(twoLengths);
  assert.equal(local.map(printExpr), ['max(n, m)']);
  for (const device of testDevices())
    assert.not.match(generateCode(twoLengths, device.target).code, /reqd_work_group_size/);
});

for (const device of testDevices()) {
  test(`${device.name}: two inames of different parametric lengths on l.0, at several sizes`, async () => {
    for (const [n, m] of [
      [5, 3],
      [2, 7],
      [1, 1],
    ]) {
      const a = iota(n);
      const c = iota(m, 10);
      const { out, out2 } = await run(twoLengths, device, { a, c, n, m });
      assertClose(out as Float32Array, Array.from(a), `out, n=${n} m=${m}`, 0, 0);
      assertClose(
        out2 as Float32Array,
        Array.from(c, (x) => 2 * x),
        `out2, n=${n} m=${m}`,
        0,
        0,
      );
    }
  });

  test(`${device.name}: a barrier between work-items of a group sized at launch, a private value kept across it`, async () => {
    for (const n of [5, 2, 64, 5]) {
      const a = iota(n);
      const { out } = await run(acrossBarrier, device, { a, b: new Float32Array(n), n });
      const expected = Array.from(a, (_, i) => 2 * a[n - 1 - i] + 2 * a[i]);
      assertClose(out as Float32Array, expected, `n=${n}`, 0, 0);
    }
  });
}

test.run();
