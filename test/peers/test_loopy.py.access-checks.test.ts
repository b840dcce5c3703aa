/**
 * Ports of loopy's tests of where accesses may reach (issue 28, test_loopy.py batch B): the
 * bounds check honours the conditions an access sits under (`x[i] if i < 10 else y[i-10]`,
 * a constant condition that switches a branch off, an integer used as a truth value,
 * instruction predicates, predicates with parameters), and refuses what leaves an array
 * before anything runs; numpy's relaxed strides (an axis of length 1 may have any stride)
 * and an array with an axis of length 0. Every kernel runs on every test device against
 * plain JavaScript. Names are the originals' (all from test_loopy.py).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globalArg, LoomError, makeKernel, run, valueArg, type Device, type LoopKernel } from '@loom/core';
import { supportsDType, testDevices } from '../support/devices.ts';

/** The run's LoomError message; a failure where it ran or threw something else. */
async function refusal(knl: LoopKernel, device: Device, args: Record<string, unknown>): Promise<string> {
  const e = await run(knl, device, args as never).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.ok(e instanceof LoomError, `expected a LoomError, got ${String(e)}`);
  return (e as Error).message;
}

const X_Y_IN = () => [
  globalArg('x', { shape: 10, dtype: 'float64' }),
  globalArg('y', { shape: 10, dtype: 'float64' }),
  globalArg('in', { shape: 19, dtype: 'float64' }),
  '...',
];

const inputs = () => ({
  x: Float64Array.from({ length: 10 }, (_, i) => i + 0.5),
  y: Float64Array.from({ length: 10 }, (_, i) => 100 + i),
  in: Float64Array.from({ length: 19 }, (_, i) => 1000 + i),
});

for (const device of testDevices()) {
  if (!supportsDType(device, 'float64')) continue;

  test(`${device.name}: test_access_check_with_conditionals`, async () => {
    const { x, y, in: inArr } = inputs();
    // loopy's legal kernel: each access stays in its array under the condition it sits under
    const legal = makeKernel(
      '{[i]: 0<=i<20}',
      `
      z[i] = x[i] if i < 10 else y[i-10]
      z[i] = x[i] if 0 else 2.0f
      z[i] = in[i-1] if i else 3.14f
      `,
      X_Y_IN(),
      { seqDependencies: true },
    );
    const { z } = await run(legal, device, inputs());
    const last = Array.from({ length: 20 }, (_, i) => (i ? inArr[i - 1] : Math.fround(3.14)));
    assert.equal(Array.from(z as Float64Array), last);
    // each branch's values, one output per instruction
    const apart = makeKernel(
      '{[i]: 0<=i<20}',
      `
      z0[i] = x[i] if i < 10 else y[i-10]
      z1[i] = x[i] if 0 else 2.0f
      z2[i] = in[i-1] if i else 3.14f
      `,
      X_Y_IN(),
    );
    const out = await run(apart, device, inputs());
    assert.equal(
      Array.from(out.z0 as Float64Array),
      Array.from({ length: 20 }, (_, i) => (i < 10 ? x[i] : y[i - 10])),
    );
    assert.equal(Array.from(out.z1 as Float64Array), new Array(20).fill(2));
    assert.equal(Array.from(out.z2 as Float64Array), last);

    // y[i] for i up to 19 leaves y (10 elements): refused before anything runs
    const illegal = makeKernel('{[i]: 0<=i<20}', 'z[i] = x[i] if i < 10 else y[i]', X_Y_IN());
    assert.match(
      await refusal(illegal, device, inputs()),
      /would access 'y' at index i up to 19 .*outside its shape \(10\)/,
    );

    // as in loopy, a condition that is not affine does not restrict the accesses under it
    const nonaffine = makeKernel('{[i]: 0<=i<20}', 'z[i] = x[i] if i*i < 100 else y[i-10]', X_Y_IN());
    assert.match(await refusal(nonaffine, device, inputs()), /would access 'x' at index i up to 19/);
  });

  test(`${device.name}: test_access_check_with_insn_predicates`, async () => {
    const knl = makeKernel(
      '{[i]: 0<i<10}',
      `
      if i < 4
        y[i] = 2*x[i]
      end
      `,
      [globalArg('x', { dtype: 'float64', shape: 4 }), '...'],
    );
    const x = Float64Array.from([1.5, 2.5, 3.5, 4.5]);
    const yIn = new Float64Array(10).fill(-1);
    const { y } = await run(knl, device, { x, y: yIn });
    assert.equal(Array.from(y as Float64Array), [-1, 5, 7, 9, -1, -1, -1, -1, -1, -1]);
  });
}

for (const device of testDevices()) {
  if (!supportsDType(device, 'int64')) continue;

  test(`${device.name}: test_conditional_access_range_with_parameters`, async () => {
    const tmp = () => BigInt64Array.from({ length: 80 }, (_, k) => BigInt(k));
    const expected = Array.from({ length: 80 }, (_, k) => BigInt(k + 1));
    // j runs to problem_size + 1, past tmp's rows; the predicate keeps the accesses inside
    const knl = makeKernel(
      ['{[i]: 0 <= i < 10}', '{[j]: 0 <= j < problem_size+2}'],
      `
      if i < 8 and j < problem_size
        tmp[j, i] = tmp[j, i] + 1
      end
      `,
      [globalArg('tmp', { shape: ['problem_size', 8], dtype: 'int64' }), valueArg('problem_size', 'int64')],
    );
    const first = await run(knl, device, { tmp: tmp(), problem_size: 10 });
    assert.equal(Array.from(first.tmp as BigInt64Array), expected);

    // only half of the condition bounds j: the other half (with offset) is data the check cannot use
    const half = makeKernel(
      ['{[i]: 0 <= i < 10}', '{[j]: 0 <= j < problem_size}'],
      `
      if i < 8 and (j + offset) < problem_size
        tmp[j, i] = tmp[j, i] + 1
      end
      `,
      [
        globalArg('tmp', { shape: ['problem_size', 8], dtype: 'int64' }),
        valueArg('problem_size', 'int64'),
        valueArg('offset', 'int64'),
      ],
    );
    const second = await run(half, device, { tmp: tmp(), problem_size: 10, offset: 0 });
    assert.equal(Array.from(second.tmp as BigInt64Array), expected);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_relaxed_stride_checks`, async () => {
    // numpy's relaxed strides: the axis of length 1 of a (1, 10) array in Fortran order has stride 1
    const knl = makeKernel('{[i,j]: 0 <= i <= n and 0 <= j <= m}', 'a[i] = sum(j, A[i,j] * b[j])');
    const data = Float32Array.from({ length: 10 }, (_, k) => k - 4);
    const b = Float32Array.from({ length: 10 }, (_, k) => 0.5 * k);
    const { a } = await run(knl, device, { A: { data, shape: [1, 10], strides: [1, 1] }, b });
    const expected = data.reduce((s, v, k) => Math.fround(s + Math.fround(v * b[k])), 0);
    assert.equal(Array.from(a as Float32Array), [expected]);
  });

  test(`${device.name}: test_zero_stride_array`, async () => {
    // j's domain is empty: y has shape (10, 0), no elements, and nothing is written
    const knl = makeKernel(['{[i]: 0<=i<10}', '{[j]: 1=0}'], 'y[i, j] = 1', [globalArg('y', { shape: [10, 0] })]);
    const { y } = await run(knl, device, {});
    assert.is((y as Int32Array).length, 0);
  });
}

test.run();
