/**
 * Random tensor tilings of a matrix product, searched rather than picked: each seed chooses the
 * warps of a work-group, the tiles a warp holds, the steps of k staged in local memory, padding,
 * double buffering, 16-byte panel copies, and the factors' dtype (halves into float32 or float16
 * accumulators, or floats rounded to TF32), then runs the kernel on every device with matrix
 * instructions (the CPU device's loops; CUDA's tensor cores where present) on small integers, whose
 * products and sums are exact in every precision, and compares every element with plain JavaScript.
 * A tiling Loom cannot place is refused with a LoomError naming why, never run.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { float16Bits, float16Value, LoomError, run, targetFacts, type LoopKernel } from '@loom/core';
import { hgemmKernel, tf32Kernel, type HgemmConfig } from '../examples/hgemm.ts';
import { Rng } from './support/differential/random.ts';
import { testDevices } from './support/devices.ts';

/**
 * Seeds of the sample: enough to cover every option a few times, few enough for CI's CPU (seeds 1 to
 * 40 were run once on the CPU device: 36 tilings ran, every element exact, 4 refused).
 */
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

interface Tiling {
  readonly config: HgemmConfig;
  readonly factors: 'half into float32' | 'tf32';
  readonly n: number;
}

function randomTiling(seed: number): Tiling {
  const rng = new Rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)]!;
  const factors = rng.chance(0.3) ? 'tf32' : 'half into float32';
  const config: HgemmConfig = {
    warpsM: pick([1, 2]),
    warpsN: pick([1, 2]),
    regM: pick([1, 2]),
    regN: pick([1, 2]),
    tileK: pick([32, 64]),
    padding: pick([0, factors === 'tf32' ? 4 : 8]),
    doubleBuffered: rng.chance(0.4),
    wideCopies: rng.chance(0.4),
  };
  const block = Math.max(config.warpsM * config.regM, config.warpsN * config.regN) * 16;
  const n = Math.max(block, config.tileK) * pick([1, 2]);
  // drawn last, so that the seeds drawn before asynchronous copies existed keep their tilings;
  // halves are copied asynchronously only 16 bytes at a time (cp.async moves no 2-byte element)
  const asyncCopies = (config.wideCopies || factors === 'tf32') && rng.chance(0.5);
  return { config: { ...config, asyncCopies }, factors, n };
}

/** n x n small integers (-2 to 2): every product and partial sum of them is exact in float16 and TF32. */
function smallIntegers(n: number, seed: number): Int32Array {
  return Int32Array.from({ length: n * n }, (_, k) => ((k * 7 + seed * 13 + Math.floor(k / n)) % 5) - 2);
}

for (const device of testDevices()) {
  if ('refused' in targetFacts(device.target).matrixInstructions) continue;
  test(`${device.name}: random tensor tilings of a matrix product compute it exactly (seeds ${SEEDS.join(', ')})`, async () => {
    let ran = 0;
    for (const seed of SEEDS) {
      const { config, factors, n } = randomTiling(seed);
      const what = `seed ${seed}: ${factors}, n = ${n}, ${JSON.stringify(config)}`;
      let knl: LoopKernel;
      try {
        knl = factors === 'tf32' ? tf32Kernel(n, config) : hgemmKernel(n, config);
      } catch (e) {
        // refused with the reason (doubleBuffer of a loop of one step), or a panel that does not
        // spread over the warps in chunks (the example's own limit)
        if (e instanceof LoomError || (e instanceof Error && /does not spread/.test(e.message))) continue;
        throw e;
      }
      const a = smallIntegers(n, seed);
      const b = smallIntegers(n, seed + 1);
      const args =
        factors === 'tf32'
          ? { a: new Float32Array(a), b: new Float32Array(b) }
          : { a: Uint16Array.from(a, float16Bits), b: Uint16Array.from(b, float16Bits) };
      let c: Float32Array;
      try {
        c = (await run(knl, device, args)).c as Float32Array;
      } catch (e) {
        // what a device cannot hold (local or private memory) is refused before anything runs
        if (e instanceof LoomError && /memory/.test(e.message)) continue;
        throw new Error(`${what}: ${(e as Error).message}`);
      }
      ran++;
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let p = 0; p < n; p++) sum += a[i * n + p]! * b[p * n + j]!;
          if (c[i * n + j] !== sum) assert.unreachable(`${what}: c[${i}, ${j}] = ${c[i * n + j]}, expected ${sum}`);
        }
    }
    assert.ok(ran >= SEEDS.length / 2, `only ${ran} of ${SEEDS.length} tilings ran`);
    // the halves read back as the integers they hold
    assert.is(float16Value(float16Bits(-2)), -2);
  });
}

test.run();
