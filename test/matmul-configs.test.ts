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

test('vectorWidth 4: the panels are staged by float4 loads into float4 local arrays, one barrier pair per step', () => {
  const code = clCode(VECTOR_CONFIGS[0], 256);
  assert.match(code, '__global float4 const *__restrict__ a');
  assert.match(code, '__global float4 const *__restrict__ b');
  assert.match(code, '__local float4 a_fetch[512];');
  assert.match(code, '__local float4 b_fetch[512];');
  // a whole vector of b moves at once (no lane-by-lane copies), and the product reads floats of the panels
  assert.match(code, /b_fetch\[32 \* lid\(1\) \+ lid\(0\)\] = .*b\[/);
  assert.not.match(code, /b_fetch\[[^\]]*\]\.s1 =/);
  assert.match(code, '((__local float *) a_fetch)[');
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
