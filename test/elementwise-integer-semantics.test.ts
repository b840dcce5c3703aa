/**
 * Integer payload operators with edge operands (issue 24 follow-up): over integer tensors a
 * payload computes in the promoted integer dtype, as PyTorch does. `x ** y` is an integer power
 * (a negative exponent from a tensor gives 0, or ±1 for a base of ±1: PyTorch's result, where
 * JavaScript's is a fraction); a constant negative exponent is a LoomError, as PyTorch refuses
 * it. `x % y` truncates as JavaScript's does, and a divisor of 0 from a tensor gives 0 (no integer
 * holds JavaScript's NaN); the constant 0 is a LoomError. Every device, against plain JS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';
import { pointwise, tensor } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';

/** PyTorch's integer power: exact for exponents >= 0, truncated toward zero below. */
const intPow = (a: number, b: number) =>
  b >= 0 ? Math.trunc(a ** b) : a === 1 ? 1 : a === -1 ? (b % 2 === 0 ? 1 : -1) : 0;
/** JavaScript's remainder, with 0 for a divisor of 0. */
const intRem = (a: number, b: number) => (b === 0 ? 0 : a % b);

test('integer ** and % with edge operands: PyTorch-style integer results on every device', async () => {
  const xs = [2, 3, -4, 7, 1, -1, -1, 0, 5, -9];
  const ys = [-1, 0, 2, 0, -3, -3, -2, 3, -2, 4];
  const f = pointwise({ numOutputs: 2 }, (a: number, b: number) => [a ** b, a % b]);
  for (const device of testDevices()) {
    const [pow, rem] = await f(
      tensor(xs, undefined, { device, dtype: 'int32' }),
      tensor(ys, undefined, { device, dtype: 'int32' }),
    );
    assert.is(pow.dtype, 'int32', device.name);
    assert.equal(
      [...((await pow.toArray()) as Int32Array)],
      xs.map((a, k) => intPow(a, ys[k])),
      `${device.name}: **`,
    );
    assert.equal(
      [...((await rem.toArray()) as Int32Array)],
      xs.map((a, k) => intRem(a, ys[k])),
      `${device.name}: %`,
    );
  }
});

test('a constant negative exponent or a constant 0 divisor on integers is a LoomError', async () => {
  for (const device of testDevices()) {
    const x = tensor([1, 2, 3], undefined, { device, dtype: 'int32' });
    for (const [f, message] of [
      [pointwise({}, (a: number) => a ** -1), 'integers to negative integer powers are not allowed'],
      [pointwise({}, (a: number) => a ** -2), 'integers to negative integer powers are not allowed'],
      [pointwise({}, (a: number) => a % 0), 'integer remainder (%) by the constant 0'],
    ] as const) {
      try {
        await f(x);
        assert.unreachable(message);
      } catch (e) {
        assert.instance(e, LoomError, device.name);
        assert.match((e as Error).message, message);
      }
    }
    // a float base keeps JavaScript's fraction
    const half = await pointwise({}, (a: number) => a ** -1)(tensor([2, 4], undefined, { device, dtype: 'float32' }));
    assert.equal([...((await half.toArray()) as Float32Array)], [0.5, 0.25], device.name);
  }
});

test.run();
