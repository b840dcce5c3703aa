// The CPU device behind `run`: kernels from the kernel model, generated as JavaScript and run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeKernel, run } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';

test('run(out[i] = 2*a[i]) on the CPU device, for n = 1, 7, 1000', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  const device = cpuDevice();
  for (const n of [1, 7, 1000]) {
    const a = Float32Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i) * 1e3));
    const { out } = await run(knl, device, { a });
    assert.instance(out, Float32Array);
    assert.equal(
      [...(out as Float32Array)],
      Array.from(a, (x) => 2 * x),
      `n = ${n}`,
    );
  }
});

test('run a matrix-vector product (a sum reduction) on the CPU device: float32 accumulation, in order', async () => {
  const knl = makeKernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'y[i] = sum(j, A[i, j]*x[j])');
  const [n, m] = [3, 5];
  const A = Float32Array.from({ length: n * m }, (_, k) => Math.fround(1 / (k + 1)));
  const x = Float32Array.from({ length: m }, (_, k) => Math.fround(k - 1.7));
  const { y } = await run(knl, cpuDevice(), { A: { data: A, shape: [n, m] }, x });
  const expected = Array.from({ length: n }, (_, i) => {
    let acc = 0;
    for (let j = 0; j < m; j++) acc = Math.fround(acc + Math.fround(A[i * m + j] * x[j]));
    return acc;
  });
  assert.equal([...(y as Float32Array)], expected);
});

test.run();
