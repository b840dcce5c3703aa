/**
 * Ports of Reikna's tests/test_core/test_transformation.py: transformations attached to
 * the parameters of the Dummy computations (test/support/reikna-dummy.ts), the
 * signatures they give, the results on every test device against plain JS, and the
 * connections Reikna refuses. The arrays are complex64 and the coefficients float32, as
 * Reikna's (test_transformation_macros is float32, as Reikna's). Loom's computations are
 * immutable (attach returns a new one), so a refused attach leaves nothing behind; parameters
 * are named by strings, so Reikna's tests of parameter objects from other computations become
 * one of a plan.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, makeKernel } from '@loom/core';
import { computation, transformation, type Computation, type ComputationParam } from '@loom/computation';
import { assertClose, randomFloat32, testDevices } from '../../support/devices.ts';
import {
  dummy,
  dummyAdvanced,
  dummyNested,
  mockDummy,
  mockDummyAdvanced,
  mockDummyNested,
  trScale,
} from '../../support/reikna-dummy.ts';

const N = 24;
/** Reikna's arrays are complex64 (their coefficients float32). */
const T = 'complex64';
/** n complex64 values, their parts interleaved. */
const complexData = (n: number, seed: number) => randomFloat32(2 * n, seed);

/** Output = Input. */
const trIdentity = (shape?: readonly number[]) =>
  transformation({
    name: 'tr_identity',
    params: [
      { name: 'o1', dtype: T, role: 'o', shape },
      { name: 'i1', dtype: T, role: 'i', shape },
    ],
    body: 'storeSame(o1, loadSame(i1))',
  });
/** Output = Input1 * Parameter1 + Input2. */
const tr2To1 = transformation({
  name: 'tr_2_to_1',
  params: [
    { name: 'o1', dtype: T, role: 'o' },
    { name: 'i1', dtype: T, role: 'i' },
    { name: 'i2', dtype: T, role: 'i' },
    { name: 's1', dtype: 'float32', role: 's' },
  ],
  body: `
    t = s1 * loadSame(i1)
    storeSame(o1, t + loadSame(i2))
  `,
});
/** Output1 = Input / 2, Output2 = Input / 2. */
const tr1To2 = transformation({
  name: 'tr_1_to_2',
  params: [
    { name: 'o1', dtype: T, role: 'o' },
    { name: 'o2', dtype: T, role: 'o' },
    { name: 'i1', dtype: T, role: 'i' },
  ],
  body: `
    t = loadSame(i1) * 0.5
    storeSame(o1, t)
    storeSame(o2, t)
  `,
});

const names = (c: { signature: readonly ComputationParam[] }) => c.signature.map((p) => `${p.name}:${p.role}`);

async function refused(make: () => unknown, message: string | RegExp): Promise<void> {
  try {
    await make();
    assert.unreachable(`expected a LoomError matching ${message}`);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    assert.match(e.message, message);
  }
}

/** The transformations of test_signature_correctness and test_same_shape, on any computation with C, D, A, B. */
// biome-ignore lint/suspicious/noExplicitAny: any computation with parameters A, B, C, D
function connectAll(comp: Computation<any, any>) {
  const identity = trIdentity();
  return comp
    .attach('A', identity, 'o1', { i1: 'A_prime' })
    .attach('B', tr2To1, 'o1', { i1: 'A_prime', i2: 'B_prime', s1: 'B_param' })
    .attach('B_prime', identity, 'o1', { i1: 'B_new_prime' })
    .attach('C', tr1To2, 'i1', { o1: 'C_half1', o2: 'C_half2' })
    .attach('C_half1', identity, 'i1', { o1: 'C_new_half1' })
    .attach('D', trScale(T), 'i1', { o1: 'D_prime', s1: 'D_param' });
}

test('test_transformation.py::test_io_parameter_in_transformation', async () => {
  await refused(
    () =>
      transformation({
        params: [{ name: 'o1', dtype: 'float32', shape: [100], role: 'io' as 'o' }],
        body: 'storeSame(o1, loadSame(o1))',
      }),
    "parameter 'o1' has role 'io'",
  );
});

test('test_transformation.py::test_signature_correctness', () => {
  const d = dummy(N, { sameAB: true, dtype: T });
  assert.equal(names(d), ['C:o', 'D:o', 'A:i', 'B:i', 'coeff:s']);
  assert.equal(names(connectAll(d)), [
    'C_new_half1:o',
    'C_half2:o',
    'D_prime:o',
    'D_param:s',
    'A_prime:i',
    'B_new_prime:i',
    'B_param:s',
    'coeff:s',
  ]);
});

test('test_transformation.py::test_same_shape', async () => {
  const aPrime = complexData(N * N, 1);
  const bNewPrime = complexData(N * N, 2);
  const a = aPrime;
  const b = Float32Array.from(aPrime, (x, k) => Math.fround(Math.fround(3 * x) + bNewPrime[k]));
  const [c, d] = mockDummy(a, b, 2, N);
  for (const device of testDevices()) {
    const compiled = await connectAll(dummy(N, { sameAB: true, dtype: T })).compile(device);
    const out = await compiled(undefined, undefined, undefined, 4, aPrime, bNewPrime, 3, 2);
    assertClose(
      out.C_new_half1 as Float32Array,
      c.map((x) => x / 2),
      `${device.name}: C_new_half1`,
      1e-5,
    );
    assertClose(
      out.C_half2 as Float32Array,
      c.map((x) => x / 2),
      `${device.name}: C_half2`,
      1e-5,
    );
    assertClose(
      out.D_prime as Float32Array,
      d.map((x) => x * 4),
      `${device.name}: D_prime`,
      1e-5,
      1e-5,
    );
    assert.is(compiled.kernels.length, 2, 'every transformation fused into the two kernels');
  }
});

test('test_transformation.py::test_connection_to_base', async () => {
  const identity = trIdentity();
  // A's transformation reads B (effectively making A the same as B); C's scale reads coeff
  const comp = dummy(N, { sameAB: true, dtype: T })
    .attach('A', identity, 'o1', { i1: 'B' })
    .attach('C', trScale(T), 'i1', { o1: 'C_prime', s1: 'coeff' });
  assert.equal(names(comp), ['C_prime:o', 'D:o', 'B:i', 'coeff:s']);
  const b = complexData(N * N, 3);
  const [c, d] = mockDummy(b, b, 2, N);
  for (const device of testDevices()) {
    const out = await (await comp.compile(device))(undefined, undefined, b, 2);
    assertClose(
      out.C_prime as Float32Array,
      c.map((x) => x * 2),
      `${device.name}: C_prime`,
      1e-5,
    );
    assertClose(out.D as Float32Array, d, `${device.name}: D`, 1e-5);
  }
});

test('test_transformation.py::test_nested_same_shape', async () => {
  const aPrime = complexData(N * N, 4);
  const bNewPrime = complexData(N * N, 5);
  const b = Float32Array.from(aPrime, (x, k) => Math.fround(Math.fround(3 * x) + bNewPrime[k]));
  const [c, d] = mockDummyNested(aPrime, b, 2, 7, N);
  for (const device of testDevices()) {
    const compiled = await connectAll(dummyNested(N, 7, { sameAB: true, dtype: T })).compile(device);
    const out = await compiled(undefined, undefined, undefined, 4, aPrime, bNewPrime, 3, 2);
    assertClose(
      out.C_new_half1 as Float32Array,
      c.map((x) => x / 2),
      `${device.name}: C_new_half1`,
      1e-4,
      1e-5,
    );
    assertClose(
      out.C_half2 as Float32Array,
      c.map((x) => x / 2),
      `${device.name}: C_half2`,
      1e-4,
      1e-5,
    );
    assertClose(
      out.D_prime as Float32Array,
      d.map((x) => x * 4),
      `${device.name}: D_prime`,
      1e-4,
      1e-4,
    );
  }
});

test('test_transformation.py::test_strings_as_parameters', () => {
  const comp = dummy(N, { sameAB: true, dtype: T }).attach('A', trIdentity(), 'o1', { i1: 'A_prime' });
  assert.equal(names(comp), ['C:o', 'D:o', 'A_prime:i', 'B:i', 'coeff:s']);
});

test('test_transformation.py::test_alien_parameters', async () => {
  const other = dummy(N, { dtype: T });
  let alien: unknown;
  const first = computation({
    name: 'first',
    params: [{ name: 'x', dtype: 'float32', shape: [N], role: 'o' }],
    buildPlan(_plan, _device, x) {
      alien = x;
    },
  });
  await first.compile(testDevices()[0]);
  const second = computation({
    name: 'second',
    params: [{ name: 'y', dtype: 'float32', shape: [N], role: 'o' }],
    buildPlan(plan) {
      plan.kernelCall(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 1'), { out: alien as never });
    },
  });
  await refused(
    () => second.compile(testDevices()[0]),
    "'x' is a parameter of another computation; the connection target must belong to this computation",
  );
  await refused(
    () => other.attach('A', trIdentity(), 'o2' as 'o1', { i1: 'A_prime' }),
    "the transformation has no parameter 'o2'",
  );
});

test('test_transformation.py::test_connector_repetition', async () => {
  await refused(
    () => dummy(N, { sameAB: true, dtype: T }).attach('A', trIdentity(), 'o1', { o1: 'A', i1: 'A_prime' } as never),
    "parameter 'o1' cannot be supplied both as the main connector and one of the child connections",
  );
});

test('test_transformation.py::test_wrong_connector', async () => {
  const comp = dummy(N, { sameAB: true, dtype: T }).attach('A', trIdentity(), 'o1', { i1: 'A_prime' });
  await refused(
    () => comp.attach('AA' as 'B', trIdentity(), 'o1', { i1: 'A_pp' }),
    "parameter 'AA' is not a part of the signature",
  );
  await refused(() => comp.attach('B', trIdentity(), 'o1', { i1: 'A' }), "parameter 'A' is hidden by transformations");
});

test('test_transformation.py::test_type_mismatch', async () => {
  await refused(
    () => dummy(N, { sameAB: true, dtype: T }).attach('A', trIdentity([N, N + 1]), 'o1', { i1: 'A_prime' }),
    /incompatible types of the transformation parameter 'o1' \(complex64 \(24, 25\)\) and the node 'A' \(complex64 \(24, 24\)\)/,
  );
});

test('test_transformation.py::test_wrong_data_path', async () => {
  const identity = trIdentity();
  const comp = dummyAdvanced(N, T)
    .attach('C', identity, 'o1', { i1: 'C_in' })
    .attach('D', identity, 'i1', { o1: 'D_out' });
  assert.equal(names(comp), ['C:o', 'C_in:i', 'D_out:o', 'D:i', 'coeff1:s', 'coeff2:s']);
  // the input path of C is taken by the transformation; so is D's output path
  await refused(() => comp.attach('C' as 'C_in', identity, 'o1', { i1: 'C_in_prime' }), "'C' is not an input node");
  await refused(() => comp.attach('D' as 'D_out', identity, 'i1', { o1: 'D_out_prime' }), "'D' is not an output node");
  await refused(
    () => comp.attach('C', identity, 'i1', { o1: 'D_out' }),
    "cannot connect transformation parameter 'o1' to an existing output node 'D_out'",
  );
  assert.equal(names(comp.attach('C', identity, 'i1', { o1: 'C_out' })), [
    'C_out:o',
    'C_in:i',
    'D_out:o',
    'D:i',
    'coeff1:s',
    'coeff2:s',
  ]);
});

test('test_transformation.py::test_wrong_transformation_parameters', async () => {
  const comp = dummy(N, { sameAB: true, dtype: T });
  await refused(
    () => comp.attach('A', trIdentity(), 'o1', { input: 'A_prime' } as never),
    'supplied transformation names [input, o1] do not fully coincide with the existing ones: [i1, o1]',
  );
  await refused(
    () => comp.attach('A', trIdentity(), 'o1', { i1: 'A_prime', i2: 'A2' } as never),
    'supplied transformation names [i1, i2, o1] do not fully coincide with the existing ones: [i1, o1]',
  );
});

test('test_transformation.py::test_io_merge', async () => {
  // Reikna joins the input and output paths silently; Loom asks for it by name (computation-attach.test.ts: the refusal)
  const scale = trScale(T);
  const comp = dummyAdvanced(N, T)
    .attach('C', scale, 'o1', { i1: 'C_prime', s1: 'scale_in' })
    .attach('C', scale, 'i1', { o1: 'C_prime', s1: 'scale_out' }, { inOut: ['C_prime'] });
  assert.equal(names(comp), ['C_prime:io', 'scale_out:s', 'scale_in:s', 'D:io', 'coeff1:s', 'coeff2:s']);
  const c = complexData(N * N, 6);
  const d = complexData(N * N, 7);
  const [cRef, dRef] = mockDummyAdvanced(
    Float32Array.from(c, (x) => Math.fround(x * 0.5)),
    d,
    3,
    4,
    N,
  );
  for (const device of testDevices()) {
    const cOut = c.slice();
    const dOut = d.slice();
    await (await comp.compile(device))(cOut, 0.3, 0.5, dOut, 3, 4);
    assertClose(
      cOut,
      cRef.map((x) => x * 0.3),
      `${device.name}: C`,
      1e-5,
      1e-6,
    );
    assertClose(dOut, dRef, `${device.name}: D`, 1e-5, 1e-6);
  }
});

test('test_transformation.py::test_transformation_macros', async () => {
  // index expressions handed to a transformation keep their meaning (Reikna's #27: macro arguments without parentheses)
  const double = computation({
    name: 'ExpressionIndexing',
    params: [
      { name: 'output', dtype: 'float32', shape: [N, 2], role: 'o' },
      { name: 'input', dtype: 'float32', shape: [N, 2], role: 'i' },
    ],
    buildPlan(plan, _device, output, input) {
      plan.kernelCall(makeKernel('{ [i, j]: 0<=i<n and 0<=j<2 }', 'out[i + 1 - 1, j] = inp[i + 1 - 1, j] * 2'), {
        out: output,
        inp: input,
      });
    },
  });
  const flip = transformation({
    params: [
      { name: 'o', dtype: 'float32', role: 'o' },
      { name: 'i', dtype: 'float32', role: 'i' },
    ],
    body: 'storeSame(o, loadIdx(i, idx0, 1 - idx1) - loadIdx(i, idx0 * 1, idx1 - 0))',
  });
  const a = randomFloat32(N * 2, 8);
  const expected = Array.from(a, (_, k) => 2 * (a[k ^ 1] - a[k]));
  for (const device of testDevices()) {
    const out = await (await double.attach('input', flip, 'o', { i: 'raw' }).compile(device))(undefined, a);
    assertClose(out.output as Float32Array, expected, device.name, 1e-6);
  }
});

test.run();
