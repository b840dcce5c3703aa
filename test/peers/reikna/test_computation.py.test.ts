/**
 * Ports of Reikna's tests/test_core/test_computation.py: computations with temporaries,
 * persistent arrays, nested computations and 'io' parameters (the Dummy computations of
 * test/support/reikna-dummy.ts), run on every test device and compared with plain JS;
 * and the plans Reikna refuses, refused with a LoomError when compiled. Sizes are smaller
 * than Reikna's (200 and 2000): the CPU device runs every test too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../../support/devices.ts';
import {
  dummy,
  dummyAdvanced,
  dummyNested,
  mockDummy,
  mockDummyAdvanced,
  mockDummyNested,
} from '../../support/reikna-dummy.ts';

const N = 24;

async function refused(make: () => Promise<unknown> | unknown, message: string | RegExp): Promise<void> {
  try {
    await make();
    assert.unreachable(`expected a LoomError matching ${message}`);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    assert.match(e.message, message);
  }
}

test('test_computation.py::test_dummy', async () => {
  const a = randomFloat32(N * N, 1);
  const b = randomFloat32(N, 2);
  const [c, d] = mockDummy(a, b, 2, N);
  for (const device of testDevices()) {
    const compiled = await dummy(N).compile(device);
    const out = await compiled(undefined, undefined, a, b, 2);
    assertClose(out.C as Float32Array, c, `${device.name}: C`, 1e-6);
    assertClose(out.D as Float32Array, d, `${device.name}: D`, 1e-5);
  }
});

test('test_computation.py::test_nested_dummy', async () => {
  const a = randomFloat32(N * N, 3);
  const b = randomFloat32(N, 4);
  const [c, d] = mockDummyNested(a, b, 2, 3, N);
  for (const device of testDevices()) {
    const compiled = await dummyNested(N, 3).compile(device);
    const out = await compiled(undefined, undefined, a, b, 2);
    assertClose(out.C as Float32Array, c, `${device.name}: C`, 1e-5);
    assertClose(out.D as Float32Array, d, `${device.name}: D`, 1e-4);
    assert.equal(compiled.kernels.length, 4, 'two nested calls of two kernels each');
  }
});

test('test_computation.py::test_incorrect_parameter_name', async () => {
  await refused(() => dummy(N, { incorrectParameterName: true }), "parameter name '_C' starts with '_'");
});

test('test_computation.py::test_kernel_adhoc_array', async () => {
  await refused(
    () => dummy(N, { kernelAdhocArray: true }).compile(testDevices()[0]),
    "argument 'p' is bound to an object that is not a plan value",
  );
});

test('test_computation.py::test_computation_adhoc_array', async () => {
  await refused(
    () => dummyNested(N, 3, { computationAdhocArray: true }).compile(testDevices()[0]),
    /argument 0 \('C'\) is bound to an object that is not a plan value/,
  );
});

test('test_computation.py::test_computation_incorrect_role', async () => {
  await refused(
    () => dummyNested(N, 3, { computationIncorrectRole: true }).compile(testDevices()[0]),
    "argument 1 ('D') is written, but got 'B', an input of the computation",
  );
});

test('test_computation.py::test_computation_incorrect_type', async () => {
  await refused(
    () => dummyNested(N, 3, { computationIncorrectType: true }).compile(testDevices()[0]),
    "argument 2 ('A_prime') is float32 (24, 24), but got parameter 'B' of float32 (24)",
  );
});

test('test_computation.py::test_same_arguments', async () => {
  const c = randomFloat32(N * N, 5);
  const d = randomFloat32(N * N, 6);
  const [cRef, dRef] = mockDummyAdvanced(c, d, 3, 4, N);
  for (const device of testDevices()) {
    const compiled = await dummyAdvanced(N).compile(device);
    const cOut = c.slice();
    const dOut = d.slice();
    await compiled(cOut, dOut, 3, 4);
    assertClose(cOut, cRef, `${device.name}: C`, 1e-5);
    assertClose(dOut, dRef, `${device.name}: D`, 1e-5);
  }
});

test('test_computation.py::test_same_arg_as_i_and_o', async () => {
  const a = randomFloat32(N * N, 7);
  const b = randomFloat32(N, 8);
  const [c, d] = mockDummyNested(a, b, 2, 3, N, true);
  for (const device of testDevices()) {
    const compiled = await dummyNested(N, 3, { sameArgAsIAndO: true }).compile(device);
    const out = await compiled(undefined, undefined, a, b, 2);
    assertClose(out.C as Float32Array, c, `${device.name}: C`, 1e-5);
    assertClose(out.D as Float32Array, d, `${device.name}: D`, 1e-4);
  }
});

test.run();
