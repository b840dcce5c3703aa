/**
 * Ports of loopy's test/test_loopy.py tests of kernel splitting at global barriers (also
 * inside sequential loops, which the host then runs), of global temporaries and of
 * saveAndReloadTemporaries: each run on every test device against plain JavaScript.
 * Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, generateCode, makeKernel, run, setTemporaryAddressSpace, splitIname } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from '../support/devices.ts';

// {{{ kernel splitting

function splitting(withLoop: boolean) {
  const knl = withLoop
    ? makeKernel(
        '{ [i,k]: 0<=i<n and 0<=k<3 }',
        `for i, k
           ... gbarrier
           c[k,i] = a[k, i + 1]
           ... gbarrier
           out[k,i] = c[k,i]
         end`,
        undefined,
        { seqDependencies: true },
      )
    : makeKernel(
        '{ [i]: 0<=i<n }',
        `for i
           c[i] = a[i + 1]
           ... gbarrier
           out[i] = c[i]
         end`,
        undefined,
        { seqDependencies: true },
      );
  const typed = addDtypes(knl, { a: 'float32', c: 'float32', out: 'float32', n: 'int32' });
  return { ref: typed, knl: splitIname(typed, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' }) };
}

test('test_kernel_splitting: two device kernels', () => {
  assert.is(generateCode(splitting(false).knl, openclTarget()).kernels.length, 2);
});

test('test_kernel_splitting_with_loop: two device kernels, launched by a host loop over k', () => {
  const code = generateCode(splitting(true).knl, openclTarget());
  assert.is(code.kernels.length, 2);
  assert.equal(
    code.host.program.map((h) => h.kind),
    ['loop'],
  );
});

for (const device of testDevices()) {
  for (const withLoop of [false, true]) {
    const name = withLoop ? 'test_kernel_splitting_with_loop' : 'test_kernel_splitting';
    test(`${device.name}: ${name}`, async () => {
      // loopy's auto_test_vs_ref with n = 5: the split kernel against the unsplit one and plain JavaScript
      const n = 5;
      const rows = withLoop ? 3 : 1;
      const a = Float32Array.from({ length: rows * (n + 1) }, (_, k) => k * 0.25 - 1);
      const expected = Array.from({ length: rows * n }, (_, k) => a[Math.floor(k / n) * (n + 1) + (k % n) + 1]);
      const { knl, ref } = splitting(withLoop);
      for (const kernel of [knl, ref]) {
        const { out } = await run(kernel, device, { a, c: new Float32Array(rows * n), n });
        assert.equal(Array.from(out as Float32Array), expected);
      }
    });
  }
}

// }}}

// {{{ global temporaries

function globalTemporary() {
  // loopy's c has shape (n): a global temporary of parametric size, allocated by the host per call
  const knl = makeKernel(
    '{ [i]: 0<=i<n}',
    `for i
       <> c[i] = a[i + 1]
       ... gbarrier
       out[i] = c[i]
     end`,
    undefined,
    { seqDependencies: true },
  );
  const ref = setTemporaryAddressSpace(addDtypes(knl, { a: 'float32', c: 'float32', out: 'float32', n: 'int32' }), 'c', 'global');
  return { ref, knl: splitIname(ref, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' }) };
}

test('test_global_temporary: two device kernels', () => {
  assert.is(generateCode(globalTemporary().knl, openclTarget()).kernels.length, 2);
});

for (const device of testDevices()) {
  test(`${device.name}: test_global_temporary`, async () => {
    const n = 5;
    const a = Float32Array.from({ length: n + 1 }, (_, k) => 3 - k * 0.5);
    for (const kernel of Object.values(globalTemporary())) {
      const { out } = await run(kernel, device, { a, n });
      assert.equal(Array.from(out as Float32Array), Array.from(a.subarray(1)));
    }
  });
}

// }}}

test.run();
