/**
 * `matrixMul` on a device that copies global memory into local memory asynchronously (CUDA's
 * `cp.async`). Its default is the float4 kernel every such target gets (both panels read as
 * float4s, a's stored k-major, the next step's panels loaded during this step's product): on the
 * H200 as fast as the same kernel with b's panel filled by cp.async (BENCHMARKS.md, nineteenth
 * session). A configuration asked for with asynchronous copies keeps them, except for a panel whose
 * fill a fused transformation makes compute, which is filled through registers. Checked on the CUDA C
 * generated for such a device's parameters (the values on CUDA itself: the GPU machine's suite and
 * bench/computations.ts); on every device present, the default's products compute a*b.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, run } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import {
  deviceParameters,
  FLOAT4_SGEMM,
  matrixMul,
  mulConst,
  type DeviceParameters,
  type MatmulConfig,
} from '@loom/computation';
import { finishCall, flatten } from '../packages/computation/src/computation/flatten.ts';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';
import { H200_OPENCL } from './support/h200-parameters.ts';

/** An H200 through CUDA, as a plan sees it. */
const CUDA_H200: DeviceParameters = {
  ...H200_OPENCL,
  target: 'cuda',
  vectorDTypes: ['float32', 'int32', 'uint32'],
  asyncCopies: true,
};

const f32 = (shape: number[]) => ({ dtype: 'float32' as const, shape });

/** The CUDA C of each kernel `comp` makes for CUDA_H200. */
function cudaCode(comp: Parameters<typeof flatten>[0]): string[] {
  return flatten(comp, CUDA_H200).map((c) => generateCode(finishCall(c, 'test').kernel, cudaTarget()).code);
}

/** The operands of a product of PRODUCTS (random), and a*b in plain JS (b halved where the product halves it). */
function productCase(what: string): { a: Float32Array; b: Float32Array; k: number; want: Float32Array } {
  const k = what.startsWith('k of 72') ? 72 : 64;
  const batch = what === 'a batch of 2' ? 2 : 1;
  const a = randomFloat32(batch * 256 * k, 1);
  const b = randomFloat32(k * 256, 2);
  const scale = what === 'b halved' ? 0.5 : 1;
  const want = new Float32Array(batch * 256 * 256);
  for (let t = 0; t < batch; t++)
    for (let i = 0; i < 256; i++)
      for (let j = 0; j < 256; j++) {
        let s = 0;
        for (let q = 0; q < k; q++) s += a[(t * 256 + i) * k + q]! * b[q * 256 + j]! * scale;
        want[(t * 256 + i) * 256 + j] = s;
      }
  return { a, b, k, want };
}

const PRODUCTS = {
  plain: matrixMul(f32([256, 64]), f32([64, 256])),
  'b halved': matrixMul(f32([256, 64]), f32([64, 256])).attach(
    'matrix_b',
    mulConst({ dtype: 'float32' }, 0.5),
    'output',
    {
      input: 'b_full',
    },
  ),
  'k of 72, a partial last step': matrixMul(f32([256, 72]), f32([72, 256])),
  'a batch of 2': matrixMul(f32([2, 256, 64]), f32([64, 256])),
};

/** The tuned SGEMM of the thirteenth session on CUDA: float4 panels of k by 16 filled by cp.async into two buffers. */
const { aTransposedVectors: _, pipelined: __, ...float4Panels } = FLOAT4_SGEMM;
const ASYNC_CONFIG: MatmulConfig = {
  ...float4Panels,
  tileK: 16,
  unrollK: false,
  doubleBuffered: true,
  asyncCopies: true,
};

/** Products asked for with ASYNC_CONFIG (CUDA only: other targets refuse asynchronous copies). */
const ASYNC_PRODUCTS = {
  plain: matrixMul(f32([256, 64]), f32([64, 256]), { config: ASYNC_CONFIG }),
  'b halved': matrixMul(f32([256, 64]), f32([64, 256]), { config: ASYNC_CONFIG }).attach(
    'matrix_b',
    mulConst({ dtype: 'float32' }, 0.5),
    'output',
    { input: 'b_full' },
  ),
};

test('matrixMul on a device that copies asynchronously: by default both panels read as float4s, a k-major, filled through registers a step ahead', () => {
  const [code] = cudaCode(PRODUCTS.plain as never);
  assert.match(code!, '__shared__ float4 a_fetch[');
  assert.match(code!, 'a_vec_next');
  assert.not.match(code!, 'loom_copy_async');
});

test('matrixMul with a configuration of asynchronous copies: double-buffered float4 panels filled by cp.async, but a panel whose fill computes (a fused scaling) through registers', () => {
  const [code] = cudaCode(ASYNC_PRODUCTS.plain as never);
  assert.match(code!, 'loom_copy_async_16(');
  // k's steps taken in pairs, a buffer each
  assert.match(code!, 'k_outer_pair');
  const [scaled] = cudaCode(ASYNC_PRODUCTS['b halved'] as never);
  // a's panel still copied asynchronously, b's scaled on its way through registers
  assert.match(scaled!, 'loom_copy_async_');
  assert.match(scaled!, /b_fetch\[[^\]]*\]\.x = b_full\[[^\]]*\] \* 0\.5f;/);
  assert.match(scaled!, 'k_outer_pair');
});

test('matrixMul on a device that copies asynchronously: a partial last step of k, and a batched product, take the same float4 kernel of one buffer', () => {
  for (const what of ['k of 72, a partial last step', 'a batch of 2'] as const) {
    const [code] = cudaCode(PRODUCTS[what] as never);
    assert.not.match(code!, 'k_outer_pair', what);
    assert.not.match(code!, 'loom_copy_async', what);
    assert.match(code!, '__shared__ float4 a_fetch[', what);
  }
});

test('the kernels matrixMul plans for CUDA compute a*b where copies complete at once (the CPU device runs them as written)', async () => {
  const { cpuDevice } = await import('@loom/codegen-js');
  // (the H200's 48 KiB of local memory: two buffers of panels take 36 KB)
  const cpu = cpuDevice({ limits: { maxLocalMemoryBytes: 48 * 1024 } });
  const cases = [
    ...Object.entries(PRODUCTS),
    ...Object.entries(ASYNC_PRODUCTS).map(([what, comp]) => [`${what}, copied asynchronously`, comp] as const),
  ];
  for (const [named, comp] of cases) {
    const what = named.replace(', copied asynchronously', '');
    const { a, b, k, want } = productCase(what);
    const [call] = flatten(comp as never, CUDA_H200).map((c) => finishCall(c, named));
    // (the kernel's own argument names: a, b and c, b's scaling fused in under the transformation's name)
    const inputs: Record<string, Float32Array> = what === 'b halved' ? { a, b_full: b } : { a, b };
    const { c } = (await run(call!.kernel, cpu, inputs)) as { c: Float32Array };
    assertClose(c, Array.from(want), `${named} (k ${k})`, 1e-5, 1e-4);
  }
});

for (const device of testDevices())
  test(`${device.name}: the default's products of these cases compute a*b`, async () => {
    for (const [what, comp] of Object.entries(PRODUCTS)) {
      const { a, b, want } = productCase(what);
      const compiled = await comp.compile(device);
      const { output } = (await compiled(undefined, a, b)) as { output: Float32Array };
      assertClose(output, Array.from(want), `${device.name}, ${what} (${deviceParameters(device).target})`, 1e-5, 1e-4);
    }
  });

test.run();
