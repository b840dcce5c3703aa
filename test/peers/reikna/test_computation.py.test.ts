/**
 * Ports of Reikna's tests/test_core/test_computation.py: computations with temporaries,
 * persistent arrays, nested computations and 'io' parameters (the Dummy computations of
 * test/support/reikna-dummy.ts), run on every test device and compared with plain JS;
 * and the plans Reikna refuses, refused with a LoomError when compiled. The arrays are
 * complex64 with a float32 coefficient, as Reikna's; sizes are smaller than Reikna's (200 and
 * 2000): the CPU device runs every test too.
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
const T = 'complex64';
/** n complex64 values, their parts interleaved. */
const complexData = (n: number, seed: number) => randomFloat32(2 * n, seed);

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
  const a = complexData(N * N, 1);
  const b = complexData(N, 2);
  const [c, d] = mockDummy(a, b, 2, N);
  for (const device of testDevices()) {
    const compiled = await dummy(N, { dtype: T }).compile(device);
    const out = await compiled(undefined, undefined, a, b, 2);
    assertClose(out.C as Float32Array, c, `${device.name}: C`, 1e-6);
    assertClose(out.D as Float32Array, d, `${device.name}: D`, 1e-5);
  }
});

test('test_computation.py::test_nested_dummy', async () => {
  const a = complexData(N * N, 3);
  const b = complexData(N, 4);
  const [c, d] = mockDummyNested(a, b, 2, 3, N);
  for (const device of testDevices()) {
    const compiled = await dummyNested(N, 3, { dtype: T }).compile(device);
    const out = await compiled(undefined, undefined, a, b, 2);
    assertClose(out.C as Float32Array, c, `${device.name}: C`, 1e-5);
    assertClose(out.D as Float32Array, d, `${device.name}: D`, 1e-4);
    assert.equal(compiled.kernels.length, 4, 'two nested calls of two kernels each');
  }
});

test('test_computation.py::test_incorrect_parameter_name', async () => {
  await refused(() => dummy(N, { dtype: T, incorrectParameterName: true }), "parameter name '_C' starts with '_'");
});

test('test_computation.py::test_untyped_scalar', async () => {
  // a JavaScript number has no dtype of its own: bound to a kernel's value argument it takes that
  // argument's (the Dummy binds its scalar k to 10, as Reikna's numpy.float32(10)); what is not a
  // number is refused, as Reikna refuses its untyped int, before anything runs
  await refused(
    () => dummy(N, { dtype: T, untypedScalar: true }).compile(testDevices()[0]),
    /argument 'k' is bound to the string "10", which is not a plan value/,
  );
  const a = complexData(N * N, 9);
  const b = complexData(N, 10);
  const [, d] = mockDummy(a, b, 2, N);
  for (const device of testDevices()) {
    const out = await (await dummy(N, { dtype: T }).compile(device))(undefined, undefined, a, b, 2);
    assertClose(out.D as Float32Array, d, `${device.name}: the number 10 in the arrays' dtype`, 1e-5);
  }
});

test('test_computation.py::test_kernel_adhoc_array', async () => {
  await refused(
    () => dummy(N, { dtype: T, kernelAdhocArray: true }).compile(testDevices()[0]),
    "argument 'p' is bound to an object, which is not a plan value",
  );
});

test('test_computation.py::test_computation_adhoc_array', async () => {
  await refused(
    () => dummyNested(N, 3, { dtype: T, computationAdhocArray: true }).compile(testDevices()[0]),
    /argument 0 \('C'\) is bound to an object, which is not a plan value/,
  );
});

test('test_computation.py::test_computation_incorrect_role', async () => {
  await refused(
    () => dummyNested(N, 3, { dtype: T, computationIncorrectRole: true }).compile(testDevices()[0]),
    "argument 1 ('D') is written, but got 'B', an input of the computation",
  );
});

test('test_computation.py::test_computation_incorrect_type', async () => {
  await refused(
    () => dummyNested(N, 3, { dtype: T, computationIncorrectType: true }).compile(testDevices()[0]),
    "argument 2 ('A_prime') is complex64 (24, 24), but got parameter 'B' of complex64 (24)",
  );
});

test('test_computation.py::test_same_arguments', async () => {
  const c = complexData(N * N, 5);
  const d = complexData(N * N, 6);
  const [cRef, dRef] = mockDummyAdvanced(c, d, 3, 4, N);
  for (const device of testDevices()) {
    const compiled = await dummyAdvanced(N, T).compile(device);
    const cOut = c.slice();
    const dOut = d.slice();
    await compiled(cOut, dOut, 3, 4);
    assertClose(cOut, cRef, `${device.name}: C`, 1e-5);
    assertClose(dOut, dRef, `${device.name}: D`, 1e-5);
  }
});

test('test_computation.py::test_same_arg_as_i_and_o', async () => {
  const a = complexData(N * N, 7);
  const b = complexData(N, 8);
  const [c, d] = mockDummyNested(a, b, 2, 3, N, true);
  for (const device of testDevices()) {
    const compiled = await dummyNested(N, 3, { dtype: T, sameArgAsIAndO: true }).compile(device);
    const out = await compiled(undefined, undefined, a, b, 2);
    assertClose(out.C as Float32Array, c, `${device.name}: C`, 1e-5);
    assertClose(out.D as Float32Array, d, `${device.name}: D`, 1e-4);
  }
});

test.run();
