/**
 * Ports of Reikna's tests/test_transformations.py: each ready-made transformation attached
 * to a copying PureParallel computation, run on every test device (each dtype where the
 * device holds it; WGSL has no float64) and compared with plain JS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostArrayConstructor, type DType, type Device, type HostArray } from '@loom/core';
import {
  addConst,
  addParam,
  broadcastConst,
  broadcastParam,
  cast,
  combineComplex,
  copy,
  copyBroadcasted,
  divConst,
  divParam,
  mulConst,
  mulParam,
  normConst,
  normParam,
  pureParallel,
  splitComplex,
} from '@loom/computation';
import { assertClose, supportsDType, testDevices } from '../../support/devices.ts';

const SIZE = 1000;
const DTYPES: readonly DType[] = ['float32', 'float64', 'int32'];

/** Test data of a dtype: small integers for integer types (sums stay exact), floats in [-1, 1) else. */
function testArray(dtype: DType, length: number, seed: number): HostArray {
  const Ctor = hostArrayConstructor(dtype);
  let s = (seed * 2654435761) >>> 0 || 1;
  const next = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  return new Ctor(
    Array.from({ length }, () => (dtype.startsWith('int') ? Math.round(next() * 50) : next())) as never,
  ) as HostArray;
}

/** get_test_computation: output[idx] = input[idx]. */
function copyComputation(dtype: DType, shape: readonly number[] = [SIZE], outDtype: DType = dtype) {
  return pureParallel({
    name: 'test_copy',
    params: [
      { name: 'output', dtype: outDtype, shape, role: 'o' },
      { name: 'input', dtype: outDtype, shape, role: 'i' },
    ],
    body: (idx) => `output[${idx.join(', ')}] = input[${idx.join(', ')}]`,
  });
}

function devicesFor(dtype: DType): Device[] {
  return testDevices().filter((d) => {
    if (supportsDType(d, dtype)) return true;
    console.log(`  (${d.name}: no ${dtype}, skipped)`);
    return false;
  });
}

const f = (dtype: DType) => (x: number) =>
  dtype === 'float32' ? Math.fround(x) : dtype === 'int32' ? Math.trunc(x) | 0 : x;

for (const dtype of DTYPES) {
  test(`test_transformations.py::test_copy[${dtype}]`, async () => {
    const input = testArray(dtype, SIZE, 1);
    const comp = copyComputation(dtype)
      .attach('input', copy({ dtype, shape: [SIZE] }), 'output', { input: 'input_prime' })
      .attach('output', copy({ dtype, shape: [SIZE] }), 'input', { output: 'output_prime' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(undefined, input as never);
      assertClose(output_prime as ArrayLike<number>, input as ArrayLike<number>, device.name, 0, 0);
    }
  });

  test(`test_transformations.py::test_add_param[${dtype}]`, async () => {
    const input = testArray(dtype, SIZE, 2);
    const [p1, p2] = dtype === 'int32' ? [3, -7] : [0.25, -0.625];
    const comp = copyComputation(dtype)
      .attach('input', addParam({ dtype }), 'output', { input: 'input_prime', param: 'p1' })
      .attach('output', addParam({ dtype }), 'input', { output: 'output_prime', param: 'p2' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(undefined, p2, input as never, p1);
      const r = f(dtype);
      assertClose(
        output_prime as ArrayLike<number>,
        Array.from(input as ArrayLike<number>, (x) => r(r(x + p1) + p2)),
        device.name,
        1e-6,
        0,
      );
    }
  });

  test(`test_transformations.py::test_add_const[${dtype}]`, async () => {
    const input = testArray(dtype, SIZE, 3);
    const [p1, p2] = dtype === 'int32' ? [5, 11] : [0.5, 1.5];
    const comp = copyComputation(dtype)
      .attach('input', addConst({ dtype }, p1), 'output', { input: 'input_prime' })
      .attach('output', addConst({ dtype }, p2), 'input', { output: 'output_prime' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(undefined, input as never);
      const r = f(dtype);
      assertClose(
        output_prime as ArrayLike<number>,
        Array.from(input as ArrayLike<number>, (x) => r(r(x + p1) + p2)),
        device.name,
        1e-6,
        0,
      );
    }
  });

  test(`test_transformations.py::test_mul_param[${dtype}]`, async () => {
    const input = testArray(dtype, SIZE, 4);
    const [p1, p2] = dtype === 'int32' ? [3, -2] : [0.75, -1.25];
    const comp = copyComputation(dtype)
      .attach('input', mulParam({ dtype }), 'output', { input: 'input_prime', param: 'p1' })
      .attach('output', mulParam({ dtype }), 'input', { output: 'output_prime', param: 'p2' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(undefined, p2, input as never, p1);
      const r = f(dtype);
      assertClose(
        output_prime as ArrayLike<number>,
        Array.from(input as ArrayLike<number>, (x) => r(r(x * p1) * p2)),
        device.name,
        1e-6,
        0,
      );
    }
  });

  test(`test_transformations.py::test_mul_const[${dtype}]`, async () => {
    const input = testArray(dtype, SIZE, 5);
    const [p1, p2] = dtype === 'int32' ? [4, 3] : [0.5, 3];
    const comp = copyComputation(dtype)
      .attach('input', mulConst({ dtype }, p1), 'output', { input: 'input_prime' })
      .attach('output', mulConst({ dtype }, p2), 'input', { output: 'output_prime' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(undefined, input as never);
      const r = f(dtype);
      assertClose(
        output_prime as ArrayLike<number>,
        Array.from(input as ArrayLike<number>, (x) => r(r(x * p1) * p2)),
        device.name,
        1e-6,
        0,
      );
    }
  });
}

for (const inShape of [[30], [20, 1], [10, 20, 1]]) {
  test(`test_transformations.py::test_broadcasted_copy[(${inShape.join(', ')})]`, async () => {
    const shape = [10, 20, 30];
    const input = testArray(
      'int32',
      inShape.reduce((a, b) => a * b, 1),
      6,
    ) as Int32Array;
    const comp = copyComputation('int32', shape).attach(
      'input',
      copyBroadcasted({ dtype: 'int32', shape: inShape }, { dtype: 'int32', shape }),
      'output',
      {
        input: 'input_prime',
      },
    );
    // numpy.broadcast_to, by hand: each output index, its axes aligned right, size-1 axes at 0
    const expected = Array.from({ length: 6000 }, (_, flat) => {
      const index = [Math.floor(flat / 600), Math.floor(flat / 30) % 20, flat % 30].slice(3 - inShape.length);
      return input[index.reduce((acc, i, k) => acc * inShape[k] + (inShape[k] === 1 ? 0 : i), 0)];
    });
    for (const device of testDevices()) {
      const { output } = await (await comp.compile(device))(undefined, input);
      assert.equal([...(output as Int32Array)], expected, device.name);
    }
  });
}

test('test_transformations.py::test_cast', async () => {
  const data = Float32Array.from(testArray('float32', SIZE, 7) as Float32Array, (x) => x * 10);
  const comp = copyComputation('int32').attach('input', cast({ dtype: 'float32', shape: [SIZE] }, 'int32'), 'output', {
    input: 'input_prime',
  });
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, data);
    // a float-to-integer conversion truncates (C's, and numpy's astype)
    assert.equal(
      [...(output as Int32Array)],
      Array.from(data, (x) => Math.trunc(x)),
      device.name,
    );
  }
});

test('test_transformations.py::test_div_param', async () => {
  const input = testArray('float32', SIZE, 8) as Float32Array;
  const comp = copyComputation('float32')
    .attach('input', divParam({ dtype: 'float32' }), 'output', { input: 'input_prime', param: 'p1' })
    .attach('output', divParam({ dtype: 'float32' }), 'input', { output: 'output_prime', param: 'p2' });
  for (const device of testDevices()) {
    const { output_prime } = await (await comp.compile(device))(undefined, 3, input, 0.5);
    assertClose(
      output_prime as Float32Array,
      Array.from(input, (x) => x / 0.5 / 3),
      device.name,
      1e-6,
    );
  }
});

test('test_transformations.py::test_div_const', async () => {
  const input = testArray('float32', SIZE, 9) as Float32Array;
  const comp = copyComputation('float32')
    .attach('input', divConst({ dtype: 'float32' }, 0.5), 'output', { input: 'input_prime' })
    .attach('output', divConst({ dtype: 'float32' }, 3), 'input', { output: 'output_prime' });
  for (const device of testDevices()) {
    const { output_prime } = await (await comp.compile(device))(undefined, input);
    assertClose(
      output_prime as Float32Array,
      Array.from(input, (x) => x / 0.5 / 3),
      device.name,
      1e-6,
    );
  }
});

test('test_transformations.py::test_split_combine_complex', async () => {
  const i1 = testArray('float32', SIZE, 10) as Float32Array;
  const i2 = testArray('float32', SIZE, 11) as Float32Array;
  const base = { dtype: 'float32', shape: [SIZE, 2] } as const;
  const comp = copyComputation('float32', base.shape)
    .attach('input', combineComplex(base), 'output', { real: 'i_real', imag: 'i_imag' })
    .attach('output', splitComplex(base), 'input', { real: 'o_real', imag: 'o_imag' });
  for (const device of testDevices()) {
    const out = await (await comp.compile(device))(undefined, undefined, i1, i2);
    assert.equal([...(out.o_real as Float32Array)], [...i1], `${device.name}: real`);
    assert.equal([...(out.o_imag as Float32Array)], [...i2], `${device.name}: imag`);
  }
});

for (const dtype of ['float32', 'float64'] as const) {
  for (const order of [1, 2, 0.5]) {
    const expected = (input: ArrayLike<number>) => Array.from(input, (x) => Math.abs(x) ** order);
    test(`test_transformations.py::test_norm_param[${dtype}-${order}]`, async () => {
      const input = testArray(dtype, SIZE, 12) as Float32Array;
      const comp = copyComputation(dtype).attach('input', normParam({ dtype }), 'output', {
        input: 'input_prime',
        order: 'order',
      });
      for (const device of devicesFor(dtype)) {
        const { output } = await (await comp.compile(device))(undefined, input as never, order);
        assertClose(output as Float32Array, expected(input), device.name, 1e-5, 1e-6);
      }
    });
    test(`test_transformations.py::test_norm_const[${dtype}-${order}]`, async () => {
      const input = testArray(dtype, SIZE, 13) as Float32Array;
      const comp = copyComputation(dtype).attach('input', normConst({ dtype }, order), 'output', {
        input: 'input_prime',
      });
      for (const device of devicesFor(dtype)) {
        const { output } = await (await comp.compile(device))(undefined, input as never);
        assertClose(output as Float32Array, expected(input), device.name, 1e-5, 1e-6);
      }
    });
  }
}

for (const dtype of DTYPES) {
  const value = dtype === 'int32' ? -42 : 0.3125;
  test(`test_transformations.py::test_broadcast_const[${dtype}]`, async () => {
    const comp = copyComputation(dtype).attach('input', broadcastConst({ dtype }, value), 'output', {});
    for (const device of devicesFor(dtype)) {
      const { output } = await (await comp.compile(device))(undefined);
      assert.equal([...(output as Float32Array)], new Array(SIZE).fill(value), device.name);
    }
  });
  test(`test_transformations.py::test_broadcast_param[${dtype}]`, async () => {
    const comp = copyComputation(dtype).attach('input', broadcastParam({ dtype }), 'output', { param: 'param' });
    for (const device of devicesFor(dtype)) {
      const { output } = await (await comp.compile(device))(undefined, value);
      assert.equal([...(output as Float32Array)], new Array(SIZE).fill(value), device.name);
    }
  });
}

test.run();
