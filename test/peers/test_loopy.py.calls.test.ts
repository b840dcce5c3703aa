/**
 * Ports of loopy's test/test_loopy.py tests of programs and calls (issue 28): a caller and
 * callee of different index dtypes. Kernels that run are checked on every test device against
 * plain JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  fuseKernels,
  generateCode,
  inlineCallableKernel,
  LoomError,
  makeFunction,
  makeKernel,
  merge,
  run,
} from '@loom/core';
import { testDevices } from '../support/devices.ts';

const doublify = (indexDtype: 'int32' | 'int64') =>
  makeFunction('{[i]: 0<=i<10}', 'x[i] = x[i] * 2', undefined, { name: 'doublify', indexDtype });
const caller = (indexDtype: 'int32' | 'int64') =>
  makeKernel('{[I]: 0<=I<10}', '[I]: X[I] = doublify([I]: X[I])', undefined, { indexDtype });

for (const device of testDevices()) {
  test(`${device.name}: test_different_index_dtypes`, async () => {
    // loopy's case: an int32 caller of an int64 callee is refused before code generation
    const prog = merge([caller('int32'), doublify('int64')]);
    assert.throws(
      () => generateCode(prog, device.target),
      (e: unknown) => e instanceof LoomError && /calls 'doublify', whose index dtype is int64/.test(e.message),
    );
    // and the other way round, and when inlined by hand
    assert.throws(
      () => generateCode(merge([caller('int64'), doublify('int32')]), device.target),
      (e: unknown) => e instanceof LoomError && /index dtype int64\) calls 'doublify'/.test(e.message),
    );
    assert.throws(
      () => inlineCallableKernel(prog, 'doublify'),
      (e: unknown) => e instanceof LoomError && /index dtype/.test(e.message),
    );
    // one index dtype throughout is a valid program: int32 runs (X doubled in place) ...
    const X = Float32Array.from({ length: 10 }, (_, k) => k - 3.5);
    const out = await run(merge([caller('int32'), doublify('int32')]), device, { X: X.slice() });
    assert.equal(
      Array.from(out.X as Float32Array),
      Array.from(X, (x) => x * 2),
    );
    // ... and int64, which no Loom target indexes in, is refused by code generation, not narrowed
    assert.throws(
      () => generateCode(merge([caller('int64'), doublify('int64')]), device.target),
      (e: unknown) => e instanceof LoomError && /int64 indices/.test(e.message),
    );
  });
}

test('test_different_index_dtypes: option and fusion', () => {
  assert.throws(
    () => makeKernel('{[i]: 0<=i<10}', 'x[i] = 1', undefined, { indexDtype: 'uint32' as 'int32' }),
    (e: unknown) => e instanceof LoomError && /indexDtype must be 'int32' or 'int64'/.test(e.message),
  );
  assert.throws(
    () =>
      fuseKernels([
        makeKernel('{[i]: 0<=i<10}', 'a[i] = 1', undefined, { indexDtype: 'int64' }),
        makeKernel('{[j]: 0<=j<10}', 'b[j] = 2'),
      ]),
    (e: unknown) => e instanceof LoomError && /indexes in int32/.test(e.message),
  );
});

test.run();
