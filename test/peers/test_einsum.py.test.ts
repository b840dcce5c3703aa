/**
 * Ports of loopy's test/test_einsum.py: kernels from `makeEinsum`, run on every test device
 * and compared with numpy's einsum written in plain JavaScript (test/support/einsum.ts).
 * float64 where the device has it (compared as loopy does, to 1e-15), else float32.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Device, LoomError, makeEinsum, run } from '@loom/core';
import { supportsDType, testDevices } from '../support/devices.ts';
import { einsum, randomValues, type Operand } from '../support/einsum.ts';

test('test_make_einsum_error_handling', () => {
  // one argument name for two operands
  assert.throws(
    () => makeEinsum('ij,j->j', ['a']),
    (e: unknown) => {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, /2 operand subscripts but 1 argument name/);
      // the caret stands under the operand that has no name
      assert.match((e as Error).message, /\n {2}ij,j->j\n {5}\^$/);
      return true;
    },
  );
  // an output index twice
  assert.throws(
    () => makeEinsum('ij,j->jj', ['a', 'b']),
    (e: unknown) => {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, /output subscript index 'j' appears more than once\n {2}ij,j->jj\n {9}\^$/);
      return true;
    },
  );
});

/** `{ data, shape }` host arrays of the values, in the device's float dtype. */
function hostArrays(device: Device, operands: Record<string, Operand>) {
  const Host = supportsDType(device, 'float64') ? Float64Array : Float32Array;
  return Object.fromEntries(
    Object.entries(operands).map(([name, o]) => [
      name,
      { data: Host.from(o.data), shape: o.shape, ...(o.strides ? { strides: o.strides } : {}) },
    ]),
  );
}

/** The operands as the device holds them (float32 where it has no float64), for the reference. */
function asStored(device: Device, o: Operand): Operand {
  return supportsDType(device, 'float64') ? o : { ...o, data: Float32Array.from(o.data) };
}

/** Runs `makeEinsum(spec, names)` on the operands and checks it against the reference as loopy does. */
async function checkEinsum(device: Device, spec: string, operands: Record<string, Operand>): Promise<void> {
  const names = Object.keys(operands);
  const knl = makeEinsum(spec, names);
  const { out } = await run(knl, device, hostArrays(device, operands));
  const ans = einsum(spec, ...names.map((n) => asStored(device, operands[n])));
  const got = Array.from(out as ArrayLike<number>);
  assert.is(got.length, ans.data.length, `${spec}: the output's length`);
  const norm = Math.hypot(...got.map((x, k) => x - ans.data[k]));
  // loopy's bound (float64); float32 values of about 1, summed over a few terms, agree to 1e-6
  const bound = supportsDType(device, 'float64') ? 1e-15 : 1e-5;
  assert.ok(norm <= bound, `${device.name} ${spec}: |out - ans| = ${norm}`);
}

const square = (n: number, seed: number): Operand => ({ data: randomValues(n * n, seed), shape: [n, n] });

for (const device of testDevices()) {
  test(`${device.name}: test_einsum_array_manipulation`, async () => {
    for (const spec of ['ij->ij', 'ij->ji', 'ii->i']) await checkEinsum(device, spec, { a: square(4, 42) });
  });

  test(`${device.name}: test_einsum_array_matvec`, async () => {
    for (const spec of ['ij,j->j'])
      await checkEinsum(device, spec, { a: square(4, 42), b: { data: randomValues(4, 43), shape: [4] } });
  });

  test(`${device.name}: test_einsum_array_ops_same_dims`, async () => {
    for (const spec of ['ij,ij->ij', 'ij,ji->ij', 'ij,kj->ik'])
      await checkEinsum(device, spec, { a: square(4, 42), b: square(4, 43) });
  });

  test(`${device.name}: test_einsum_array_ops_diff_dims`, async () => {
    const [n, m, o] = [4, 3, 5];
    await checkEinsum(device, 'ik,kj->ij', {
      a: { data: randomValues(n * m, 42), shape: [n, m] },
      b: { data: randomValues(m * o, 43), shape: [m, o] },
    });
  });

  test(`${device.name}: test_einsum_array_ops_triple_prod`, async () => {
    await checkEinsum(device, 'im,mj,km->ijk', { a: square(3, 42), b: square(3, 43), c: square(3, 44) });
  });

  test(`${device.name}: test_einsum_with_variable_strides`, async () => {
    const spec = 'ijk,jl->il';
    const knl = makeEinsum(spec, ['a', 'b'], { defaultOrder: 'auto', defaultOffset: 'auto' });
    // a is a (3, 5, 4) array seen transposed as (3, 4, 5): its strides are the buffer's, permuted
    const untransposed = randomValues(3 * 5 * 4, 42).map((x) => 2 * x - 1);
    const a: Operand = { data: untransposed, shape: [3, 4, 5], strides: [20, 1, 4] };
    const b: Operand = { data: randomValues(4 * 5, 43).map((x) => 2 * x - 1), shape: [4, 5] };
    const { out } = await run(knl, device, hostArrays(device, { a, b }));
    const ref = einsum(spec, asStored(device, a), asStored(device, b));
    const got = Array.from(out as ArrayLike<number>);
    assert.is(got.length, ref.data.length);
    // numpy's allclose (rtol 1e-5, atol 1e-8); float32 sums of 20 terms get a looser atol
    const atol = supportsDType(device, 'float64') ? 1e-8 : 1e-5;
    got.forEach((x, k) => {
      assert.ok(
        Math.abs(x - ref.data[k]) <= atol + 1e-5 * Math.abs(ref.data[k]),
        `element ${k}: ${x} vs ${ref.data[k]}`,
      );
    });
  });
}

test.run();
