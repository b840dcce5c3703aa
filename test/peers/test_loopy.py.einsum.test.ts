/**
 * Port of loopy's test_loopy.py::test_einsum_parsing (loopy issue 753): a spec with spaces
 * around its subscripts and arrow makes the same kernel as one without, and it computes A @ B
 * in float32 on every test device (loopy's auto_test_vs_ref against itself; here against
 * plain JavaScript).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, makeEinsum, run, stringifyKernel } from '@loom/core';
import { testDevices } from '../support/devices.ts';
import { einsum, randomValues } from '../support/einsum.ts';

for (const device of testDevices()) {
  test(`${device.name}: test_einsum_parsing`, async () => {
    let knl = makeEinsum('ik, kj -> ij', ['A', 'B']);
    assert.is(knl.name, 'einsum3to2_kernel', "loopy's name: einsum, the number of indices, to, the output's");
    assert.is(stringifyKernel(knl), stringifyKernel(makeEinsum('ik,kj->ij', ['A', 'B'])));
    knl = addDtypes(knl, { A: 'float32', B: 'float32' });
    const n = 10;
    const A = Float32Array.from(randomValues(n * n, 1));
    const B = Float32Array.from(randomValues(n * n, 2));
    const { out } = await run(knl, device, {
      A: { data: A, shape: [n, n] },
      B: { data: B, shape: [n, n] },
      Ni: n,
      Nj: n,
      Nk: n,
    });
    assert.instance(out, Float32Array, 'float32 operands give a float32 result');
    const ref = einsum('ik,kj->ij', { data: A, shape: [n, n] }, { data: B, shape: [n, n] });
    Array.from(out as Float32Array).forEach((x, k) => {
      assert.ok(
        Math.abs(x - ref.data[k]) <= 1e-5 * Math.abs(ref.data[k]) + 1e-6,
        `element ${k}: ${x} vs ${ref.data[k]}`,
      );
    });
  });
}

test.run();
