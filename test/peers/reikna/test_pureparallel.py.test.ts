/**
 * Ports of Reikna's tests/test_algorithms/test_pureparallel.py: pure parallel computations
 * nested, guided by an input, an output or a shape, made from a transformation, and one
 * temporary passed as input and output of the same call (complex64, as Reikna's, and one array
 * passed for both parameters); on every test device against plain JS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray } from '@loom/core';
import { computation, copy, mulParam, pureParallel, pureParallelFromTransformation } from '@loom/computation';
import { assertClose, randomFloat32, testDevices } from '../../support/devices.ts';

const SIZE = 1000;

test('test_pureparallel.py::test_nested', async () => {
  const p = pureParallel({
    params: [
      { name: 'output', dtype: 'float32', shape: [SIZE], role: 'o' },
      { name: 'i1', dtype: 'float32', shape: [SIZE], role: 'i' },
      { name: 'i2', dtype: 'float32', shape: [SIZE], role: 'i' },
    ],
    body: (idx) => `output[${idx[0]}] = i1[${idx[0]}] + i2[${idx[0]}]`,
  });
  const nested = computation({
    name: 'NestedPureParallel',
    params: [
      { name: 'output', dtype: 'float32', shape: [SIZE], role: 'o' },
      { name: 'input', dtype: 'float32', shape: [SIZE], role: 'i' },
    ],
    buildPlan(plan, _device, output, input) {
      plan.computationCall(p, output, input, input);
    },
  });
  const a = randomFloat32(SIZE, 1);
  for (const device of testDevices()) {
    const { output } = await (await nested.compile(device))(undefined, a);
    assertClose(
      output as Float32Array,
      Array.from(a, (x) => 2 * x),
      device.name,
    );
  }
});

test('test_pureparallel.py::test_guiding_input', async () => {
  const p = pureParallel({
    params: [
      { name: 'output', dtype: 'float32', shape: [2, SIZE], role: 'o' },
      { name: 'input', dtype: 'float32', shape: [SIZE], role: 'i' },
    ],
    body: ['<float32> t = input[idx0]', 'output[0, idx0] = t', 'output[1, idx0] = t * 2'].join('\n'),
    guidingArray: 'input',
  });
  const a = randomFloat32(SIZE, 2);
  for (const device of testDevices()) {
    const { output } = await (await p.compile(device))(undefined, a);
    assertClose(output as Float32Array, [...a, ...Array.from(a, (x) => x * 2)], device.name);
  }
});

test('test_pureparallel.py::test_guiding_output', async () => {
  const p = pureParallel({
    params: [
      { name: 'output', dtype: 'float32', shape: [SIZE], role: 'o' },
      { name: 'input', dtype: 'float32', shape: [2, SIZE], role: 'i' },
    ],
    body: 'output[idx0] = input[0, idx0] + input[1, idx0]',
    guidingArray: 'output',
  });
  const a = randomFloat32(2 * SIZE, 3);
  for (const device of testDevices()) {
    const { output } = await (await p.compile(device))(undefined, a);
    assertClose(
      output as Float32Array,
      Array.from({ length: SIZE }, (_, i) => a[i] + a[SIZE + i]),
      device.name,
    );
  }
});

test('test_pureparallel.py::test_guiding_shape', async () => {
  const p = pureParallel({
    params: [
      { name: 'output', dtype: 'float32', shape: [2, SIZE], role: 'o' },
      { name: 'input', dtype: 'float32', shape: [2, SIZE], role: 'i' },
    ],
    body: [
      'output[0, idx0] = input[0, idx0] + input[1, idx0]',
      'output[1, idx0] = input[0, idx0] - input[1, idx0]',
    ].join('\n'),
    guidingArray: [SIZE],
  });
  const a = randomFloat32(2 * SIZE, 4);
  const expected = [
    ...Array.from({ length: SIZE }, (_, i) => a[i] + a[SIZE + i]),
    ...Array.from({ length: SIZE }, (_, i) => a[i] - a[SIZE + i]),
  ];
  for (const device of testDevices()) {
    const { output } = await (await p.compile(device))(undefined, a);
    assertClose(output as Float32Array, expected, device.name);
  }
});

for (const guiding of ['input', 'output', 'none'] as const) {
  test(`test_pureparallel.py::test_from_trf[${guiding}]`, async () => {
    const trf = mulParam({ dtype: 'float32', shape: [SIZE] });
    const p = pureParallelFromTransformation(trf, guiding === 'none' ? undefined : guiding);
    // the parameters are the transformation's, in its order
    assert.equal(
      p.signature.map((q) => `${q.name}:${q.role}`),
      ['output:o', 'input:i', 'param:s'],
    );
    const a = randomFloat32(SIZE, 5);
    for (const device of testDevices()) {
      const { output } = await (await p.compile(device))(undefined, a, 3);
      assertClose(
        output as Float32Array,
        Array.from(a, (x) => Math.fround(x * 3)),
        device.name,
      );
    }
  });
}

test('test_pureparallel.py::test_same_argument', async () => {
  // Reikna's complex64 array of shape (1000, 8, 1), passed (as one array) for both parameters
  const shape = [1000, 8, 1];
  const trf = copy({ dtype: 'complex64', shape });
  const copyComp = pureParallelFromTransformation(trf, 'input');
  const helper = computation({
    name: 'SameArgumentHelper',
    params: [
      { name: 'outer_output', dtype: 'complex64', shape, role: 'o' },
      { name: 'outer_input', dtype: 'complex64', shape, role: 'i' },
    ],
    buildPlan(plan, _device, output, input) {
      const temp = plan.tempArrayLike(input);
      plan.computationCall(copyComp, temp, input);
      plan.computationCall(copyComp, temp, temp);
      plan.computationCall(copyComp, output, temp);
    },
  });
  const a = randomFloat32(2 * 8000, 6);
  for (const device of testDevices()) {
    const compiled = await helper.compile(device);
    const { outer_output } = await compiled(undefined, a);
    assert.equal([...(outer_output as Float32Array)], [...a], `${device.name}: host arrays`);
    const array = await DeviceArray.from(device, a, 'complex64', shape);
    await compiled(array, array);
    assert.equal([...(await array.toHost())], [...a], `${device.name}: one DeviceArray for both`);
    array.release();
  }
});

test.run();
