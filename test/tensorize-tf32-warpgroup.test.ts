/**
 * tensorize with `precision: 'tf32'` on Hopper's warpgroup instructions (`wgmma ... .tf32`,
 * examples/tf32-wgmma.ts): 64 x N x 8 tiles of floats read as TF32, both factors swizzled lines of 32
 * floats with their lines along k (b's panel stored transposed). Checked on the CUDA C (the
 * instruction without transpose bits, K-major swizzled descriptors, b copied transposed element by
 * element beside a's bulk request), on SGEMM's values on every device that has the instructions
 * (small integers: exact in TF32, so the sums are exact), on factors with bits past TF32's (taken
 * truncated, as the hardware takes them: bench/wgmma/tf32-probe.cu on an H100), and on what is
 * refused: a factor with its lines across k, float32 tiles not swizzled.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, targetFacts } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { TF32_WGMMA_CONFIGS, TF32_WGMMA_DEFAULT, tf32WgmmaKernel } from '../examples/tf32-wgmma.ts';
import { testDevices } from './support/devices.ts';
import { refusal, runUnlessRefused } from './support/refusals.ts';

/** What CUDA on a GPU without Hopper's instructions refuses the kernels with, before running them. */
const HOPPER_ONLY = 'compute capability 9.0';

test('CUDA C: TF32 tiles of 64 x 128 x 8 from K-major swizzled panels, b copied transposed', () => {
  const generated = generateCode(tf32WgmmaKernel(4096, TF32_WGMMA_DEFAULT), cudaTarget());
  const code = generated.code;
  assert.is(generated.extra.hopperOnly, true);
  // TF32 has no transpose bits: the scale flags only
  assert.match(code, 'wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {');
  assert.match(code, /%64, %65, p, 1, 1;\\n\}/);
  // both factors K-major, swizzled over 128 bytes: leading offset unused, 8 lines of 128 bytes a repeat;
  // each k of 8 moves the start 32 bytes along the lines
  assert.match(
    code,
    'loom_wgmma_m64n128k8_tf32(acc[0], loom_wgmma_descriptor_swizzled(a_fetch + (2048 * tIdx(y) + 8 * k_step), 16, 1024, 1), loom_wgmma_descriptor_swizzled(b_fetch + (8 * k_step), 16, 1024, 1));',
  );
  // a's panel one request a step; b's copied a float at a time into its transposed, swizzled place
  assert.match(code, 'loom_bulk_copy_2d(&loom_map_0, a_fetch');
  assert.match(code, /loom_copy_async_4\(b_fetch \+ \([^;]*\^[^;]*\), b \+ \(/);
  // b's copies are the work-items': the barriers stay the work-group's
  assert.not.match(code, 'loom_bulk_release');
});

test('CUDA C: b transposed first by a kernel of its own, then both panels one bulk request a step', () => {
  const config = TF32_WGMMA_CONFIGS.find((c) => c.transposeFirst);
  assert.ok(config);
  const { code } = generateCode(tf32WgmmaKernel(4096, config), cudaTarget());
  const [transposition, product] = code.split(/extern "C" __global__ /).slice(1);
  // the transposition: 32 x 32 tiles through local memory with rows of 33 floats, and nothing to wait for
  // at its barrier (no copies, no products in that kernel)
  assert.match(transposition, 'sgemm_tf32(float const *__restrict__ b, float *__restrict__ b_lines)');
  assert.match(transposition, '__shared__ float b_tile[1055];');
  assert.not.match(transposition, 'loom_copy_async_wait');
  assert.not.match(transposition, 'wgmma.wait_group');
  // the product reads the global temporary through tensor maps: both panels requested, no element copies
  assert.match(product, 'float const *__restrict__ b_lines, const __grid_constant__ loom_tensor_map loom_map_0');
  assert.match(product, 'loom_bulk_copy_2d(&loom_map_0, b_fetch');
  assert.match(product, 'loom_bulk_copy_2d(&loom_map_1, a_fetch');
  assert.not.match(product, 'loom_copy_async_4');
});

test('refused before any code runs: a TF32 factor with its lines across k, float32 tiles not swizzled', () => {
  // b's panel as the prefetch leaves it (b_fetch[k][j]: lines of 32 floats along j)
  const narrow = { warpgroups: 2, columns: 32, stages: 2, bulkCopies: true };
  assert.match(
    refusal(() => generateCode(tf32WgmmaKernel(512, narrow, { transposeB: false }), cudaTarget())),
    "reads float32 factors only with their lines along k, but 'b_fetch' is stored with its lines across k",
  );
  assert.match(
    refusal(() => generateCode(tf32WgmmaKernel(512, TF32_WGMMA_DEFAULT, { swizzled: false }), cudaTarget())),
    "(float32) must be stored swizzled for the matrix instruction to read it: swizzleArray(knl, 'a_fetch', 128)",
  );
});

/** x as TF32 by dropping its 13 low bits (what Hopper's warpgroup instructions do: bench/wgmma/tf32-probe.cu) or by rounding to nearest. */
function asTf32(x: number, how: 'truncated' | 'rounded'): number {
  const word = new Float32Array([x]);
  const bits = new Uint32Array(word.buffer);
  bits[0] = ((how === 'rounded' ? bits[0]! + 0x1000 : bits[0]!) & 0xffffe000) >>> 0;
  return word[0]!;
}

/** An n x n matrix of small integers (exact in TF32, their products' sums exact in float32). */
function smallIntegers(n: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n * n }, () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return (s % 7) - 3;
  });
}

for (const device of testDevices()) {
  const support = targetFacts(device.target).matrixInstructions;
  const hasWarpgroups = !('refused' in support) && support.shapes.some((s) => s.factors === 'core-matrices');
  if (!hasWarpgroups) continue;
  test(`${device.name}: TF32 SGEMM on warpgroup tiles computes the product`, async () => {
    // the CPU device computes each lane's copy of the tile: fewer lanes there, the same layouts
    const emulated = support.lanes === 1;
    const n = emulated ? 128 : 512;
    const a = smallIntegers(n, 3);
    const b = smallIntegers(n, 4);
    const configs = emulated
      ? [
          // (what the CPU device's 32 KiB of local memory holds)
          { warpgroups: 1, columns: 32, stages: 2, bulkCopies: true },
          { warpgroups: 2, columns: 32, stages: 1, bulkCopies: true },
          { warpgroups: 1, columns: 8, stages: 3, ahead: 1 },
          { warpgroups: 1, columns: 32, stages: 2, bulkCopies: true, transposeFirst: true },
        ]
      : TF32_WGMMA_CONFIGS;
    // b as given, and b given transposed (both panels then one request each a step where bulk copies are asked for)
    const bT = Float32Array.from(b, (_, q) => b[(q % n) * n + Math.floor(q / n)]!);
    for (const config of configs)
      for (const bTransposed of config.transposeFirst ? [false] : [false, true]) {
        const knl = tf32WgmmaKernel(n, config, { ...(emulated ? { lanes: 8 } : {}), bTransposed });
        const outcome = await runUnlessRefused(knl, device, { a, b: bTransposed ? bT : b }, HOPPER_ONLY);
        if (!outcome) continue;
        const c = outcome.c as Float32Array;
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++) {
            let sum = 0;
            for (let p = 0; p < n; p++) sum += a[i * n + p]! * b[p * n + j]!;
            if (c[i * n + j] !== sum)
              assert.unreachable(
                `${JSON.stringify(config)}${bTransposed ? ' from bT' : ''}: c[${i}, ${j}] = ${c[i * n + j]}, expected ${sum}`,
              );
          }
      }
  });
}

for (const device of testDevices()) {
  const support = targetFacts(device.target).matrixInstructions;
  if ('refused' in support || !support.shapes.some((s) => s.factors === 'core-matrices')) continue;
  test(`${device.name}: TF32 factors with bits past TF32's 10 are taken truncated, as the hardware takes them`, async () => {
    const emulated = support.lanes === 1;
    const n = emulated ? 64 : 256;
    // floats with 23 significant bits: TF32 keeps 10 of them
    let s = 5;
    const random = () => {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      return s / 2 ** 31 - 0.5;
    };
    const a = Float32Array.from({ length: n * n }, random);
    const b = Float32Array.from({ length: n * n }, random);
    const config = emulated ? { warpgroups: 1, columns: 32, stages: 2, bulkCopies: true } : TF32_WGMMA_DEFAULT;
    const knl = tf32WgmmaKernel(n, config, emulated ? { lanes: 8 } : {});
    const outcome = await runUnlessRefused(knl, device, { a, b }, HOPPER_ONLY);
    if (!outcome) return;
    const c = outcome.c as Float32Array;
    let discriminating = 0;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let truncated = 0;
        let rounded = 0;
        let magnitude = 0;
        for (let p = 0; p < n; p++) {
          const [x, y] = [a[i * n + p]!, b[p * n + j]!];
          truncated += asTf32(x, 'truncated') * asTf32(y, 'truncated');
          rounded += asTf32(x, 'rounded') * asTf32(y, 'rounded');
          magnitude += Math.abs(x * y);
        }
        // float32 sums in the instruction's order (not the CPU's): a few roundings of the magnitude's size
        const tolerance = 4 * 2 ** -24 * Math.sqrt(n) * magnitude;
        if (!(Math.abs(c[i * n + j]! - truncated) <= tolerance))
          assert.unreachable(`c[${i}, ${j}] = ${c[i * n + j]}, expected ${truncated} (rounded factors: ${rounded})`);
        if (Math.abs(truncated - rounded) > 2 * tolerance) discriminating++;
      }
    // the two readings differ past the tolerance for most entries: the check tells them apart
    assert.ok(discriminating > (n * n) / 2, `only ${discriminating} entries tell truncated from rounded`);
  });
}

test.run();
