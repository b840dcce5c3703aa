/**
 * Ports of Reikna's tests/test_transformations.py: each ready-made transformation attached
 * to a copying PureParallel computation, run on every test device (each dtype where the
 * device holds it; WGSL has no float64 nor int64) and compared with plain JS: Reikna's dtypes
 * (int32, int64, float32, complex64; complex constants and parameters), and float64.
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
import { refused } from '../../support/refusals.ts';
import {
  abs,
  add,
  assertNegligible,
  mul,
  scalarArgument,
  testValues,
  toHost,
  type Elem,
} from '../../support/reikna-values.ts';

const SIZE = 1000;
/** Reikna's any_dtype (int32, int64, float32, complex64), and float64. */
const DTYPES: readonly DType[] = ['int32', 'int64', 'float32', 'float64', 'complex64'];

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

/** A transformation's constant: a number, or a complex one as `{ re, im }`. */
const constant = (v: Elem) => {
  const arg = scalarArgument(v);
  return typeof arg === 'bigint' ? Number(arg) : arg;
};

for (const dtype of DTYPES) {
  const values = (seed: number) => testValues(dtype, SIZE, seed);
  const [p1, p2] = [testValues(dtype, 1, 100)[0], testValues(dtype, 1, 101)[0]];

  test(`test_transformations.py::test_copy[${dtype}]`, async () => {
    const input = values(1);
    const comp = copyComputation(dtype)
      .attach('input', copy({ dtype, shape: [SIZE] }), 'output', { input: 'input_prime' })
      .attach('output', copy({ dtype, shape: [SIZE] }), 'input', { output: 'output_prime' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(undefined, toHost(dtype, input) as never);
      assertNegligible(output_prime as HostArray, input, dtype, device.name);
    }
  });

  test(`test_transformations.py::test_add_param[${dtype}]`, async () => {
    const input = values(2);
    const comp = copyComputation(dtype)
      .attach('input', addParam({ dtype }), 'output', { input: 'input_prime', param: 'p1' })
      .attach('output', addParam({ dtype }), 'input', { output: 'output_prime', param: 'p2' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(
        undefined,
        scalarArgument(p2) as never,
        toHost(dtype, input) as never,
        scalarArgument(p1) as never,
      );
      assertNegligible(
        output_prime as HostArray,
        input.map((x) => add(add(x, p1), p2)),
        dtype,
        device.name,
      );
    }
  });

  test(`test_transformations.py::test_add_const[${dtype}]`, async () => {
    const input = values(3);
    const comp = copyComputation(dtype)
      .attach('input', addConst({ dtype }, constant(p1)), 'output', { input: 'input_prime' })
      .attach('output', addConst({ dtype }, constant(p2)), 'input', { output: 'output_prime' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(undefined, toHost(dtype, input) as never);
      assertNegligible(
        output_prime as HostArray,
        input.map((x) => add(add(x, p1), p2)),
        dtype,
        device.name,
      );
    }
  });

  test(`test_transformations.py::test_mul_param[${dtype}]`, async () => {
    const input = values(4);
    const comp = copyComputation(dtype)
      .attach('input', mulParam({ dtype }), 'output', { input: 'input_prime', param: 'p1' })
      .attach('output', mulParam({ dtype }), 'input', { output: 'output_prime', param: 'p2' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(
        undefined,
        scalarArgument(p2) as never,
        toHost(dtype, input) as never,
        scalarArgument(p1) as never,
      );
      assertNegligible(
        output_prime as HostArray,
        input.map((x) => mul(mul(x, p1), p2)),
        dtype,
        device.name,
      );
    }
  });

  test(`test_transformations.py::test_mul_const[${dtype}]`, async () => {
    const input = values(5);
    const comp = copyComputation(dtype)
      .attach('input', mulConst({ dtype }, constant(p1)), 'output', { input: 'input_prime' })
      .attach('output', mulConst({ dtype }, constant(p2)), 'input', { output: 'output_prime' });
    for (const device of devicesFor(dtype)) {
      const { output_prime } = await (await comp.compile(device))(undefined, toHost(dtype, input) as never);
      assertNegligible(
        output_prime as HostArray,
        input.map((x) => mul(mul(x, p1), p2)),
        dtype,
        device.name,
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
  const base = { dtype: 'complex64', shape: [SIZE] } as const;
  const comp = copyComputation('complex64', base.shape)
    .attach('input', combineComplex(base), 'output', { real: 'i_real', imag: 'i_imag' })
    .attach('output', splitComplex(base), 'input', { real: 'o_real', imag: 'o_imag' });
  assert.equal(
    comp.signature.map((p) => `${p.name}: ${p.dtype}`),
    ['o_real: float32', 'o_imag: float32', 'i_real: float32', 'i_imag: float32'],
  );
  for (const device of testDevices()) {
    const out = await (await comp.compile(device))(undefined, undefined, i1, i2);
    assert.equal([...(out.o_real as Float32Array)], [...i1], `${device.name}: real`);
    assert.equal([...(out.o_imag as Float32Array)], [...i2], `${device.name}: imag`);
  }
  // the parts of a complex128 array are float64; a real array has no parts
  assert.equal(
    splitComplex({ dtype: 'complex128' }).params.map((p) => p.dtype),
    ['float64', 'float64', 'complex128'],
  );
  await refused(() => splitComplex({ dtype: 'float32', shape: [SIZE, 2] }), 'the array must be complex');
  await refused(() => combineComplex({ dtype: 'float64' }), 'the array must be complex');
});

/** Reikna's rc_dtype (float32, complex64), and float64: the norm of a complex array is real. */
for (const dtype of ['float32', 'float64', 'complex64'] as const) {
  const real = dtype === 'complex64' ? 'float32' : dtype;
  for (const order of [1, 2, 0.5]) {
    const expected = (input: readonly Elem[]) => input.map((x) => abs(x) ** order);
    test(`test_transformations.py::test_norm_param[${dtype}-${order}]`, async () => {
      const input = testValues(dtype, SIZE, 12);
      const norm = normParam({ dtype, shape: [SIZE] });
      assert.equal(
        norm.params.map((p) => p.dtype),
        [real, dtype, real],
      );
      const comp = copyComputation(real).attach('input', norm, 'output', {
        input: 'input_prime',
        order: 'order',
      });
      for (const device of devicesFor(dtype)) {
        const { output } = await (await comp.compile(device))(undefined, toHost(dtype, input) as never, order);
        assertNegligible(output as HostArray, expected(input), real, device.name);
      }
    });
    test(`test_transformations.py::test_norm_const[${dtype}-${order}]`, async () => {
      const input = testValues(dtype, SIZE, 13);
      const norm = normConst({ dtype, shape: [SIZE] }, order);
      assert.equal(
        norm.params.map((p) => p.dtype),
        [real, dtype],
      );
      const comp = copyComputation(real).attach('input', norm, 'output', { input: 'input_prime' });
      for (const device of devicesFor(dtype)) {
        const { output } = await (await comp.compile(device))(undefined, toHost(dtype, input) as never);
        assertNegligible(output as HostArray, expected(input), real, device.name);
      }
    });
  }
}

// Reikna's are float32 and struct dtypes (test_structs' port); here also float64, int32 and complex64
for (const dtype of ['float32', 'float64', 'int32', 'complex64'] as const) {
  const value: Elem = dtype === 'int32' ? -42 : dtype === 'complex64' ? [0.3125, -1.5] : 0.3125;
  const expected = new Array<Elem>(SIZE).fill(value);
  test(`test_transformations.py::test_broadcast_const[${dtype}]`, async () => {
    const comp = copyComputation(dtype).attach('input', broadcastConst({ dtype }, constant(value)), 'output', {});
    for (const device of devicesFor(dtype)) {
      const { output } = await (await comp.compile(device))(undefined);
      assertNegligible(output as HostArray, expected, dtype, device.name, { rtol: 0, atol: 0 });
    }
  });
  test(`test_transformations.py::test_broadcast_param[${dtype}]`, async () => {
    const comp = copyComputation(dtype).attach('input', broadcastParam({ dtype }), 'output', { param: 'param' });
    for (const device of devicesFor(dtype)) {
      const { output } = await (await comp.compile(device))(undefined, scalarArgument(value) as never);
      assertNegligible(output as HostArray, expected, dtype, device.name, { rtol: 0, atol: 0 });
    }
  });
}

test.run();
