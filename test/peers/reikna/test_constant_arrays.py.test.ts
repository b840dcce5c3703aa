/**
 * Ports of Reikna's tests/test_core/test_constant_arrays.py: a computation whose kernel reads
 * two constant arrays of the plan (`plan.constantArray`: int32 and float32, uploaded once when
 * it is compiled), on its own and nested in another computation, on every test device against
 * plain JS; and what writes a constant array, a kernel or a nested computation, refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeKernel, type HostArray } from '@loom/core';
import { computation, type Computation } from '@loom/computation';
import { testDevices } from '../../support/devices.ts';
import { refused } from '../../support/refusals.ts';
import { assertNegligible, testValues, toHost } from '../../support/reikna-values.ts';

const SIZE = 200;

/** output[i] = (arr2[0, i] + arr2[1, i]) * arr1[i], arr1 and arr2 constant arrays of the plan (Reikna's Dummy). */
function dummy(arr1: Int32Array, arr2: Float32Array, options: { writeConstant?: boolean } = {}) {
  const knl = makeKernel(
    '{ [i]: 0 <= i < n }',
    options.writeConstant
      ? ['output[i] = (arr2[0, i] + arr2[1, i]) * arr1[i] {id=out}', 'arr1[i] = 0 {dep=out}']
      : 'output[i] = (arr2[0, i] + arr2[1, i]) * arr1[i]',
    undefined,
    { name: 'dummy' },
  );
  return computation({
    name: 'Dummy',
    params: [{ name: 'output', dtype: 'float32', shape: [SIZE], role: 'o' }] as const,
    buildPlan(plan, _device, output) {
      const a1 = plan.constantArray(arr1);
      const a2 = plan.constantArray(arr2, [2, SIZE]);
      plan.kernelCall(knl, { output, arr1: a1, arr2: a2 });
    },
  });
}

/** Calls a Dummy (DummyOuter). */
function dummyOuter(arr1: Int32Array, arr2: Float32Array) {
  const inner = dummy(arr1, arr2);
  return computation({
    name: 'DummyOuter',
    params: [{ name: 'output', dtype: 'float32', shape: [SIZE], role: 'o' }] as const,
    buildPlan(plan, _device, output) {
      plan.computationCall(inner, output);
    },
  });
}

const arr1 = toHost('int32', testValues('int32', SIZE, 1)) as Int32Array;
const arr2 = toHost('float32', testValues('float32', 2 * SIZE, 2)) as Float32Array;
const reference = Array.from(arr1, (x, i) => Math.fround(Math.fround(arr2[i] + arr2[SIZE + i]) * x));

async function check(comp: Computation): Promise<void> {
  for (const device of testDevices()) {
    const compiled = await comp.compile(device);
    // twice: the constant arrays stay as uploaded
    for (const call of [1, 2]) {
      const { output } = await compiled(undefined);
      assertNegligible(output as HostArray, reference, 'float32', `${device.name}, call ${call}`);
    }
  }
}

test('test_constant_arrays.py::test_constant_arrays_computation', async () => {
  await check(dummy(arr1, arr2) as unknown as Computation);
});

test('test_constant_arrays.py::test_constant_arrays_computation_nested', async () => {
  const outer = dummyOuter(arr1, arr2);
  await check(outer as unknown as Computation);
  // the nested computation's constant arrays are the outer one's: one kernel, its arrays bound
  assert.is((await outer.compile(testDevices()[0])).kernels.length, 1);
});

test('a kernel or a nested computation that writes a constant array is refused when compiled', async () => {
  await refused(
    () => dummy(arr1, arr2, { writeConstant: true }).compile(testDevices()[0]),
    "kernel 'dummy': argument 'arr1': the kernel writes it, but it is bound to a constant array (int32, (200)), which kernels only read",
  );
  const inner = dummy(arr1, arr2);
  const writer = computation({
    name: 'Writer',
    params: [{ name: 'output', dtype: 'float32', shape: [SIZE], role: 'o' }] as const,
    buildPlan(plan) {
      plan.computationCall(inner, plan.constantArray(new Float32Array(SIZE)));
    },
  });
  await refused(
    () => writer.compile(testDevices()[0]),
    "argument 0 ('output') is written, but got a constant array (float32, (200)), which kernels only read",
  );
});

test.run();
