/**
 * A dependency through global memory that only the work-items of one group share: a work-group a
 * row writes the row's maximum `mx[i]` (i on g.0) and then every work-item of the group reads it.
 * A barrier across the work-group that fences global memory orders that (OpenCL's
 * CLK_GLOBAL_MEM_FENCE, WGSL's storageBarrier, CUDA's __syncthreads); only a dependency that
 * crosses groups needs a global barrier (a MissingBarrierError without one). Such a barrier also
 * fences local memory where another pending dependency needs that. The arrays written are no
 * restrict pointers then: NVIDIA's compilers moved loads through them across the barrier.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, generateCode, makeKernel, MissingBarrierError, run, splitIname, tagInames } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { randomFloat32, testDevices } from './support/devices.ts';

/** Each row less its maximum, a work-group a row of 64 work-items. */
function rowsLessTheirMaximum() {
  let knl = makeKernel(
    '{ [i, j, k]: 0<=i<n and 0<=j,k<256 }',
    `mx[i] = max(k, x[i, k]) {id=mx}
     y[i, j] = x[i, j] - mx[i] {dep=mx}`,
  );
  knl = addDtypes(knl, { x: 'float32' });
  knl = tagInames(knl, { i: 'g.0' });
  knl = splitIname(knl, 'k', 64, { innerTag: 'l.0' });
  return splitIname(knl, 'j', 64, { innerTag: 'l.0' });
}

test('a row maximum in global memory read by its own group: a barrier fencing global memory, not a global barrier', () => {
  const opencl = generateCode(rowsLessTheirMaximum(), openclTarget()).code;
  assert.match(opencl, 'barrier(CLK_GLOBAL_MEM_FENCE) /* for mx (');
  assert.match(opencl, 'barrier(CLK_LOCAL_MEM_FENCE) /* for acc_k_inner');
  // no restrict pointer to what the work-items share: a compiler may move its loads across the barrier
  assert.match(opencl, '__global float *mx');
  assert.match(opencl, '__global float const *__restrict__ x');
  const wgsl = generateCode(rowsLessTheirMaximum(), wgslTarget()).code;
  assert.match(wgsl, 'storageBarrier();');
});

test('read by other groups (mx[i + 1]), the dependency needs a global barrier', () => {
  let knl = makeKernel(
    '{ [i, j, k]: 0<=i<n and 0<=j,k<256 }',
    `mx[i] = max(k, x[i, k]) {id=mx}
     y[i, j] = x[i, j] - mx[(i + 1) % n] {dep=mx}`,
  );
  knl = addDtypes(knl, { x: 'float32' });
  knl = tagInames(knl, { i: 'g.0' });
  knl = splitIname(knl, 'k', 64, { innerTag: 'l.0' });
  knl = splitIname(knl, 'j', 64, { innerTag: 'l.0' });
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) => e instanceof MissingBarrierError,
  );
});

for (const device of testDevices())
  test(`${device.name}: each row less its maximum, the maximum through global memory`, async () => {
    const n = 300;
    const x = randomFloat32(n * 256, 3);
    const { mx, y } = await run(rowsLessTheirMaximum(), device, { x, n, mx: new Float32Array(n) });
    for (let i = 0; i < n; i++) {
      const row = x.subarray(i * 256, (i + 1) * 256);
      const max = row.reduce((a, b) => Math.max(a, b));
      assert.is((mx as Float32Array)[i], max);
      for (let j = 0; j < 256; j++)
        if ((y as Float32Array)[i * 256 + j] !== Math.fround(row[j]! - max))
          assert.unreachable(`y[${i}, ${j}] = ${(y as Float32Array)[i * 256 + j]}, not ${row[j]! - max}`);
    }
  });

test.run();
