/**
 * `matrixMul` with the configuration the autotuner kept for a device (issue 29: "the autotune
 * cache when present, a good default otherwise"): the tuning problem's name agrees with
 * examples/matmul.ts's `matmulTuning`, `tunedMatrixMulConfig` finds the cache's entry for the
 * device and shape, a product built with it computes a*b on every device, and a cache with no
 * entry, or an entry that is not a configuration, leaves `matrixMul` its default.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memoryTuningCache, printExpr, type TunedEntry } from '@loom/core';
import {
  DEFAULT_MATMUL,
  matrixMul,
  sgemmProblemName,
  tunedMatrixMulConfig,
  type MatmulConfig,
} from '@loom/computation';
import { matmulTuning } from '../examples/matmul.ts';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

/** A configuration unlike the default (32 x 32 tiles of 2 x 2 a work-item), so that finding it shows. */
const TUNED: MatmulConfig = { ...DEFAULT_MATMUL, tileM: 32, tileN: 32, tileK: 16, regM: 2, regN: 2 };

const entry = (config: unknown): TunedEntry => ({
  config,
  seconds: 1e-3,
  tried: 1,
  measuredAt: '2026-12-04T00:00:00Z',
});

test("the tuning problem's name: the same as matmulTuning's, square or shaped", () => {
  assert.is(sgemmProblemName(4096), 'sgemm n=4096');
  assert.is(sgemmProblemName({ m: 4000, n: 4100, k: 3900 }), 'sgemm 4000x4100x3900');
  assert.is(sgemmProblemName({ m: 512, n: 512, k: 512, batch: 64 }), 'sgemm 64 x 512x512x512');
  assert.is(matmulTuning(256).name, sgemmProblemName(256));
  assert.is(matmulTuning({ m: 100, n: 164, k: 92 }).name, sgemmProblemName({ m: 100, n: 164, k: 92 }));
});

test("a product with the cache's configuration for the device computes a*b on every device", async () => {
  const n = 64;
  const a = randomFloat32(n * n, 1);
  const b = randomFloat32(n * n, 2);
  const want = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let q = 0; q < n; q++) s += a[i * n + q]! * b[q * n + j]!;
      want[i * n + j] = s;
    }
  for (const device of testDevices()) {
    const cache = memoryTuningCache();
    cache.set(sgemmProblemName(n), device.name, entry(TUNED));
    // another device's entry, and another shape's, are not this one's
    cache.set(sgemmProblemName(n), `${device.name} (another)`, entry({ ...TUNED, tileK: 32 }));
    cache.set(sgemmProblemName(2 * n), device.name, entry({ ...TUNED, regM: 4 }));
    const config = await tunedMatrixMulConfig(cache, device, n);
    assert.equal(config, TUNED, device.name);
    const product = matrixMul({ dtype: 'float32', shape: [n, n] }, { dtype: 'float32', shape: [n, n] }, { config });
    const compiled = await product.compile(device);
    // its panels are the tuned tiles' (32 x 16 and 16 x 32), not the default's (64 x 16, 16 x 64)
    const panels = [...compiled.kernels[0]!.temporaries.values()]
      .filter((t) => t.addressSpace === 'local')
      .map((t) => `${t.name} ${(t.shape ?? []).map(printExpr).join(' x ')}`);
    assert.equal(panels, ['a_fetch 32 x 16', 'b_fetch 16 x 32'], device.name);
    const { output } = await compiled(undefined, a, b);
    assertClose(output as Float32Array, want, `${device.name}: a*b with the tuned configuration`, 1e-5, 1e-5);
  }
});

test('no entry, or an entry that is not a configuration: undefined, and matrixMul takes its default', async () => {
  const cache = memoryTuningCache();
  assert.is(await tunedMatrixMulConfig(cache, 'some GPU', 256), undefined);
  for (const stale of [
    { tile: 64 },
    { ...DEFAULT_MATMUL, tileM: 0 },
    { ...DEFAULT_MATMUL, layout: 'diagonal' },
    { ...DEFAULT_MATMUL, regM: 3 }, // does not divide the tile: configProblem refuses it
    'sgemm',
    null,
  ]) {
    cache.set(sgemmProblemName(256), 'some GPU', entry(stale));
    assert.is(await tunedMatrixMulConfig(cache, 'some GPU', 256), undefined, JSON.stringify(stale));
  }
  // an undefined config is matrixMul's default: the product still builds
  const product = matrixMul(
    { dtype: 'float32', shape: [256, 256] },
    { dtype: 'float32', shape: [256, 256] },
    { config: await tunedMatrixMulConfig(cache, 'some GPU', 256) },
  );
  assert.is(product.signature.length, 3);
});

test.run();
