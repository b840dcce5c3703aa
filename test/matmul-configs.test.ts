/**
 * examples/matmul.ts's configurations beyond the four its main() checks: the float4 staging
 * loads (vectorWidth 4) on every tile shape, run on every device against a float64 product, and
 * every configuration of the search space generated for OpenCL (the tuner's first backend).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, generateCode, run } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { configProblem, matmulError, matmulKernel, matmulSearchSpace, referenceMatmul, type MatmulConfig } from '../examples/matmul.ts';
import { randomFloat32, testDevices } from './support/devices.ts';

const vector = (tileM: number, tileN: number, tileK: number, regM: number, regN: number, layout: 'strided' | 'blocked'): MatmulConfig => ({
  tileM,
  tileN,
  tileK,
  regM,
  regN,
  layout,
  prefetch: true,
  unrollK: false,
  vectorWidth: 4,
});

// a's rows over both work-group axes (guarded when fewer), b's vectors in one or two rounds along l.0, two rounds of rows when tileK is 32
const VECTOR_CONFIGS: MatmulConfig[] = [
  vector(128, 128, 16, 8, 8, 'strided'),
  vector(128, 64, 32, 8, 4, 'blocked'),
  vector(64, 128, 16, 4, 8, 'strided'),
  vector(64, 64, 32, 4, 4, 'strided'),
  vector(64, 64, 16, 8, 8, 'blocked'),
];

const clCode = (config: MatmulConfig, n: number) => generateCode(addDtypes(matmulKernel(config, n), { a: 'float32', b: 'float32' }), openclTarget()).code;

test('vectorWidth 4: each work-item loads float4s of a and b into private vectors, stores their lanes in the local panels', () => {
  const code = clCode(VECTOR_CONFIGS[0], 256);
  assert.match(code, '__global float4 const *__restrict__ a');
  assert.match(code, '__global float4 const *__restrict__ b');
  assert.match(code, 'float4 a_vec[1];');
  assert.match(code, 'float4 b_vec[1];');
  // one whole vector a load, then its lanes
  assert.match(code, /b_vec\[0\] = .*b\[1024 \* k_outer \+ 64 \* lid\(1\) \+ 32 \* gid\(0\) \+ lid\(0\)\]/);
  assert.match(code, 'b_fetch[128 * lid(1) + 4 * lid(0) + 3] = b_vec[0].s3;');
  assert.match(code, /a_vec\[0\] = .*a\[8192 \* gid\(1\) \+ 1024 \* lid\(1\) \+ 64 \* lid\(0\) \+ 4 \* k_outer\]/);
  // the product reads the scalar panels as the scalar configuration does: no division of the loop index
  assert.match(code, '__local float a_fetch[2048];');
  assert.match(code, 'acc_k_outer_k_inner[0] = acc_k_outer_k_inner[0] + a_fetch[16 * lid(1) + k_inner] * b_fetch[128 * k_inner + lid(0)];');
  assert.not.match(code, 'loom_floor_div');
  assert.is((code.match(/barrier\(/g) ?? []).length, 2);
});

test('vectorWidth: the configurations that cannot be built say why', () => {
  const base = VECTOR_CONFIGS[0];
  assert.match(configProblem({ ...base, prefetch: false }) ?? '', 'vectorWidth applies to the staging loads: it needs prefetch');
  assert.match(configProblem({ ...base, vectorWidth: 2 as never }) ?? '', 'vectorWidth must be 1 or 4, not 2');
  assert.throws(() => matmulKernel({ ...base, prefetch: false }, 256), /needs prefetch/);
});

test('every configuration of the search space builds for OpenCL, the float4 ones with float4 loads', () => {
  const space = matmulSearchSpace();
  assert.ok(space.length <= 64, `${space.length} configurations`);
  assert.ok(space.some((c) => c.vectorWidth === 4));
  for (const config of space) {
    assert.is(configProblem(config), undefined, JSON.stringify(config));
    const code = clCode(config, 1024);
    assert.is(code.includes('__global float4 const'), config.vectorWidth === 4, JSON.stringify(config));
  }
});

for (const device of testDevices()) {
  test(`${device.name}: the float4-staged configurations compute a*b`, async () => {
    const n = 128;
    const a = randomFloat32(n * n, 3).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 4).map((x) => x - 0.5);
    const expected = referenceMatmul(a, b, n);
    for (const config of VECTOR_CONFIGS) {
      const { c } = await run(matmulKernel(config, n), device, { a, b });
      const error = matmulError(c as Float32Array, expected, n);
      assert.ok(error < 1e-6, `${JSON.stringify(config)}: error ${error}`);
    }
  });
}

test.run();
