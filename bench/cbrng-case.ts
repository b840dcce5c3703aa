/**
 * The kernel bench/cbrng.ts times, and its check: `cbrng` with `normalBm` float32 (Reikna's
 * test_computation_performance, torch.randn's counterpart) over `batch` x `generators` values, on
 * Philox-4x32-10 (torch.randn's generator, and the one every device has) or, with `bits` 64,
 * Philox-4x64-10 (Reikna's default; a device without 64-bit integers refuses it).
 * test/peers/reikna/test_cbrng.py.test.ts runs the same case at a small size.
 */
import { cbrng, normalBm, philox, type CBRNG } from '@loom/computation';

/** The generator of the benchmark. */
export function cbrngBenchCase(batch: number, generators: number, bits: 32 | 64 = 32): CBRNG {
  const sampler = normalBm(philox(bits, 4), 'float32', 0, 1);
  return cbrng({ dtype: 'float32', shape: [batch, generators] }, 1, sampler, { seed: 2024 });
}

/** Throws unless `values` look standard normal: mean and variance within 6 standard errors. */
export function checkStandardNormal(values: Float32Array): void {
  const n = values.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i];
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += (values[i] - mean) ** 2;
  variance /= n;
  if (!(Math.abs(mean) < 6 / Math.sqrt(n)) || !(Math.abs(variance - 1) < 6 * Math.sqrt(2 / (n - 1))))
    throw new Error(`not standard normal: mean ${mean}, variance ${variance} over ${n} values`);
}
