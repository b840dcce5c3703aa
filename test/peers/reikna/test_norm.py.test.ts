/**
 * Ports of Reikna's tests/test_linalg/test_norm.py: `entrywiseNorm` of float32 and complex64
 * arrays (the norm of a complex array is float32) of orders 0.5, 1 and 2 over the whole array,
 * and over some axes, on every test device against plain JS (Reikna's reference_norm).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HostArray } from '@loom/core';
import { entrywiseNorm } from '@loom/computation';
import { testDevices } from '../../support/devices.ts';
import { reduceRef, sizeOf } from '../../support/ndarray.ts';
import { abs, assertNegligible, testValues, toHost, type Elem } from '../../support/reikna-values.ts';

/** reference_norm: |a| ** order summed over the axes (kept as 1), then ** (1 / order). */
function referenceNorm(a: readonly Elem[], shape: readonly number[], order: number, axes: readonly number[]): number[] {
  return reduceRef(
    a.map((x) => abs(x) ** order),
    shape,
    axes,
    (x, y) => x + y,
    0,
  ).map((x) => x ** (1 / order));
}

async function checkNorm(
  shape: readonly number[],
  dtype: 'float32' | 'complex64',
  order: number,
  axes: readonly number[] | undefined,
): Promise<void> {
  const a = testValues(dtype, sizeOf(shape), shape.length * 10 + order * 4);
  const norm = entrywiseNorm({ dtype, shape }, order, axes);
  const [output, input] = norm.signature;
  assert.is(output.dtype, 'float32', 'the norm is real');
  assert.is(input.dtype, dtype);
  const all = shape.map((_, k) => k);
  assert.equal(
    output.shape,
    shape.map((n, k) => ((axes ?? all).includes(k) ? 1 : n)),
    'the reduced axes kept as 1',
  );
  const expected = referenceNorm(a, shape, order, axes ?? all);
  for (const device of testDevices()) {
    const { output: b } = await (await norm.compile(device))(undefined, toHost(dtype, a) as never);
    assertNegligible(b as HostArray, expected, 'float32', device.name);
  }
}

for (const dtype of ['float32', 'complex64'] as const) {
  for (const order of [0.5, 1, 2]) {
    test(`test_norm.py::test_all_axes[${order}-${dtype}]`, async () => {
      await checkNorm([100], dtype, order, undefined);
    });
  }
}

for (const axes of [undefined, [0], [2], [1, 2]]) {
  test(`test_norm.py::test_some_axes[${axes ? `(${axes})` : 'None'}]`, async () => {
    await checkNorm([20, 10, 5], 'float32', 2, axes);
  });
}

test.run();
