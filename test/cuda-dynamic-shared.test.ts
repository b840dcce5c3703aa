/**
 * Local memory above CUDA's 48 KiB of static shared memory: a kernel whose local arrays take more
 * has them carved out of the dynamic shared memory (one `extern __shared__` array, each at a
 * multiple of 128 bytes), the target tells the device how many bytes (`CudaExtra.carvedSharedBytes`),
 * and the launch opts the kernel in to them (up to 227 KiB a block on an H100). Checked on the
 * CUDA C, and on the values of an SGEMM whose two buffers of 128x32 and 32x128 panels take 65 KiB,
 * on every device: computed where the device gives a work-group that much local memory, refused
 * before it runs where it does not.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, generateCode, LoomError, run } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { FLOAT4_SGEMM } from '@loom/computation';
import { matmulError, matmulKernel, referenceMatmul, type MatmulConfig } from '../examples/matmul.ts';
import { randomFloat32, testDevices } from './support/devices.ts';

/** 128x128 tiles, k by 32, float4 panels (a's row by row), two buffers: about 2 x (128 x 33 + 32 x 128) floats, 65 KiB. */
const { aTransposedVectors: _, pipelined: __, ...float4Panels } = FLOAT4_SGEMM;
const LARGE: MatmulConfig = { ...float4Panels, unrollK: false, doubleBuffered: true };

const cudaCode = (config: MatmulConfig, n: number) =>
  generateCode(addDtypes(matmulKernel(config, n), { a: 'float32', b: 'float32' }), cudaTarget());

test('CUDA C: local arrays above 48 KiB are carved out of the dynamic shared memory, and the target says how much', () => {
  const { code, extra, kernels } = cudaCode(LARGE, 1024);
  assert.match(code, 'extern __shared__ __align__(128) unsigned char loom_dynamic_shared[];');
  assert.match(code, /float \*__restrict__ a_fetch = \(float \*\) \(loom_dynamic_shared \+ 0\);/);
  assert.match(
    code,
    /float4 \*__restrict__ b_fetch = \(float4 \*\) \(loom_dynamic_shared \+ \(\(33788\) \+ 127\) \/ 128 \* 128\);/,
  );
  assert.not.match(code, '__shared__ float a_fetch[');
  assert.is(extra.carvedSharedBytes[kernels[0].entryPoint], 33792 + 32768); // 33788 rounded up to 128 bytes
  // within 48 KiB the arrays stay static, and nothing is carved
  const small = cudaCode({ ...LARGE, tileK: 16 }, 1024);
  assert.match(small.code, /__shared__ float a_fetch\[\d+\];/);
  assert.not.match(small.code, 'loom_dynamic_shared');
  assert.is(small.extra.carvedSharedBytes[small.kernels[0].entryPoint], 0);
  // copied asynchronously too: the carved panels are aligned for 16-byte copies
  const copied = cudaCode({ ...LARGE, asyncCopies: true }, 1024).code;
  assert.match(copied, 'loom_copy_async_16(');
  assert.match(copied, 'loom_dynamic_shared');
});

for (const device of testDevices()) {
  test(`${device.name}: an SGEMM with 65 KiB of local memory computes a*b, or is refused before it runs`, async () => {
    const n = 256;
    const a = randomFloat32(n * n, 11).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 12).map((x) => x - 0.5);
    const expected = referenceMatmul(a, b, n);
    for (const config of [LARGE, { ...LARGE, asyncCopies: true }]) {
      const outcome = await run(matmulKernel(config, n), device, { a, b }).then(
        (out) => out,
        (e: Error) => e,
      );
      if (outcome instanceof Error) {
        assert.instance(outcome, LoomError, String(outcome));
        assert.match(outcome.message, /local memory|workgroup storage|asynchronous copy/, outcome.message);
        continue;
      }
      // where local memory allows it: CUDA (opted in), PoCL's CPU devices
      const error = matmulError(outcome.c as Float32Array, expected, n);
      assert.ok(error < 1e-6, `${JSON.stringify(config)}: error ${error}`);
    }
  });
}

test.run();
