/**
 * Ports of loopy's test/test_target.py, the casts that are refused: a cast whose operand is a
 * vector stored where a scalar goes, and a cast to something that is no dtype. loopy raises
 * LoopyError when the kernel is preprocessed or the cast is made; Loom raises a LoomError at
 * the same points, before anything runs, and the valid neighbour of each is run on every test
 * device against plain JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expr, LoomError, makeKernel, preprocessKernel, run, structDType } from '@loom/core';
import { supportsDType, testDevices } from '../support/devices.ts';

const throwsLoom = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof LoomError && message.test((e as Error).message));

test('test_child_invalid_type_cast', () => {
  // loopy's ctr = make_uint2(0, 0) is a uint2; int64(ctr) casts it lane by lane (OpenCL's
  // meaning of a vector cast), a vector that a[i] cannot hold
  throwsLoom(
    () => preprocessKernel(makeKernel('{[i]: 0<=i<n}', ['<uint2> ctr = 0', 'a[i] = int64(ctr) << i'])),
    /stores a vector of 2 lanes into 'a\[i\]', which holds scalars/,
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_child_invalid_type_cast`, async () => {
    if (!supportsDType(device, 'int64'))
      console.log(`${device.name}: test_child_invalid_type_cast casts to int32: WGSL has no int64`);
    const t = supportsDType(device, 'int64') ? 'int64' : 'int32';
    // loopy's text itself: make_uint2 makes a uint2, whose int64 cast is a vector a[i] cannot hold
    throwsLoom(
      () => makeKernel('{[i]: 0<=i<n}', ['<> ctr = make_uint2(0, 0)', `a[i] = ${t}(ctr) << i`]),
      /stores a vector of 2 lanes into 'a\[i\]', which holds scalars/,
    );
    // one lane of the vector is a scalar, which the cast and the shift take
    const valid = makeKernel('{[i]: 0<=i<n}', ['<uint2> ctr = 3', `a[i] = ${t}(ctr.y) << i`]);
    const { a } = await run(valid, device, { n: 4 });
    assert.equal(Array.from(a as BigInt64Array | Int32Array, Number), [3, 6, 12, 24]);
  });
}

test('test_target_invalid_type_cast', () => {
  // loopy's TypeCast to a numpy struct dtype: a struct is assigned field by field, never cast to,
  // and a cast to what is no dtype is refused when the node is made
  const pair = structDType('pair', [
    ['a', 'uint32'],
    ['b', 'int32'],
  ]);
  throwsLoom(() => expr.cast(pair as unknown as string, expr.int(1)), /cast: the struct 'pair' is no dtype/);
  throwsLoom(() => expr.cast('struct', expr.int(1)), /cast: 'struct' is no dtype/);
  throwsLoom(
    () => expr.cast({ names: ['', ''], formats: ['<u4', '<i4'] } as unknown as string, expr.int(1)),
    /cast: .* is no dtype/,
  );
  throwsLoom(() => expr.cast('float4', expr.int(1)), /cast: 'float4' is no dtype/);
  assert.equal(expr.cast('uint32', expr.int(1)), { kind: 'cast', dtype: 'uint32', operand: expr.int(1) });
});

test.run();
